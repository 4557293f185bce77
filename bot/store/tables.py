"""The SQLModel tables. Timestamps are `dialect.UTC_TIMESTAMP` (stored naive UTC, read aware);
Discord snowflakes are BigInteger.

Every table lives on the one shared `SQLModel.metadata` (`migrate.target_metadata` imports
every module that adds tables). A change here needs its Alembic revision in
`bot/store/migrations/versions/`, or existing databases keep the old schema.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Table,
    Text,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from bot.quiz.rules import PostPolicy
from bot.quiz.tasks import MAX_ATTEMPTS, MAX_HINTS
from bot.store.dialect import UTC_TIMESTAMP

POST_POLICIES = tuple(policy.value for policy in PostPolicy)
"""The values `guild_config.post_policy` may hold: the rule's enum is their one source."""
REVEAL_KINDS = ("hint", "solution")
"""What a member can reveal of a post, one `reveal` row each."""
PERIOD_KINDS = ("day", "week")
"""The buckets `member_period` sums over (bot/store/periods.py `period_key`)."""


def one_of(column: str, values: Iterable[str]) -> str:
    """The CHECK text allowing only `values`: "kind IN ('hint', 'solution')". The wording is
    what 0.1.0 created, so the schema stays the same byte for byte."""
    quoted = ", ".join(f"'{value}'" for value in values)
    return f"{column} IN ({quoted})"


def table_of(model: type[SQLModel]) -> Table:
    """The Core table of a `table=True` model, for the store's SQLAlchemy Core queries.
    SQLModel sets `__table__` when it creates the class, so type checkers cannot see it."""
    table = getattr(model, "__table__", None)
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not a table=True model")
    return table


class Member(SQLModel, table=True):
    """A member as last seen in a server; the name is refreshed on every interaction."""

    __tablename__ = "member"

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    name: str
    first_seen: datetime = Field(sa_type=UTC_TIMESTAMP)


class GuildConfig(SQLModel, table=True):
    __tablename__ = "guild_config"
    __table_args__ = (
        CheckConstraint(one_of("post_policy", POST_POLICIES), name="ck_guild_config_policy"),
        CheckConstraint("cooldown_seconds >= 0", name="ck_guild_config_cooldown"),
    )

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    timezone: str | None = None
    """An IANA zone name; None means UTC."""
    mod_role_id: int | None = Field(default=None, sa_type=BigInteger)
    post_policy: str = "anyone"
    cooldown_seconds: int = 30
    language: str | None = None
    """The locale of the server's public messages (`/config language`); None: Discord's
    preferred locale of the server, else English. Not checked here: a locale is a catalog."""


class TaskVersion(SQLModel, table=True):
    """A task exactly as it was posted: its canonical JSON (bot/quiz/task_codec.py), stored
    once per distinct content. Rows are never changed or deleted: a post's version is what it
    grades with and shows, whatever later happens to the task in the banks."""

    __tablename__ = "task_version"
    __table_args__ = (UniqueConstraint("hash", name="uq_task_version_hash"),)

    id: int | None = Field(default=None, primary_key=True)
    task_id: str
    hash: str
    """sha256 of `content`, in hex: the version's name (`task_codec.task_hash`)."""
    content: str = Field(sa_type=Text)
    created_at: datetime = Field(sa_type=UTC_TIMESTAMP)


