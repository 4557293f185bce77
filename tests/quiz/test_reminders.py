"""The review reminder's rule (bot/quiz/reminders.py): which hour a member's reminder goes out
in, DST-safe, and what the DM says. The pass that sends it: tests/schedule/test_reminders.py."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from bot.quiz.reminders import next_reminder, open_slot

BERLIN = ZoneInfo("Europe/Berlin")


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def test_the_next_reminder_is_the_next_local_hour() -> None:
    now = utc(2025, 6, 2, 12, 0)  # 14:00 in Berlin (CEST)
    upcoming = next_reminder(7, BERLIN, now, None)
    assert (upcoming.at, upcoming.current) == (utc(2025, 6, 3, 5, 0), False)
    assert upcoming.until == utc(2025, 6, 3, 6, 0)
    # Inside the hour, with the day's DM still owed: it can come at once.
    inside = next_reminder(14, BERLIN, now, date(2025, 6, 1))
    assert (inside.at, inside.until, inside.current) == (
        utc(2025, 6, 2, 12, 0), utc(2025, 6, 2, 13, 0), True
    )
    # The day's DM went out already: tomorrow.
    assert next_reminder(14, BERLIN, now, date(2025, 6, 2)).at == utc(2025, 6, 3, 12, 0)
    # ... also when the member moves the hour to later that day: the day had its DM.
    assert next_reminder(20, BERLIN, now, date(2025, 6, 2)).at == utc(2025, 6, 3, 18, 0)


def test_a_spring_forward_gap_hour_starts_at_the_end_of_the_gap() -> None:
    # 30 Mar 2025, Berlin: 02:00 CET jumps to 03:00 CEST (01:00 UTC); 02:xx never happens.
    before = utc(2025, 3, 29, 23, 0)
    assert next_reminder(2, BERLIN, before, None).at == utc(2025, 3, 30, 1, 0)
    slot = open_slot(2, BERLIN, utc(2025, 3, 30, 1, 30))
    assert slot is not None and slot.local_date == date(2025, 3, 30)
    assert open_slot(2, BERLIN, utc(2025, 3, 30, 2, 0)) is None  # 04:00 CEST: the hour is over


def test_a_fall_back_hour_counts_from_its_first_occurrence_only() -> None:
    # 26 Oct 2025, Berlin: 02:00-03:00 happens twice, first CEST (00:00 UTC), then CET.
    first = open_slot(2, BERLIN, utc(2025, 10, 26, 0, 30))
    assert first is not None and first.at == utc(2025, 10, 26, 0, 0)
    assert open_slot(2, BERLIN, utc(2025, 10, 26, 1, 30)) is None  # the repeated 02:30
    assert next_reminder(2, BERLIN, utc(2025, 10, 26, 1, 30), None).at == utc(2025, 10, 27, 1, 0)


def test_a_last_day_later_than_the_zones_today_counts_as_today() -> None:
    # Only a clock that ran ahead (the host's, set right since) stamps a day after today. It
    # counts as today: no second DM today, the next tomorrow, not when the real date catches up.
    now = utc(2025, 6, 2, 12, 0)  # 14:00 on 2 June in Berlin
    assert next_reminder(7, BERLIN, now, date(2026, 6, 4)).at == utc(2025, 6, 3, 5, 0)
    later_today = next_reminder(20, BERLIN, now, date(2025, 6, 3))
    assert (later_today.at, later_today.current) == (utc(2025, 6, 3, 18, 0), False)
