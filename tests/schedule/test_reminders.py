"""Review reminders against a controllable clock, a recording DM sender and a real database file.

The pass runs on the daily-quiz Scheduler, which is driven the way its loop drives it: a tick,
then the clock jumps to the wake-up time the tick asked for (`run_until`). A "process" is a
QuizService + Scheduler + Reminders on its own engine; restarting means opening another on the
same file.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import speaking
from bot.quiz.errors import StoreAction
from bot.quiz.reminders import DMS_CLOSED_NOTICE
from bot.quiz.tasks import Catalog
from bot.schedule.reminders import DmFailedError, DmsClosedError, Reminders, reminder_text
from bot.schedule.runner import Scheduler
from bot.service import QuizService
from bot.store import Store, make_engine
from bot.store import reminders as reminders_unit
from bot.store.answers import save_cards
from bot.store.review_cards import StoredCard
from bot.store.server_banks import BankStore
from tests.factories import Clock, bank_yaml, choice
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo
from tests.reminder_reads import reminder_on
from tests.schedule.test_runner import RecordingPoster

GUILD = 1
ALICE, BOB = 11, 22
BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
TASKS = [choice(f"t{n}") for n in range(5)]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@dataclass
class Sent:
    guild_id: int
    user_id: int
    due: int
    at: datetime


@dataclass
class RecordingDMs:
    """The pass's `DirectMessages`, recording the DMs; survives restarts."""

    clock: Clock
    sent: list[Sent] = field(default_factory=list)
    closed: set[int] = field(default_factory=set)
    """Members whose DMs are closed."""
    failing: set[int] = field(default_factory=set)
    attempts: int = 0

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        self.attempts += 1
        await asyncio.sleep(0)  # a real send yields: another process may run meanwhile
        if user_id in self.closed:
            raise DmsClosedError("Cannot send messages to this user")
        if user_id in self.failing:
            raise DmFailedError("Discord error 500: oops")
        self.sent.append(Sent(guild_id, user_id, due, self.clock()))

    def to(self, user_id: int) -> list[datetime]:
        return [s.at for s in self.sent if s.user_id == user_id]


class Process:
    def __init__(self, url: str, clock: Clock, dms: RecordingDMs, *, enabled: bool = True) -> None:
        self.engine = make_engine(url)
        self.store = Store(self.engine)
        # The tasks of `due_cards`' cards: a reminder counts only what /review would serve.
        self.service = QuizService(Catalog.of(TASKS), self.store, clock=clock)
        self.clock = clock
        self.scheduler = Scheduler(
            self.service, RecordingPoster(clock), grace=timedelta(hours=2), max_sleep=6 * 3600
        )
        self.reminders = Reminders(self.service, dms, enabled=enabled)
        self.scheduler.add_pass(self.reminders)

    async def run_until(self, end: datetime) -> None:
        """The scheduler's loop with time jumping to each wake-up it asks for."""
        while self.clock() < end:
            wake = await self.scheduler.tick()
            assert wake > self.clock(), "the scheduler must ask for a later moment"
            self.clock.now = min(wake, end)

    async def close(self) -> None:
        await self.service.close()
        self.engine.dispose()


@pytest.fixture
async def start(tmp_path: Path) -> AsyncIterator[Callable[..., Process]]:
    processes: list[Process] = []
    url = f"sqlite:///{tmp_path / 'quiz.db'}"

    def make(clock: Clock, dms: RecordingDMs, **kwargs: bool) -> Process:
        process = Process(url, clock, dms, **kwargs)
        processes.append(process)
        return process

    yield make
    for process in processes:
        await process.close()


def due_cards(store: Store, user_id: int, *dues: datetime) -> None:
    """The member's cards, one per due time (tasks t0, t1, …)."""
    cards = [
        StoredCard(GUILD, user_id, f"t{n}", 2, None, 2.3, 5.0, due, due - timedelta(days=2))
        for n, due in enumerate(dues)
    ]
    with store.write() as conn:
        save_cards(conn, cards)


async def remind_at(process: Process, user_id: int, hour: int, zone: str | None) -> None:
    await process.service.turn_reminders_on(GUILD, user_id, hour=hour, timezone=zone)


JUNE_1 = datetime(2025, 6, 1, tzinfo=UTC)


