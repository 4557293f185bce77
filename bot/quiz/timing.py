"""When a daily schedule is due: local wall-clock times to aware UTC instants, DST-safe. A
schedule's day is its *local* date, so "once a day" means per calendar day where members live.
A local time skipped by spring-forward runs at the gap's end; one that occurs twice runs once,
at the first (fold=0).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from bot.clock import as_utc, local_date

_HHMM = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*$")


class InvalidTimeError(ValueError):
    """A schedule time that is not HH:MM on the 24-hour clock."""


def parse_local_time(text: str) -> time:
    """ "09:00", "9:00" or "18:30" → time; anything else raises InvalidTimeError."""
    match = _HHMM.match(text)
    if match is None:
        raise InvalidTimeError(
            f"{text!r} is not a time: use HH:MM on the 24-hour clock, e.g. 09:00 or 18:30"
        )
    hour, minute = int(match.group(1)), int(match.group(2))
    if hour > 23 or minute > 59:
        raise InvalidTimeError(f"{text!r} is not a time of day: hours go 00-23 and minutes 00-59")
    return time(hour, minute)


def format_local_time(at: time) -> str:
    return f"{at.hour:02d}:{at.minute:02d}"


def _exists(local: datetime) -> bool:
    """Whether an aware local datetime survives a round trip through UTC (not in a gap)."""
    back = local.astimezone(UTC).astimezone(local.tzinfo)
    return back.replace(tzinfo=None) == local.replace(tzinfo=None)


def run_instant(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The instant (aware UTC) of the run for local date `day` at local time `at`."""
    local = datetime.combine(day, at, tzinfo=zone)  # fold=0: the first of two readings
    if _exists(local):
        return local.astimezone(UTC)
    # In a gap the two folds land on either side of the transition: bisect the seconds
    # between them for the first with the new offset (offsets change on whole seconds).
    lo = int(local.replace(fold=1).astimezone(UTC).timestamp())
    hi = int(local.astimezone(UTC).timestamp())
    after = datetime.fromtimestamp(hi, UTC).astimezone(zone).utcoffset()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        reading = datetime.fromtimestamp(mid, UTC).astimezone(zone)
        if reading.utcoffset() == after:
            hi = mid
        else:
            lo = mid
    return datetime.fromtimestamp(hi, UTC)


@dataclass(frozen=True, slots=True)
class Slot:
    """One day's run of a schedule: its local date, and when it is due (aware UTC)."""

    local_date: date
    at: datetime


def current_slot(at: time, zone: ZoneInfo, now: datetime) -> Slot:
    """The latest run due at or before `now`."""
    now = as_utc(now)
    return next(slot for slot in _around(at, zone, now, (1, 0, -1, -2)) if slot.at <= now)


def next_slot(at: time, zone: ZoneInfo, now: datetime) -> Slot:
    """The first run due strictly after `now`."""
    now = as_utc(now)
    return next(slot for slot in _around(at, zone, now, (-1, 0, 1, 2)) if slot.at > now)


def _around(at: time, zone: ZoneInfo, now: datetime, offsets: tuple[int, ...]) -> Iterator[Slot]:
    # A run can fall on the next local date (a gap across midnight): look at the neighbours.
    today = local_date(now, zone)
    return (slot_for(today + timedelta(days=offset), at, zone) for offset in offsets)


def slot_for(day: date, at: time, zone: ZoneInfo) -> Slot:
    return Slot(day, run_instant(day, at, zone))


def following(slot: Slot, at: time, zone: ZoneInfo) -> Slot:
    """The run of the next local date: when this run's posts close."""
    return slot_for(slot.local_date + timedelta(days=1), at, zone)


class Due(StrEnum):
    NOT_OWED = "not_owed"
    """The run was due before the schedule existed (or was resumed): nothing to do."""
    POST = "post"
    LATE = "late"
    """Missed by more than the grace window: record it as skipped, do not post."""


def due(slot: Slot, now: datetime, *, active_since: datetime, grace: timedelta) -> Due:
    """What to do about a run nothing was recorded for: nothing before the schedule was
    active (a new schedule would post at once); post up to `grace` late (a restart loses
    nothing); later, skip (a "daily" quiz landing in the evening is worse than none)."""
    if slot.at < active_since:
        return Due.NOT_OWED
    if now - slot.at <= grace:
        return Due.POST
    return Due.LATE


def retry_delay(failures: int, *, base: float = 60.0, cap: float = 1800.0) -> timedelta:
    """Exponential backoff after the n-th consecutive failure: 1, 2, 4 … minutes, ≤ 30."""
    exponent = max(failures - 1, 0)
    return timedelta(seconds=min(cap, base * 2 ** min(exponent, 20)))

