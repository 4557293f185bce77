import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.quiz import timing
from bot.quiz.timing import Due, InvalidTimeError, Slot

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("09:00", time(9)), ("9:05", time(9, 5)), (" 23:59 ", time(23, 59)), ("00:00", time(0))],
)
def test_parse_local_time(text: str, expected: time) -> None:
    assert timing.parse_local_time(text) == expected


@pytest.mark.parametrize("text", ["24:00", "12:60", "9", "9am", "09:00:00", "", "ab:cd", "-1:00"])
def test_parse_local_time_refuses_with_a_clear_message(text: str) -> None:
    with pytest.raises(InvalidTimeError, match=r"HH:MM|hours go 00-23"):
        timing.parse_local_time(text)


@pytest.mark.parametrize(
    ("day", "at", "zone", "utc"),
    [
        # Berlin, the Saturday before spring-forward (CET, +1) and the Monday after (CEST, +2).
        (date(2025, 3, 29), time(9), BERLIN, datetime(2025, 3, 29, 8, tzinfo=UTC)),
        (date(2025, 3, 31), time(9), BERLIN, datetime(2025, 3, 31, 7, tzinfo=UTC)),
        # Spring-forward day itself: 09:00 is ordinary summer time.
        (date(2025, 3, 30), time(9), BERLIN, datetime(2025, 3, 30, 7, tzinfo=UTC)),
        # 02:30 does not exist that day: the first valid instant after it is 03:00 CEST.
        (date(2025, 3, 30), time(2, 30), BERLIN, datetime(2025, 3, 30, 1, tzinfo=UTC)),
        (date(2025, 3, 30), time(2, 0), BERLIN, datetime(2025, 3, 30, 1, tzinfo=UTC)),
        # Fall-back day: 02:30 happens twice; the first (CEST) reading is used.
        (date(2025, 10, 26), time(2, 30), BERLIN, datetime(2025, 10, 26, 0, 30, tzinfo=UTC)),
        (date(2025, 10, 25), time(9), BERLIN, datetime(2025, 10, 25, 7, tzinfo=UTC)),
        (date(2025, 10, 27), time(9), BERLIN, datetime(2025, 10, 27, 8, tzinfo=UTC)),
        # New York: 02:30 is skipped on 9 March 2025 and 01:30 repeats on 2 November.
        (date(2025, 3, 9), time(2, 30), NEW_YORK, datetime(2025, 3, 9, 7, tzinfo=UTC)),
        (date(2025, 3, 8), time(2, 30), NEW_YORK, datetime(2025, 3, 8, 7, 30, tzinfo=UTC)),
        (date(2025, 3, 10), time(2, 30), NEW_YORK, datetime(2025, 3, 10, 6, 30, tzinfo=UTC)),
        (date(2025, 11, 2), time(1, 30), NEW_YORK, datetime(2025, 11, 2, 5, 30, tzinfo=UTC)),
        (date(2025, 11, 3), time(1, 30), NEW_YORK, datetime(2025, 11, 3, 6, 30, tzinfo=UTC)),
    ],
)
def test_run_instant_on_both_sides_of_dst(
    day: date, at: time, zone: ZoneInfo, utc: datetime
) -> None:
    assert timing.run_instant(day, at, zone) == utc


@pytest.mark.parametrize(
    ("zone", "at", "start"),
    [
        (BERLIN, time(2, 30), date(2025, 3, 25)),
        (BERLIN, time(2, 30), date(2025, 10, 21)),
        (NEW_YORK, time(1, 30), date(2025, 10, 29)),
        (NEW_YORK, time(2, 30), date(2025, 3, 5)),
        (BERLIN, time(9, 0), date(2025, 3, 25)),
    ],
)
def test_walking_minute_by_minute_gives_one_run_per_local_day(
    zone: ZoneInfo, at: time, start: date
) -> None:
    """Across a DST change, every local day has exactly one due instant, in order."""
    now = datetime.combine(start, time(0), tzinfo=UTC)
    seen: list[Slot] = []
    while now < datetime.combine(start + timedelta(days=9), time(0), tzinfo=UTC):
        slot = timing.current_slot(at, zone, now)
        if not seen or seen[-1] != slot:
            seen.append(slot)
        assert slot.at <= now < timing.next_slot(at, zone, now).at
        now += timedelta(minutes=10)
    days = [s.local_date for s in seen]
    assert days == sorted(set(days))
    assert all(b - a == timedelta(days=1) for a, b in itertools.pairwise(days))


