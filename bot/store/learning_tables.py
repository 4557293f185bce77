"""Tables of the learning loop: practice sessions, one FSRS card per member and task, and
review reminders (importing this module registers them; revision 0004_learning creates them)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, CheckConstraint, Index
from sqlmodel import Field, SQLModel

from bot.store.dialect import UTC_TIMESTAMP
from bot.store.tables import one_of

SESSION_KINDS = ("practice", "review")  # tasks by topic and difficulty; the due cards


class PracticeSession(SQLModel, table=True):
    """One member's private run of tasks: posts with `post.session_id` set, never on the
    leaderboard; the current task is its latest post."""

    __tablename__ = "practice_session"
    __table_args__ = (
        CheckConstraint(one_of("kind", SESSION_KINDS), name="ck_practice_session_kind"),
        Index("ix_practice_session_member", "guild_id", "user_id", "last_active_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    user_id: int = Field(sa_type=BigInteger)
    kind: str
    topic: str | None = None
    difficulty: str | None = None
    started_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    last_active_at: datetime = Field(sa_type=UTC_TIMESTAMP)  # every click moves it
    ended_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)


class ReviewCard(SQLModel, table=True):
    """A member's FSRS card for one task (fsrs.Card's fields as columns)."""

    __tablename__ = "review_card"
    __table_args__ = (
        # fsrs.State: Learning, Review, Relearning.
        CheckConstraint("state IN (1, 2, 3)", name="ck_review_card_state"),
        # The queue ("most overdue first") and the due count are range reads of this index.
        Index("ix_review_card_due", "guild_id", "user_id", "due"),
    )

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    task_id: str = Field(primary_key=True)
    state: int
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    due: datetime = Field(sa_type=UTC_TIMESTAMP)
    last_review: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)


class MemberReminder(SQLModel, table=True):
    """A member's opt-in daily DM when reviews are due."""

    __tablename__ = "member_reminder"
    __table_args__ = (
        CheckConstraint("hour BETWEEN 0 AND 23", name="ck_member_reminder_hour"),
        Index("ix_member_reminder_enabled", "enabled", "guild_id"),
    )

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    enabled: bool
    hour: int
    timezone: str | None = None  # the member's IANA zone; None: the server's
    last_sent_on: date | None = None  # local date of the last DM, claimed before sending
    dms_closed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """Set when Discord refused the DM; /review tells the member once, then clears it."""
