"""Day and week boundaries in local time, as aware UTC moments."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.clock import Period, day_start, local_date
from bot.store.periods import day_bounds, period_bounds, week_bounds

BERLIN = ZoneInfo("Europe/Berlin")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")


def test_local_date_of_a_late_evening() -> None:
    late = datetime(2024, 5, 8, 6, 30)  # naive UTC
    assert local_date(late, LOS_ANGELES) == date(2024, 5, 7)
    assert local_date(late, BERLIN) == date(2024, 5, 8)


def test_day_bounds_in_berlin() -> None:
    start, end = day_bounds(datetime(2024, 5, 7, 22, 30, tzinfo=UTC), BERLIN)  # 00:30 local
    assert (start, end) == (
        datetime(2024, 5, 7, 22, tzinfo=UTC),
        datetime(2024, 5, 8, 22, tzinfo=UTC),
    )
    assert start.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    ("day", "hours"),
    [(date(2024, 3, 31), 23), (date(2024, 10, 27), 25), (date(2024, 5, 8), 24)],
)
def test_dst_days_have_their_real_length(day: date, hours: int) -> None:
    assert day_start(day + timedelta(days=1), BERLIN) - day_start(day, BERLIN) == timedelta(
        hours=hours
    )


def test_week_starts_on_monday_in_los_angeles() -> None:
    sunday_night = datetime(2024, 5, 13, 6, 30, tzinfo=UTC)  # Sunday 23:30 in LA
    assert week_bounds(sunday_night, LOS_ANGELES) == (
        datetime(2024, 5, 6, 7, tzinfo=UTC),
        datetime(2024, 5, 13, 7, tzinfo=UTC),
    )
    assert week_bounds(sunday_night, BERLIN)[0] == datetime(2024, 5, 12, 22, tzinfo=UTC)


def test_period_bounds() -> None:
    now = datetime(2024, 5, 8, 12, tzinfo=UTC)
    assert period_bounds(Period.ALL, BERLIN, now) == (None, None)
    assert period_bounds("today", BERLIN, now) == day_bounds(now, BERLIN)
    assert period_bounds("week", BERLIN, now) == week_bounds(now, BERLIN)
    with pytest.raises(ValueError):
        period_bounds("month", BERLIN, now)