def test_instants_are_aware_utc_and_a_naive_now_means_utc() -> None:
    instant = timing.run_instant(date(2025, 3, 30), time(2, 30), BERLIN)
    assert instant.tzinfo is UTC
    naive = timing.next_slot(time(9), BERLIN, datetime(2025, 3, 29, 7, 59))
    assert naive == timing.next_slot(time(9), BERLIN, datetime(2025, 3, 29, 7, 59, tzinfo=UTC))


def test_next_and_current_slot_on_the_repeated_hour() -> None:
    at = time(2, 30)
    first = datetime(2025, 10, 26, 0, 30, tzinfo=UTC)  # 02:30 CEST
    second = datetime(2025, 10, 26, 1, 30, tzinfo=UTC)  # 02:30 CET, the same wall time again
    assert timing.next_slot(at, BERLIN, first - timedelta(seconds=1)) == Slot(
        date(2025, 10, 26), first
    )
    assert timing.current_slot(at, BERLIN, second) == Slot(date(2025, 10, 26), first)
    assert timing.next_slot(at, BERLIN, second).local_date == date(2025, 10, 27)


def test_following_slot_is_when_a_post_closes() -> None:
    slot = timing.slot_for(date(2025, 3, 29), time(9), BERLIN)
    closes = timing.following(slot, time(9), BERLIN)
    # 23 hours later: the night lost an hour.
    assert closes.at - slot.at == timedelta(hours=23)


def test_due_respects_active_since_and_the_grace_window() -> None:
    def utc(*fields: int) -> datetime:
        return datetime(*fields, tzinfo=UTC)  # type: ignore[arg-type, misc]

    slot = Slot(date(2025, 3, 1), utc(2025, 3, 1, 8))
    grace = timedelta(hours=2)
    before = utc(2025, 2, 1)
    assert timing.due(slot, utc(2025, 3, 1, 8), active_since=before, grace=grace) is Due.POST
    assert timing.due(slot, utc(2025, 3, 1, 10), active_since=before, grace=grace) is Due.POST
    late = utc(2025, 3, 1, 10, 0, 1)
    assert timing.due(slot, late, active_since=before, grace=grace) is Due.LATE
    added_after = utc(2025, 3, 1, 8, 5)
    assert (
        timing.due(slot, utc(2025, 3, 1, 8, 6), active_since=added_after, grace=grace)
        is Due.NOT_OWED
    )


def test_a_run_due_the_moment_the_schedule_starts_is_owed() -> None:
    """Only a run due *before* the schedule existed (or was resumed) is not owed: one added at
    09:00:00 sharp posts its 09:00 run."""
    at = datetime(2025, 3, 1, 8, tzinfo=UTC)
    slot = Slot(date(2025, 3, 1), at)
    grace = timedelta(hours=2)
    assert timing.due(slot, at, active_since=at, grace=grace) is Due.POST
    later = at + timedelta(microseconds=1)
    assert timing.due(slot, later, active_since=later, grace=grace) is Due.NOT_OWED


def test_retry_delay_backs_off_and_caps() -> None:
    delays = [timing.retry_delay(n).total_seconds() for n in range(1, 10)]
    assert delays[:4] == [60, 120, 240, 480]
    assert max(delays) == 1800
    assert delays == sorted(delays)