async def alice_reminded(
    start: Callable[..., Process],
    dms: RecordingDMs,
    *,
    hour: int = 7,
    due_since: datetime = JUNE_1,
    enabled: bool = True,
) -> Process:
    """A process on the DMs' clock, with Alice reminded at `hour` Berlin time and a card of
    hers due since `due_since`."""
    process = start(dms.clock, dms, enabled=enabled)
    await remind_at(process, ALICE, hour, "Europe/Berlin")
    due_cards(process.store, ALICE, due_since)
    return process


# -- the pass on the scheduler's loop ------------------------------------------------------------


async def test_one_dm_across_the_repeated_fall_back_hour(start: Callable[..., Process]) -> None:
    dms = RecordingDMs(Clock(utc(2025, 10, 25, 20, 0)))
    process = await alice_reminded(start, dms, hour=2, due_since=utc(2025, 10, 1))
    await process.run_until(utc(2025, 10, 26, 6, 0))
    assert dms.to(ALICE) == [utc(2025, 10, 26, 0, 0)]  # 02:00 CEST, not again at 02:00 CET
    assert dms.sent[0].due == 1


async def test_one_dm_on_the_spring_forward_day(start: Callable[..., Process]) -> None:
    dms = RecordingDMs(Clock(utc(2025, 3, 29, 0, 30)))
    process = await alice_reminded(start, dms, hour=2, due_since=utc(2025, 3, 1))
    await process.run_until(utc(2025, 3, 31, 12, 0))
    # 02:00 CET on the 29th, the end of the gap (03:00 CEST) on the 30th, 02:00 CEST on the 31st.
    assert dms.to(ALICE) == [utc(2025, 3, 29, 1, 0), utc(2025, 3, 30, 1, 0), utc(2025, 3, 31, 0, 0)]


async def test_the_members_zone_else_the_servers(start: Callable[..., Process]) -> None:
    clock = Clock(utc(2025, 6, 2, 12, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await process.service.update_guild_config(GUILD, timezone="Asia/Tokyo")
    await remind_at(process, ALICE, 9, None)  # the server's zone
    await remind_at(process, BOB, 9, "America/New_York")
    due_cards(process.store, ALICE, utc(2025, 6, 1))
    due_cards(process.store, BOB, utc(2025, 6, 1))
    await process.run_until(utc(2025, 6, 3, 18, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 3, 0, 0)]  # 09:00 in Tokyo
    assert dms.to(BOB) == [utc(2025, 6, 2, 13, 0), utc(2025, 6, 3, 13, 0)]  # 09:00 EDT


async def test_moving_east_brings_no_second_dm_on_the_new_zones_day(
    start: Callable[..., Process],
) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 2, 20, 0)))
    process = await alice_reminded(start, dms, hour=23)  # 23:00 in Berlin: 21:00 UTC
    await process.run_until(utc(2025, 6, 2, 21, 10))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 21, 0)]  # already 06:00 on 3 June in Tokyo
    plan = await process.service.turn_reminders_on(GUILD, ALICE, hour=7, timezone="Asia/Tokyo")
    assert plan.next.at == utc(2025, 6, 3, 22, 0)  # 07:00 on 4 June in Tokyo, not on the 3rd
    await process.run_until(utc(2025, 6, 4, 12, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 21, 0), utc(2025, 6, 3, 22, 0)]


async def test_moving_far_west_skips_no_day(start: Callable[..., Process]) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 1, 16, 30)))
    process = start(dms.clock, dms)
    await remind_at(process, ALICE, 7, "Pacific/Kiritimati")  # UTC+14: 17:00 UTC
    due_cards(process.store, ALICE, utc(2025, 5, 1))
    await process.run_until(utc(2025, 6, 1, 17, 10))
    assert dms.to(ALICE) == [utc(2025, 6, 1, 17, 0)]  # 2 June there, 06:00 on 1 June in Samoa
    plan = await process.service.turn_reminders_on(
        GUILD, ALICE, hour=7, timezone="Pacific/Pago_Pago"
    )
    assert plan.next.at == utc(2025, 6, 2, 18, 0)  # 07:00 on 2 June in Samoa (UTC-11)
    await process.run_until(utc(2025, 6, 3, 0, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 1, 17, 0), utc(2025, 6, 2, 18, 0)]


