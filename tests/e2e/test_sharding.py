"""The real bot with SHARD_COUNT=2 SHARD_IDS=0-1: two gateway sessions in one process, each
server on its own shard, posting and answering as an unsharded bot does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member

from .bot_helpers import STEP, QuizBotRunner, checked_bot, click, is_ephemeral, reply_of, text_of

pytestmark = pytest.mark.e2e

MC1 = "mlops-parallelism-mc-1"  # right answer: A


def shard_of(guild: Guild) -> int:
    return (guild.id >> 22) % 2


class TwoServers:
    """One server on each of the two shards, a channel and a member in each."""

    def __init__(self, driver: Driver) -> None:
        guilds: dict[int, Guild] = {}
        while len(guilds) < 2:
            guild = driver.create_guild(f"Group {len(guilds)}")
            guilds.setdefault(shard_of(guild), guild)
            time.sleep(0.002)  # ids carry the millisecond, which picks the shard
        self.guilds = [guilds[0], guilds[1]]
        self.channels: list[Channel] = [driver.create_text_channel(g, "quiz") for g in self.guilds]
        self.members: list[Member] = [driver.add_member(g, "alice") for g in self.guilds]


@pytest_asyncio.fixture
async def quizbot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
    async with checked_bot(emulator, tmp_path, env={"SHARD_COUNT": "2", "SHARD_IDS": "0-1"}) as bot:
        yield bot


async def test_two_shards_in_one_process_post_and_answer_in_each_server(
    emulator: DiscordEmulator, driver: Driver, quizbot: QuizBotRunner
) -> None:
    servers = TwoServers(driver)
    await quizbot.sync()  # global commands: both servers see them
    await quizbot.start()
    # discord.py identifies shard 1 about 5 s after shard 0 (Discord's identify rate limit).
    await driver.wait_for_identify(2, timeout=STEP + 10)
    await emulator.world.changed.wait_for(
        lambda: sum(s.ready for s in emulator.gateway.active) == 2, STEP, "both shards ready"
    )
    assert sorted(s.shard for s in emulator.gateway.active) == [[0, 2], [1, 2]]  # type: ignore[type-var]

    for guild, channel, member in zip(
        servers.guilds, servers.channels, servers.members, strict=True
    ):
        confirm = await reply_of(
            driver.slash("quiz", user=member, channel=channel, options={"task": MC1})
        )
        assert is_ephemeral(confirm) and "Posted" in confirm["content"], confirm
        post = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
        post_id = quizbot.post_id_of(post)
        reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:A", user=member))
        assert is_ephemeral(reply)
        assert "✅ Right" in text_of(reply), (guild.name, text_of(reply))

    # Each server's interactions were handled once: one post and one attempt per server.
    rows = quizbot.query("SELECT guild_id, COUNT(*) AS n FROM post GROUP BY guild_id")
    assert {(r["guild_id"], r["n"]) for r in rows} == {(g.id, 1) for g in servers.guilds}
    assert quizbot.query("SELECT COUNT(*) AS n FROM attempt")[0]["n"] == 2
    # on_ready comes once every shard is ready; its line names the process's shards.
    for _ in range(int(STEP * 10)):
        if "logged in as" in quizbot.logs():
            break
        await asyncio.sleep(0.1)
    assert "servers (shards 0-1 of 2)" in quizbot.logs()
