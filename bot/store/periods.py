"""Time in the store's form: naive UTC. The one place it converts to and from the aware UTC
datetimes everything above the store uses, and computes day and week boundaries.

Every boundary is computed in local time (where "today" means something to people, see
bot.clock) and converted to the storage form before it reaches a query. Pure functions.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot import clock
from bot.clock import Period, local_date, week_start


def to_utc_naive(moment: datetime) -> datetime:
    """The storage form of a timestamp. A naive input is taken to be UTC already."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone(UTC).replace(tzinfo=None)


def from_utc_naive(moment: datetime) -> datetime:
    """A stored timestamp as an aware UTC datetime, safe for `.timestamp()` and formatting."""
    return moment.replace(tzinfo=UTC)


def aware(moment: datetime | None) -> datetime | None:
    """`from_utc_naive` for a column that may be NULL."""
    return None if moment is None else from_utc_naive(moment)


def day_start(day: date, tz: ZoneInfo) -> datetime:
    """The first instant of a local day (bot.clock.day_start), in the naive storage form."""
    return to_utc_naive(clock.day_start(day, tz))


def day_bounds(now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[start, end) of the local day containing `now`, in naive UTC."""
    today = local_date(now, tz)
    return day_start(today, tz), day_start(today + timedelta(days=1), tz)


def week_bounds(now: datetime, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[start, end) of the local ISO week (Monday 00:00) containing `now`, in naive UTC."""
    monday = week_start(local_date(now, tz))
    return day_start(monday, tz), day_start(monday + timedelta(days=7), tz)


def period_bounds(
    period: Period | str, tz: ZoneInfo, now: datetime
) -> tuple[datetime | None, datetime | None]:
    """[start, end) of a leaderboard period in naive UTC; (None, None) for all time."""
    match Period(period):
        case Period.TODAY:
            return day_bounds(now, tz)
        case Period.WEEK:
            return week_bounds(now, tz)
        case Period.ALL:
            return None, None


def period_key(period: Period | str, tz: ZoneInfo, now: datetime) -> tuple[str, date] | None:
    """The stored bucket of a leaderboard period: ("day", local date) or ("week", local
    Monday); None for all time. Agrees with `period_bounds`: a moment is in the bucket of
    `now` exactly when it is within `period_bounds(period, tz, now)`."""
    match Period(period):
        case Period.TODAY:
            return "day", local_date(now, tz)
        case Period.WEEK:
            return "week", week_start(local_date(now, tz))
        case Period.ALL:
            return None