class Post(SQLModel, table=True):
    """One posted instance of a task: members answer posts, not tasks."""

    __tablename__ = "post"
    __table_args__ = (
        Index("ix_post_channel_time", "guild_id", "channel_id", "posted_at"),
        Index("ix_post_guild_time", "guild_id", "posted_at"),
        # A task's public posts in a server: a member's points and misses count once per task
        # (`answers.progress_with_task`, `answers.unfinished_public_posts`); `session_id`
        # last, so a seek skips practice posts.
        Index("ix_post_guild_task", "guild_id", "task_id", "session_id"),
    )

    # Plain INTEGER (not BigInteger) so SQLite makes it the rowid alias.
    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    channel_id: int = Field(sa_type=BigInteger)
    message_id: int | None = Field(default=None, sa_type=BigInteger)
    task_id: str
    posted_by: int | None = Field(default=None, sa_type=BigInteger)
    """None when a schedule posted it, or its poster deleted their data (`member_data`)."""
    posted_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    # The foreign key to the schedule table is added by the schedules work.
    schedule_id: int | None = Field(default=None, index=True)
    closes_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    closed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    task_version_id: int | None = Field(
        default=None,
        sa_column_args=[ForeignKey("task_version.id", name="fk_post_task_version")],
    )
    """The task as posted (`task_version`); None only for posts from before versions (0.1.0)
    whose task was not loaded when the service last pinned them (`pin_unversioned`)."""
    session_id: int | None = Field(default=None, index=True)
    """The private practice or review session (`practice_session`) the post belongs to; None
    for a post in a channel. No REFERENCES: SQLite can drop the column on a downgrade only
    without one; the store writes it with the session it created or read in the same unit."""


