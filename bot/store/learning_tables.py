"""Tables of the learning loop: private practice sessions, one FSRS card per member and task,
and members' review reminders.

They live on the shared `SQLModel.metadata` (importing this module registers them; revision
0004_learning creates them). Timestamps are stored naive UTC and read aware
(`tables.UtcDateTime`), as FSRS requires.
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, CheckConstraint, Index
from sqlmodel import Field, SQLModel

from bot.store.tables import UTC_TIMESTAMP, one_of

SESSION_KINDS = ("practice", "review")
"""`practice`: tasks the member chose by topic and difficulty; `review`: the due cards."""

CARD_STATES = (1, 2, 3)
"""fsrs.State values (Learning, Review, Relearning), stored as the integers FSRS defines."""


class PracticeSession(SQLModel, table=True):
    """One member's private run of tasks. Its tasks are posts with `post.session_id` set, so
    they keep the attempt limit, hints and solutions of every post; they never score on the
    leaderboard. The session's current task is its latest post."""

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
    last_active_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    """Every click moves it; a session idle for 30 minutes has ended."""
    ended_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)


class ReviewCard(SQLModel, table=True):
    """A member's FSRS card for one task (fsrs.Card's fields as columns). Rated at most once
    per task per local day, except when due: a due card is what the queue asked for."""

    __tablename__ = "review_card"
    __table_args__ = (
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
    timezone: str | None = None
    """The member's IANA zone; None: the server's."""
    last_sent_on: date | None = None
    """The member's local date of the last DM: claimed before sending, so one a day at most,
    across restarts and processes."""
    dms_closed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """Set (and `enabled` cleared) when Discord refused the DM; /review tells the member once,
    then clears it."""
