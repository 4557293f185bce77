"""Time, decided once: aware UTC moments, local days and weeks, Discord timestamps. Everything
above the store works with aware UTC datetimes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from functools import partial
from typing import TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Clock = Callable[[], datetime]
"""Returns the current aware UTC moment; injected so tests can control time."""


class Period(StrEnum):
    """A leaderboard period. Days and weeks are local to the server's zone."""

    TODAY = "today"
    WEEK = "week"
    """The ISO week: from Monday 00:00 local time."""
    ALL = "all"

    @property
    def label(self) -> str:
        # Not `title`: that would hide str.title, which every str member must keep.
        return _PERIOD_TITLES[self]


_PERIOD_TITLES = {Period.TODAY: "today", Period.WEEK: "this week", Period.ALL: "all time"}


Default = TypeVar("Default")


def load_zone(name: str) -> ZoneInfo | None:
    """The IANA zone `name`, else None (tzdata opens it as a file: `Europe` raises OSError)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def zone_or(name: str | None, default: Default) -> ZoneInfo | Default:
    """The IANA zone `name`, else `default`: none set, or one tzdata no longer knows."""
    zone = load_zone(name) if name else None
    return default if zone is None else zone


utcnow: Clock = partial(datetime.now, UTC)
"""The default clock: a partial of the builtin, so a click runs no Python frame of ours for it."""


def as_utc(moment: datetime) -> datetime:
    """An aware UTC datetime. A naive input is taken to be UTC already (the storage form)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def local_date(moment: datetime, zone: ZoneInfo) -> date:
    """The calendar date in `zone` of a moment (naive means UTC)."""
    return as_utc(moment).astimezone(zone).date()


def day_start(day: date, zone: ZoneInfo) -> datetime:
    """The first instant of a local day, aware UTC: built from the date, so DST days are right."""
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def week_start(day: date) -> date:
    """The Monday of the ISO week containing `day`."""
    return day - timedelta(days=day.weekday())


def discord_timestamp(moment: datetime, style: str = "f") -> str:
    """Discord's <t:…> markup: every reader sees the moment in their own zone."""
    return f"<t:{int(as_utc(moment).timestamp())}:{style}>"
