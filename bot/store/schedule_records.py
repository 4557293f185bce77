"""Values the schedules store hands out: frozen, ORM-free, so they can cross threads.
Timestamps in them are aware UTC, as the timestamp columns read (`tables.UtcDateTime`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Row

from bot.quiz.tasks import Task


@dataclass(frozen=True, slots=True)
class ScheduleInfo:
    id: int
    guild_id: int
    channel_id: int
    local_time: str
    timezone: str
    topic: str | None
    difficulty: str | None
    count: int
    paused: bool
    open_thread: bool
    created_by: int
    created_at: datetime
    active_since: datetime
    removed_at: datetime | None = None
    last_run_local_date: date | None = None
    last_result: str | None = None
    last_error: str | None = None
    last_error_at: datetime | None = None
    failures: int = 0
    retry_at: datetime | None = None

    @property
    def at(self) -> time:
        return time.fromisoformat(self.local_time)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


@dataclass(frozen=True, slots=True)
class PauseChange:
    """What /schedule pause or resume did (`ScheduleStore.set_paused`)."""

    schedule: ScheduleInfo
    changed: bool
    """False: it was paused (or running) already, and nothing was written."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    id: int
    schedule_id: int
    local_date: date
    status: str
    scheduled_for: datetime
    closes_at: datetime | None
    post_ids: tuple[int, ...]
    claimed_at: datetime
    posted_at: datetime | None = None
    closed_at: datetime | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class TaskPosts:
    """How often, and when last, a task was posted in a server (rotation input)."""

    times: int
    last_at: datetime


@dataclass(frozen=True, slots=True)
class AttemptInfo:
    """One stored attempt (summary input)."""

    post_id: int
    user_id: int
    attempt_no: int
    picks: tuple[str, ...]
    correct: bool
    created_at: datetime


Chooser = Callable[[Mapping[str, TaskPosts]], Sequence[Task]]
"""Picks the day's tasks given the server's posting history (keyed by task id)."""


def schedule_info(row: Row[Any]) -> ScheduleInfo:
    # Any: each field has its own type, which one dict's value type cannot say.
    values: dict[str, Any] = {f.name: getattr(row, f.name) for f in fields(ScheduleInfo)}
    return ScheduleInfo(**values)


def run_info(row: Row[Any]) -> RunInfo:
    return RunInfo(
        id=row.id,
        schedule_id=row.schedule_id,
        local_date=row.local_date,
        status=row.status,
        scheduled_for=row.scheduled_for,
        closes_at=row.closes_at,
        post_ids=tuple(int(p) for p in row.post_ids.split(",") if p),
        claimed_at=row.claimed_at,
        posted_at=row.posted_at,
        closed_at=row.closed_at,
        error=row.error,
    )