async def test_a_new_server_zone_brings_no_second_dm_on_its_day(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 2, 20, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await process.service.update_guild_config(GUILD, timezone="Europe/Berlin")
    await remind_at(process, ALICE, 23, None)  # the server's zone
    await remind_at(process, BOB, 23, "Europe/Berlin")  # his own: the server's change is not his
    due_cards(process.store, ALICE, utc(2025, 6, 1))
    due_cards(process.store, BOB, utc(2025, 6, 1))
    await process.run_until(utc(2025, 6, 2, 21, 10))
    await process.service.update_guild_config(GUILD, timezone="Asia/Tokyo")
    await process.run_until(utc(2025, 6, 4, 15, 0))
    # 06:00 on 3 June in Tokyo; 23:00 that day would be a second DM on the 3rd there.
    assert dms.to(ALICE) == [utc(2025, 6, 2, 21, 0), utc(2025, 6, 4, 14, 0)]
    assert dms.to(BOB) == [utc(2025, 6, 2, 21, 0), utc(2025, 6, 3, 21, 0)]


async def test_a_host_clock_that_ran_ahead_and_was_set_right_costs_no_reminder_after_today(
    start: Callable[..., Process], caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(utc(2026, 6, 2, 4, 30))  # the host's clock a year ahead
    dms = RecordingDMs(clock)
    process = await alice_reminded(start, dms)  # 07:00 in Berlin: 05:00 UTC
    await process.run_until(utc(2026, 6, 2, 5, 10))
    assert dms.to(ALICE) == [utc(2026, 6, 2, 5, 0)]
    clock.now = utc(2025, 6, 2, 4, 30)  # set right: the same morning, a year earlier
    with caplog.at_level(logging.WARNING, logger="bot.schedule.reminders"):
        await process.run_until(utc(2025, 6, 4, 6, 0))
    # None again on 2 June, which had its DM; then one a day, as before.
    assert dms.to(ALICE)[1:] == [utc(2025, 6, 3, 5, 0), utc(2025, 6, 4, 5, 0)]
    (warning,) = [r.getMessage() for r in caplog.records if "clock ran ahead" in r.getMessage()]
    assert warning.startswith("the last reminder of 1 member(s) was dated after their today")


async def test_at_most_one_dm_a_day_across_a_restart(start: Callable[..., Process]) -> None:
    clock = Clock(utc(2025, 6, 2, 5, 0))
    dms = RecordingDMs(clock)
    first = start(clock, dms)
    await remind_at(first, ALICE, 7, "Europe/Berlin")
    due_cards(first.store, ALICE, utc(2025, 6, 1))
    await first.run_until(utc(2025, 6, 2, 5, 10))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0)]
    await first.close()

    again = start(clock, dms)  # restarted within the same hour
    await again.run_until(utc(2025, 6, 2, 8, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0)]
    # Off and on again the same day brings no second DM either.
    await again.service.run_write(StoreAction.CHANGE, reminders_unit.turn_off, GUILD, ALICE)
    await remind_at(again, ALICE, 10, None)
    await again.run_until(utc(2025, 6, 2, 12, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0)]


async def test_two_processes_on_one_database_send_once(start: Callable[..., Process]) -> None:
    clock = Clock(utc(2025, 6, 2, 4, 59))
    dms = RecordingDMs(clock)
    one, two = start(clock, dms), start(clock, dms)
    for member in (ALICE, BOB):
        await remind_at(one, member, 7, "Europe/Berlin")
        due_cards(one.store, member, utc(2025, 6, 1))
    clock.now = utc(2025, 6, 2, 5, 0)
    await asyncio.gather(one.reminders.tick(clock()), two.reminders.tick(clock()))
    await asyncio.gather(one.reminders.tick(clock()), two.reminders.tick(clock()))
    assert sorted(s.user_id for s in dms.sent) == [ALICE, BOB]


async def test_a_process_that_does_not_own_dms_sends_none(start: Callable[..., Process]) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 2, 4, 0)))
    process = await alice_reminded(start, dms, enabled=False)
    assert await process.reminders.tick(utc(2025, 6, 2, 5, 0)) is None
    assert dms.attempts == 0


