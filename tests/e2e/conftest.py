"""Fixtures for end-to-end tests against fakediscord.

- `emulator`: a started DiscordEmulator; on teardown it fails the test if any request hit a
  route the emulator does not implement (clear `emulator.unknown_routes` if a test
  provokes one on purpose).
- `driver`: `emulator.driver`.
- `spawn_bot`: start a bot module as a subprocess pointed at the emulator; stopped on
  teardown (SIGTERM, then SIGKILL), its output kept in tmp_path for debugging.
- `discord_pointed_at_emulator`: patch the in-process discord.py at the emulator (for a
  client running inside the test's event loop), restored afterwards.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from pathlib import Path

import discord.gateway
import discord.http
import pytest
import pytest_asyncio
from fakediscord import BotProcess, DiscordEmulator, Driver

from bot.discord_ui.api_base import point_discord_at

SpawnBot = Callable[..., BotProcess]


@pytest_asyncio.fixture
async def emulator() -> AsyncIterator[DiscordEmulator]:
    server = DiscordEmulator()
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
def driver(emulator: DiscordEmulator) -> Driver:
    return emulator.driver


@pytest_asyncio.fixture
async def spawn_bot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[SpawnBot]:
    started: list[BotProcess] = []

    def spawn(
        module: str = "fakediscord.floor_bot",
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
def discord_pointed_at_emulator(emulator: DiscordEmulator) -> Iterator[DiscordEmulator]:
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    point_discord_at(emulator.api_base)
    try:
        yield emulator
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