class Attempt(SQLModel, table=True):
    """One graded answer. The constraints make a fourth attempt impossible to store, whatever
    the application code does, so simultaneous clicks cannot exceed the limit."""

    __tablename__ = "attempt"
    __table_args__ = (
        CheckConstraint(f"attempt_no BETWEEN 1 AND {MAX_ATTEMPTS}", name="ck_attempt_no"),
        UniqueConstraint("post_id", "user_id", "attempt_no", name="uq_attempt_member_no"),
        Index("ix_attempt_member_time", "guild_id", "user_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    post_id: int = Field(foreign_key="post.id")
    guild_id: int = Field(sa_type=BigInteger)
    user_id: int = Field(sa_type=BigInteger)
    attempt_no: int
    picks: str
    """Option labels joined by ","."""
    correct: bool
    created_at: datetime = Field(sa_type=UTC_TIMESTAMP)


class Reveal(SQLModel, table=True):
    __tablename__ = "reveal"
    __table_args__ = (CheckConstraint(one_of("kind", REVEAL_KINDS), name="ck_reveal_kind"),)

    post_id: int = Field(foreign_key="post.id", primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    kind: str = Field(primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    created_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    hints: int | None = Field(
        default=None,
        # A column CHECK (not the table's), as 0007_hint_ladder adds it: SQLite can drop the
        # column on a downgrade only then.
        sa_column_args=[
            CheckConstraint(f"hints BETWEEN 1 AND {MAX_HINTS}", name="ck_reveal_hints")
        ],
    )
    """A hint row's: how many of the task's hints (its ladder, from the first) the member saw
    on the post, raised as they see more; None on a solution row (and read as 1 on a hint row
    of before 0007_hint_ladder, which the upgrade sets)."""


class Score(SQLModel, table=True):
    """The result of a finished post: exactly one row per member and post (the primary key)."""

    __tablename__ = "score"
    __table_args__ = (
        # Both indexes carry the aggregated columns so leaderboards are answered from the
        # index alone (no table lookups): by period, and all-time grouped by member. `post_id`
        # (since 0004_learning) tells a private practice post's score apart, which
        # leaderboards leave out (`posts.public_scores`).
        Index(
            "ix_score_guild_time",
            "guild_id",
            "finished_at",
            "user_id",
            "points",
            "solved",
            "post_id",
        ),
        Index(
            "ix_score_guild_member",
            "guild_id",
            "user_id",
            "finished_at",
            "points",
            "solved",
            "post_id",
        ),
    )

    post_id: int = Field(foreign_key="post.id", primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    points: int
    solved: bool
    first_try: bool
    wrong_tries: int
    hint_seen: bool
    forfeited: bool
    finished_at: datetime = Field(sa_type=UTC_TIMESTAMP)


# ---------------------------------------------------------------------------------------------
# Leaderboard totals: `score` summed per member, kept up to date by the writes that insert
# scores (in the same transaction), so a leaderboard reads ten index entries instead of
# aggregating every score. `score` stays the truth: the store can rebuild these from it.
# ---------------------------------------------------------------------------------------------


class BoardState(SQLModel, table=True):
    """A server whose totals are maintained, and the zone its days and weeks are local to.

    No row: the server's totals are not maintained (yet) and leaderboards aggregate `score`.
    With a row, `member_total` and `member_period` hold exactly the sums of its scores.
    """

    __tablename__ = "board_state"

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    timezone: str
    """The IANA zone of `member_period.period_start` (not None: "UTC" is spelled out)."""
    periods_from: date | None = None
    """`member_period` is complete for days and weeks starting on or after this local date
    (a Monday); None: for all of them. Re-zoning rebuilds only recent weeks (the ones
    leaderboards show), so it holds the write lock briefly however long the history."""
    built_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    """Wall-clock time of the last rebuild; bounds how often a reader may re-zone."""


class MemberTotal(SQLModel, table=True):
    """A member's all-time sums. Members whose scores are all 0 points and unsolved have no
    row; members with 0 points (a row may exist) are not ranked."""

    __tablename__ = "member_total"
    __table_args__ = {"sqlite_with_rowid": False}

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    points: int
    solved: int
    reached_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """The latest finish that earned points; None while `points` is 0."""


class MemberPeriod(SQLModel, table=True):
    """A member's sums over one local day or ISO week (in `board_state.timezone`)."""

    __tablename__ = "member_period"
    __table_args__ = (
        CheckConstraint(one_of("kind", PERIOD_KINDS), name="ck_member_period_kind"),
        {"sqlite_with_rowid": False},
    )

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    kind: str = Field(primary_key=True)
    period_start: date = Field(primary_key=True)
    """The local date of the day, or of the week's Monday."""
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    points: int
    solved: int
    reached_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)


# The leaderboard order (points desc, solved desc, reached_at, user_id) as an index, so the
# top N is the first N entries and a member's rank is a range count. Declared here because
# DESC columns need the Column objects.
_total = table_of(MemberTotal)
_period = table_of(MemberPeriod)
Index(
    "ix_member_total_rank",
    _total.c.guild_id,
    _total.c.points.desc(),
    _total.c.solved.desc(),
    _total.c.reached_at,
    _total.c.user_id,
)
Index(
    "ix_member_period_rank",
    _period.c.guild_id,
    _period.c.kind,
    _period.c.period_start,
    _period.c.points.desc(),
    _period.c.solved.desc(),
    _period.c.reached_at,
    _period.c.user_id,
)


class ServerBank(SQLModel, table=True):
    """A bank a moderator uploaded with `/bank upload`: served in its server only.

    `yaml` is the bank in our own format (content/README.md), whatever format was uploaded:
    what `/bank download` gives back, and what the tasks are rebuilt from when the bot starts.
    Uploading a bank of the same name replaces the row (UNIQUE per server)."""

    __tablename__ = "server_bank"
    __table_args__ = (UniqueConstraint("guild_id", "name", name="uq_server_bank_name"),)

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    name: str
    yaml: str = Field(sa_type=Text)
    task_count: int
    uploaded_by: int = Field(sa_type=BigInteger)
    uploaded_at: datetime = Field(sa_type=UTC_TIMESTAMP)


class GuildWelcome(SQLModel, table=True):
    """A server the bot has welcomed: one row, written as the welcome is decided, so it is
    never sent twice (not on a restart, nor when the bot is added back)."""

    __tablename__ = "guild_welcome"

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    welcomed_at: datetime = Field(sa_type=UTC_TIMESTAMP)


class TaskRating(SQLModel, table=True):
    """A task's Elo difficulty in a server, from members' first tries on its channel posts
    (`bot.quiz.ratings`); written in the answer's write unit (`store/ratings.py`)."""

    __tablename__ = "task_rating"
    __table_args__ = {"sqlite_with_rowid": False}

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    task_id: str = Field(primary_key=True)
    value: float  # logits: higher is harder
    answers: int  # first tries it has learnt from


class MemberRating(SQLModel, table=True):
    """A member's Elo skill in a server, from the same first tries as `TaskRating`."""

    __tablename__ = "member_rating"
    __table_args__ = {"sqlite_with_rowid": False}

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    user_id: int = Field(sa_type=BigInteger, primary_key=True)
    value: float  # logits: higher is stronger
    answers: int