async def test_no_dm_when_nothing_is_due(start: Callable[..., Process]) -> None:
    clock = Clock(utc(2025, 6, 2, 4, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await remind_at(process, ALICE, 7, "Europe/Berlin")
    await remind_at(process, BOB, 7, "Europe/Berlin")
    due_cards(process.store, ALICE, utc(2025, 6, 20))  # not due for weeks
    await process.run_until(utc(2025, 6, 4, 12, 0))
    assert dms.sent == [] and dms.attempts == 0


async def test_a_card_due_within_the_hour_is_reminded_then_later_ones_next_day(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 2, 4, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await remind_at(process, ALICE, 7, "Europe/Berlin")  # 05:00-06:00 UTC
    await remind_at(process, BOB, 7, "Europe/Berlin")
    due_cards(process.store, ALICE, utc(2025, 6, 2, 5, 25))  # within Alice's hour
    due_cards(process.store, BOB, utc(2025, 6, 2, 6, 30))  # after Bob's hour
    await process.run_until(utc(2025, 6, 3, 12, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 25), utc(2025, 6, 3, 5, 0)]
    assert dms.to(BOB) == [utc(2025, 6, 3, 5, 0)]


async def test_closed_dms_turn_the_reminder_off_and_review_says_so_once(
    start: Callable[..., Process], caplog: pytest.LogCaptureFixture
) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 2, 4, 0)), closed={ALICE})
    process = await alice_reminded(start, dms)
    with caplog.at_level(logging.INFO, logger="bot.schedule.reminders"):
        await process.run_until(utc(2025, 6, 4, 12, 0))
    assert dms.attempts == 1  # turned off: not tried again the next days
    assert reminder_on(process.store, GUILD, ALICE) is None  # turned off
    (record,) = [r for r in caplog.records if r.name == "bot.schedule.reminders"]
    assert record.levelno == logging.INFO and record.exc_info is None
    assert "DMs are closed" in record.getMessage()

    service = process.service
    assert await service.take_reminder_notice(GUILD, ALICE) == DMS_CLOSED_NOTICE
    assert await service.take_reminder_notice(GUILD, ALICE) is None
    assert await service.take_reminder_notice(GUILD, BOB) is None


async def test_another_failure_is_logged_and_not_retried_that_day(
    start: Callable[..., Process], caplog: pytest.LogCaptureFixture
) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 2, 4, 0)), failing={ALICE})
    process = await alice_reminded(start, dms)
    with caplog.at_level(logging.INFO, logger="bot.schedule.reminders"):
        await process.run_until(utc(2025, 6, 2, 12, 0))
    assert dms.attempts == 1
    (record,) = [r for r in caplog.records if r.name == "bot.schedule.reminders"]
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "not retried today" in record.getMessage()
    dms.failing.clear()  # the next day it goes out, the reminder still on
    await process.run_until(utc(2025, 6, 3, 12, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 3, 5, 0)]


async def test_the_scheduler_wakes_for_the_next_reminder_hour(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 2, 12, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    assert await process.scheduler.tick() == utc(2025, 6, 2, 18, 0)  # nothing: max_sleep
    await remind_at(process, ALICE, 16, "Europe/Berlin")  # 14:00 UTC
    assert await process.scheduler.tick() == utc(2025, 6, 2, 14, 0)


async def test_a_failing_pass_does_not_stop_the_scheduler(
    start: Callable[..., Process], caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(utc(2025, 6, 2, 12, 0))
    process = start(clock, RecordingDMs(clock))

    class Broken:
        async def tick(self, now: datetime) -> datetime | None:
            raise RuntimeError("a bug")

    process.scheduler.passes.insert(0, Broken())
    await remind_at(process, ALICE, 16, "Europe/Berlin")
    assert await process.scheduler.tick() == utc(2025, 6, 2, 14, 0)
    assert "scheduler pass Broken failed" in caplog.text


async def test_no_dm_for_a_review_that_review_would_not_serve(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 2, 5, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await remind_at(process, ALICE, 7, "Europe/Berlin")
    due = utc(2025, 6, 1)
    removed = StoredCard(GUILD, ALICE, "removed", 2, None, 2.3, 5.0, due, due - timedelta(days=2))
    with process.store.write() as conn:
        save_cards(conn, [removed])  # its task is in no bank any more
    await process.run_until(utc(2025, 6, 3, 6, 0))
    assert dms.to(ALICE) == []
    due_cards(process.store, ALICE, due)  # t0: /review serves it, so the next 07:00 reminds
    await process.run_until(utc(2025, 6, 4, 6, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 4, 5, 0)]


async def test_a_review_of_a_bank_another_process_uploaded_is_reminded(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 2, 5, 0))
    dms = RecordingDMs(clock)
    sender = start(clock, dms)  # started before the upload, as shard 0's process is
    await sender.service.start()
    await remind_at(sender, ALICE, 7, "Europe/Berlin")
    due = utc(2025, 6, 1)
    uploaded = StoredCard(GUILD, ALICE, "net-1", 2, None, 2.3, 5.0, due, due - timedelta(days=2))
    with sender.store.write() as conn:
        save_cards(conn, [uploaded])
    # Another process (the shard that owns the server) stores the server's new bank.
    BankStore(sender.store).save(GUILD, "networking", bank_yaml(), 1, BOB, clock())
    await sender.run_until(utc(2025, 6, 2, 5, 10))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0)]


