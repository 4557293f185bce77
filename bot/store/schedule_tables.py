"""Tables of the daily quizzes: the schedules and one row per (schedule, local day) run.

They live on the shared `SQLModel.metadata` (importing this module registers them); the
baseline migration and `make_engine` create them with the rest. Timestamps are stored naive
UTC and read aware (`tables.UtcDateTime`).
"""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from bot.quiz.rules import MAX_TASKS_PER_RUN
from bot.quiz.tasks import Difficulty
from bot.store.tables import UTC_TIMESTAMP, one_of

RUN_STATUSES = ("claimed", "posted", "skipped", "failed")
"""A run's life: `claimed` until every post is out (bot/schedule/runner.py), then one of the
other three for good."""


class Schedule(SQLModel, table=True):
    """A moderator's "post N tasks here every day at HH:MM in zone Z".

    Removing a schedule only stamps `removed_at`: its runs and posts keep pointing at it, so
    the posts it made still close and keep their history.
    """

    __tablename__ = "schedule"
    __table_args__ = (
        CheckConstraint(f"count BETWEEN 1 AND {MAX_TASKS_PER_RUN}", name="ck_schedule_count"),
        CheckConstraint(
            f"difficulty IS NULL OR {one_of('difficulty', (d.value for d in Difficulty))}",
            name="ck_schedule_difficulty",
        ),
        Index("ix_schedule_guild", "guild_id", "removed_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    guild_id: int = Field(sa_type=BigInteger)
    channel_id: int = Field(sa_type=BigInteger)
    local_time: str
    """"HH:MM" on the 24-hour clock, in `timezone`."""
    timezone: str
    """An IANA zone name, fixed when the schedule is added."""
    topic: str | None = None
    """None: any topic."""
    difficulty: str | None = None
    """None: any difficulty."""
    count: int = 1
    paused: bool = False
    open_thread: bool = False
    created_by: int = Field(sa_type=BigInteger)
    created_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    active_since: datetime = Field(sa_type=UTC_TIMESTAMP)
    """Runs due before this (creation, or the last resume) are not owed."""
    removed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    last_run_local_date: date | None = None
    last_result: str | None = None
    last_error: str | None = None
    last_error_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    failures: int = 0
    """Consecutive failed attempts; drives the retry backoff."""
    retry_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """No attempt before this instant (backoff after a failure)."""


class ScheduleRun(SQLModel, table=True):
    """The claim on one day of one schedule. The unique key is what makes a day post once:
    the row is committed before anything is sent, and a second claim for the same local date
    inserts nothing. See bot/schedule/runner.py for the whole protocol."""

    __tablename__ = "schedule_run"
    __table_args__ = (
        UniqueConstraint("schedule_id", "local_date", name="uq_schedule_run_day"),
        CheckConstraint(one_of("status", RUN_STATUSES), name="ck_schedule_run_status"),
        Index("ix_schedule_run_open", "closed_at", "closes_at"),
        Index("ix_schedule_run_status", "status", "schedule_id"),
    )

    id: int | None = Field(default=None, primary_key=True)
    schedule_id: int = Field(foreign_key="schedule.id")
    local_date: date
    status: str = "claimed"
    scheduled_for: datetime = Field(sa_type=UTC_TIMESTAMP)
    """The run's due instant."""
    closes_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """The next day's due instant: when this day's posts close."""
    post_ids: str = ""
    """The posts of the daily set, "12,13": created with the claim, before any send."""
    claimed_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    posted_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    closed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    """When the posts were closed and their messages edited with the result."""
    error: str | None = None
