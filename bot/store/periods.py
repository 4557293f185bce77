"""Leaderboard periods: a moment's local day and week boundaries, as aware UTC moments."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.clock import Period, day_start, local_date, week_start


def day_bounds(now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[start, end) of the local day containing `now`."""
    today = local_date(now, tz)
    return day_start(today, tz), day_start(today + timedelta(days=1), tz)


def week_bounds(now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[start, end) of the local ISO week (Monday 00:00) containing `now`."""
    monday = week_start(local_date(now, tz))
    return day_start(monday, tz), day_start(monday + timedelta(days=7), tz)


def period_bounds(
    period: Period | str, tz: ZoneInfo, now: datetime
) -> tuple[datetime | None, datetime | None]:
    """[start, end) of a leaderboard period; (None, None) for all time."""
    match Period(period):
        case Period.TODAY:
            return day_bounds(now, tz)
        case Period.WEEK:
            return week_bounds(now, tz)
        case Period.ALL:
            return None, None


def period_key(period: Period | str, tz: ZoneInfo, now: datetime) -> tuple[str, date] | None:
    """The stored bucket of a period: ("day", local date), ("week", local Monday) or None
    (all time); a moment is in `now`'s bucket exactly when within `period_bounds`."""
    match Period(period):
        case Period.TODAY:
            return "day", local_date(now, tz)
        case Period.WEEK:
            return "week", week_start(local_date(now, tz))
        case Period.ALL:
            return None
