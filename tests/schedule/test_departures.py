"""The grace period after the bot is removed from a server, on a controllable clock: the
server's data is deleted once it has passed (the scheduler wakes for that moment), kept if
the bot came back within it, and only by the process whose shard holds the server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from bot.quiz.errors import StoreAction
from bot.quiz.tasks import Catalog
from bot.schedule.departures import Departures
from bot.schedule.runner import Scheduler
from bot.service import QuizService
from bot.sharding import ShardPlan, shard_of
from bot.store import Store, departures, make_engine, member_data
from bot.store.server_banks import BankStore
from tests.factories import Clock, bank_yaml, choice
from tests.schedule.test_runner import RecordingPoster

GUILD, OTHER = 1, 2
ALICE = 11
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
GRACE = timedelta(days=30)
TASK = choice("t-1")


class Process:
    def __init__(self, url: str, clock: Clock, shards: ShardPlan = ShardPlan.UNSHARDED) -> None:
        self.engine = make_engine(url)
        self.store = Store(self.engine)
        self.service = QuizService(Catalog.of([TASK]), self.store, clock=clock)
        self.clock = clock
        self.scheduler = Scheduler(
            self.service, RecordingPoster(clock), grace=timedelta(hours=2), max_sleep=6 * 3600
        )
        self.scheduler.add_pass(Departures(self.service, grace=GRACE, shards=shards))
        self.wakes: list[datetime] = []

    async def run_until(self, end: datetime) -> None:
        """The scheduler's loop with time jumping to each wake-up it asks for."""
        while self.clock() < end:
            wake = await self.scheduler.tick()
            assert wake > self.clock()
            self.wakes.append(wake)
            self.clock.now = min(wake, end)

    async def play(self, guild_id: int) -> None:
        post = await self.service.create_post(guild_id, 10, TASK, ALICE)
        await self.service.answer(post.post.id, guild_id, ALICE, "alice", ("A",))

    async def kept(self, guild_id: int) -> bool:
        data = await self.service.run_read(member_data.member_summary, guild_id, ALICE)
        return not data.empty

    async def removed(self, guild_id: int) -> None:
        await self.service.run_write(
            StoreAction.WRITE, departures.mark_removed, guild_id, self.clock()
        )

    async def close(self) -> None:
        await self.service.close()
        self.engine.dispose()


@pytest.fixture
async def process(tmp_path: Path) -> AsyncIterator[Process]:
    proc = Process(f"sqlite:///{tmp_path / 'quiz.db'}", Clock(T0))
    await proc.play(GUILD)
    await proc.play(OTHER)
    yield proc
    await proc.close()


async def test_a_removed_servers_data_goes_when_the_grace_period_ends(
    process: Process, caplog: pytest.LogCaptureFixture
) -> None:
    await process.removed(GUILD)
    await process.run_until(T0 + GRACE - timedelta(minutes=1))
    assert await process.kept(GUILD)
    with caplog.at_level(logging.INFO, logger="bot.schedule.departures"):
        await process.run_until(T0 + GRACE + timedelta(hours=1))
    assert T0 + GRACE in process.wakes  # the loop woke for that moment, not a minute later
    assert not await process.kept(GUILD)
    assert await process.kept(OTHER)
    assert await process.service.run_read(departures.removals) == {}
    (line,) = [r.getMessage() for r in caplog.records]
    assert f"server {GUILD}:" in line and "2026-03-01 09:30 UTC" in line and "attempt 1" in line


async def test_a_server_the_bot_came_back_to_keeps_its_data(process: Process) -> None:
    await process.removed(GUILD)
    await process.run_until(T0 + timedelta(days=10))
    await process.service.run_write(StoreAction.WRITE, departures.mark_present, [GUILD])
    await process.run_until(T0 + GRACE + timedelta(days=5))
    assert await process.kept(GUILD)


async def test_a_grace_of_zero_deletes_at_the_next_tick(tmp_path: Path) -> None:
    proc = Process(f"sqlite:///{tmp_path / 'quiz.db'}", Clock(T0))
    proc.scheduler.passes[0] = Departures(proc.service, grace=timedelta(0))
    try:
        await proc.play(GUILD)
        await proc.removed(GUILD)
        await proc.scheduler.tick()
        assert not await proc.kept(GUILD)
    finally:
        await proc.close()


async def test_only_the_process_of_the_servers_shard_deletes_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'quiz.db'}"
    clock = Clock(T0)
    mine = shard_of(GUILD, 2)
    other = Process(url, clock, ShardPlan.parse(2, str(1 - mine)))
    try:
        await other.play(GUILD)
        await other.removed(GUILD)
        await other.run_until(T0 + GRACE + timedelta(days=1))
        assert await other.kept(GUILD)
        # It asks for no wake-up on the other shard's account.
        assert all(w - prev >= timedelta(hours=6) for prev, w in pairwise(other.wakes))
    finally:
        await other.close()
    owner = Process(url, clock, ShardPlan.parse(2, str(mine)))
    try:
        await owner.scheduler.tick()
        assert not await owner.kept(GUILD)
    finally:
        await owner.close()


async def test_a_deleted_servers_uploaded_banks_are_served_no_more(process: Process) -> None:
    BankStore(process.store).save(GUILD, "net", bank_yaml("net-1"), 1, ALICE, T0)
    await process.service.load_server_banks()
    assert process.service.bank_names(GUILD) == ["net"]
    await process.removed(GUILD)
    process.clock.now = T0 + GRACE
    await process.scheduler.tick()
    assert process.service.bank_names(GUILD) == []
