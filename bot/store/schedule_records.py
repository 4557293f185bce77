"""Values the schedules store hands out: frozen, ORM-free, so they can cross threads."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
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
    changed: bool  # False: it was so already, and nothing was written


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
    """How often, and when last, a task was posted in a server."""

    times: int
    last_at: datetime


@dataclass(frozen=True, slots=True)
class AttemptInfo:
    post_id: int
    user_id: int
    attempt_no: int
    picks: tuple[str, ...]
    correct: bool
    created_at: datetime


Chooser = Callable[[Mapping[str, TaskPosts]], Sequence[Task]]
"""Picks the day's tasks given the server's posting history (keyed by task id)."""


# A row of the whole table: its columns are the fields.
def schedule_info(row: Row[Any]) -> ScheduleInfo:
    return ScheduleInfo(**row._mapping)


def run_info(row: Row[Any]) -> RunInfo:
    post_ids = tuple(int(p) for p in row.post_ids.split(",") if p)
    return RunInfo(**{**row._mapping, "post_ids": post_ids})
