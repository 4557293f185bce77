"""The running bot's status file, as `quizbot health` reads it: starting, then connected once
ready, not connected as soon as a shard drops (and again on resume), closed at the end."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from discord.ext import commands

from bot.discord_ui.gateway_status import StatusWriter
from bot.health import gateway_problem

Listener = Callable[..., Awaitable[None]]


class Shard:
    def __init__(self) -> None:
        self.closed = False

    def is_closed(self) -> bool:
        return self.closed


class Bot:
    """What StatusWriter uses of the bot: its listeners, readiness and shards."""

    def __init__(self) -> None:
        self.listeners: dict[str, list[Listener]] = {}
        self.ready = False
        self.shards = {0: Shard(), 1: Shard()}

    def add_listener(self, func: Listener, name: str) -> None:
        self.listeners.setdefault(name, []).append(func)

    def is_ready(self) -> bool:
        return self.ready

    def is_closed(self) -> bool:
        return False

    async def dispatch(self, event: str, *args: Any) -> None:
        for listener in self.listeners.get(f"on_{event}", []):
            await listener(*args)


def problem(path: Path) -> str | None:
    return gateway_problem(path, datetime.now(UTC))


async def test_the_status_follows_the_gateway(tmp_path: Path) -> None:
    bot, path = Bot(), tmp_path / "status.json"
    writer = StatusWriter(cast(commands.AutoShardedBot, bot), path)
    writer.start()
    assert (problem(path) or "").startswith("the gateway is not connected (starting")

    bot.ready = True
    await bot.dispatch("ready")
    assert problem(path) is None

    bot.shards[1].closed = True
    await bot.dispatch("shard_disconnect", 1)
    assert (problem(path) or "").startswith("the gateway is not connected (disconnected")
    await bot.dispatch("ready")  # another shard's news does not hide the closed one
    assert problem(path) is not None

    bot.shards[1].closed = False
    await bot.dispatch("shard_resumed", 1)
    assert problem(path) is None

    await writer.stop()
    assert (problem(path) or "").startswith("the gateway is not connected (closed")


async def test_a_status_file_it_cannot_write_is_one_warning_not_a_crash(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    bot = Bot()
    writer = StatusWriter(cast(commands.AutoShardedBot, bot), blocker / "status.json")
    writer.start()
    bot.ready = True
    await bot.dispatch("ready")
    await writer.stop()
    ours = [r for r in caplog.records if r.name == "bot.discord_ui.gateway_status"]
    assert [r.levelno for r in ours if r.levelno >= logging.WARNING] == [logging.WARNING]