async def test_moving_far_east_skips_no_day(start: Callable[..., Process]) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 1, 17, 30)))
    process = start(dms.clock, dms)
    await remind_at(process, ALICE, 7, "Pacific/Pago_Pago")  # UTC-11: 18:00 UTC
    due_cards(process.store, ALICE, utc(2025, 5, 1))
    await process.run_until(utc(2025, 6, 1, 18, 10))
    assert dms.to(ALICE) == [utc(2025, 6, 1, 18, 0)]  # 1 June in Samoa, 2 June in Kiritimati
    plan = await process.service.turn_reminders_on(
        GUILD, ALICE, hour=7, timezone="Pacific/Kiritimati"
    )
    assert plan.next.at == utc(2025, 6, 2, 17, 0)  # 07:00 on 3 June in Kiritimati (UTC+14)
    await process.run_until(utc(2025, 6, 3, 0, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 1, 18, 0), utc(2025, 6, 2, 17, 0)]


async def test_moving_to_a_zone_with_the_same_clock_keeps_the_next_days_dm(
    start: Callable[..., Process],
) -> None:
    dms = RecordingDMs(Clock(utc(2025, 6, 2, 4, 0)))
    process = await alice_reminded(start, dms)  # 07:00 in Berlin: 05:00 UTC
    await process.run_until(utc(2025, 6, 3, 4, 0))  # 06:00 on 3 June in Berlin
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0)]
    plan = await process.service.turn_reminders_on(GUILD, ALICE, hour=7, timezone="Europe/Paris")
    assert plan.next.at == utc(2025, 6, 3, 5, 0)  # 3 June had no DM, in Berlin or in Paris
    await process.run_until(utc(2025, 6, 3, 6, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 2, 5, 0), utc(2025, 6, 3, 5, 0)]


async def test_hours_that_fall_on_different_local_dates_at_once_remind_both_members(
    start: Callable[..., Process],
) -> None:
    clock = Clock(utc(2025, 6, 1, 21, 0))
    dms = RecordingDMs(clock)
    process = start(clock, dms)
    await remind_at(process, ALICE, 7, "Asia/Tokyo")  # 22:00 UTC, the next date there
    await remind_at(process, BOB, 18, "America/New_York")  # 22:00 UTC too (EDT)
    due_cards(process.store, ALICE, utc(2025, 5, 1))
    due_cards(process.store, BOB, utc(2025, 5, 1))
    await process.run_until(utc(2025, 6, 2, 23, 0))
    assert dms.to(ALICE) == [utc(2025, 6, 1, 22, 0), utc(2025, 6, 2, 22, 0)]
    assert dms.to(BOB) == [utc(2025, 6, 1, 22, 0), utc(2025, 6, 2, 22, 0)]


def test_the_dm_says_how_many_are_due_and_where_to_review() -> None:
    assert "You have 3 reviews due in Study group. Use /review in Study group" in reminder_text(
        3, "Study group"
    )
    assert "1 review due" in reminder_text(1, "S")
    assert reminder_text(1200, "S").startswith("⏰ You have 1,200 reviews due in S.")


def test_the_dm_goes_through_the_catalogs_count_and_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    with speaking("de"):
        one, many = reminder_text(1, "Lerngruppe"), reminder_text(1200, "Lerngruppe")
    invite = "⏰ You have {n} review due in {server}. Use /review in {server} to go through it."
    stop = "-# One reminder a day at most; `/reminders off` in that server stops them."
    assert one == f"{pseudo(invite)}\n{pseudo(stop)}".format(n=1, server="Lerngruppe")
    assert many.startswith("⟦⏰ Ýöü hávé 1.200 révîéwš düé")  # German groups thousands by "."


def test_a_german_servers_dm_is_german() -> None:
    with speaking("de"):
        text = reminder_text(2, "Lerngruppe")
    assert text.startswith("⏰ Du hast 2 fällige Wiederholungen in Lerngruppe.")
