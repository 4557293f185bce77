"""Tables of the daily quizzes: the schedules and one row per (schedule, local day) run
(importing this module registers them)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import BigInteger, CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from bot.quiz.rules import MAX_TASKS_PER_RUN
from bot.quiz.tasks import Difficulty
from bot.store.dialect import UTC_TIMESTAMP
from bot.store.tables import one_of

RUN_STATUSES = ("claimed", "posted", "skipped", "failed")  # claimed until every post is out


class Schedule(SQLModel, table=True):
    """ "Post N tasks here every day at HH:MM in zone Z". Removing one stamps `removed_at`, so
    its posts still close and keep their history."""

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
    local_time: str  # "HH:MM" on the 24-hour clock, in `timezone` (IANA)
    timezone: str
    topic: str | None = None  # None: any
    difficulty: str | None = None  # None: any
    count: int = 1
    paused: bool = False
    open_thread: bool = False
    created_by: int = Field(sa_type=BigInteger)
    created_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    active_since: datetime = Field(sa_type=UTC_TIMESTAMP)  # runs due before are not owed
    removed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    last_run_local_date: date | None = None
    last_result: str | None = None
    last_error: str | None = None
    last_error_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    failures: int = 0  # consecutive; drives the retry backoff
    retry_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)  # no attempt before


class ScheduleRun(SQLModel, table=True):
    """The claim on one day of one schedule: committed before anything is sent, and unique, so
    a day posts once (bot/schedule/runner.py has the protocol)."""

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
    closes_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)  # the next day's due
    post_ids: str = ""  # "12,13": created with the claim, before any send
    claimed_at: datetime = Field(sa_type=UTC_TIMESTAMP)
    posted_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)
    closed_at: datetime | None = Field(default=None, sa_type=UTC_TIMESTAMP)  # result shown
    error: str | None = None
