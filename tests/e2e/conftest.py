"""Fixtures for end-to-end tests against fakediscord.

- `emulator`: a started FakeDiscord; on teardown it fails the test if any request hit a
  route the emulator does not implement (clear `emulator.unknown_routes` if a test
  provokes one on purpose).
- `driver`: `emulator.driver`.
- `spawn_bot`: start a bot module as a subprocess pointed at the emulator; stopped on
  teardown (SIGTERM, then SIGKILL), its output kept in tmp_path for debugging.
- `discord_pointed_at_emulator`: patch the in-process discord.py at the emulator (for a
  client running inside the test's event loop), restored afterwards.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path

import discord.gateway
import discord.http
import pytest
import pytest_asyncio

from .fakediscord import Driver, FakeDiscord
from .fakediscord.process import REPO_ROOT, BotProcess

# benchmarks/ (floor bot, point_discord_at) must import even when pytest was started as a
# script, which puts the venv's bin/ rather than the repo root on sys.path.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from benchmarks.floor_bot import point_discord_at  # needs the sys.path entry above

SpawnBot = Callable[..., BotProcess]


@pytest_asyncio.fixture
async def emulator() -> AsyncIterator[FakeDiscord]:
    server = FakeDiscord()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
    assert not server.unknown_routes, (
        "bot used routes fakediscord does not implement:\n"
        + "\n".join(str(r) for r in server.unknown_routes)
    )


@pytest.fixture
def driver(emulator: FakeDiscord) -> Driver:
    return emulator.driver


@pytest_asyncio.fixture
async def spawn_bot(emulator: FakeDiscord, tmp_path: Path) -> AsyncIterator[SpawnBot]:
    started: list[BotProcess] = []

    def spawn(
        module: str = "benchmarks.floor_bot",
        *,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
    ) -> BotProcess:
        log_path = tmp_path / f"{module.replace('.', '_')}-{len(started)}.log"
        proc = BotProcess.for_emulator(
            emulator, module, log_path=log_path, extra_env=env, args=args
        ).start()
        started.append(proc)
        return proc

    try:
        yield spawn
    finally:
        for proc in started:
            await proc.stop()


@pytest.fixture
def discord_pointed_at_emulator(emulator: FakeDiscord) -> Iterator[FakeDiscord]:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_discord_at(emulator.api_base)
    try:
        yield emulator
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
