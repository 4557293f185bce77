"""The running bot's gateway state, written where `quizbot health` reads it (bot/health.py): at
once on ready, resume and disconnect, and every HEARTBEAT_SECONDS, so a killed or hung bot's
status goes stale."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from pathlib import Path

from discord.ext import commands

from bot.health import HEARTBEAT_SECONDS, GatewayStatus, write_status

log = logging.getLogger(__name__)


class StatusWriter:
    def __init__(self, bot: commands.AutoShardedBot, path: Path) -> None:
        self.bot = bot
        self.path = path
        self._task: asyncio.Task[None] | None = None
        self._failed = False

    def start(self) -> None:
        """Listen to the gateway's events and start the heartbeat; "starting" until ready."""
        for event in ("on_ready", "on_resumed", "on_shard_ready", "on_shard_resumed"):
            self.bot.add_listener(self._changed, event)
        self.bot.add_listener(self._disconnected, "on_disconnect")
        self.bot.add_listener(self._disconnected, "on_shard_disconnect")
        self._write(GatewayStatus(connected=False, at=_now(), state="starting"))
        log.info("health status file: %s (read by `quizbot health`)", self.path)
        self._task = asyncio.get_running_loop().create_task(
            self._beat(), name="quizbot-health-status"
        )

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._write(GatewayStatus(connected=False, at=_now(), state="closed"))

    def connected(self) -> bool:
        """Ready, and no shard's connection is closed (public API: `ShardInfo.is_closed`)."""
        shards = self.bot.shards.values()
        return (
            self.bot.is_ready()
            and not self.bot.is_closed()
            and not any(shard.is_closed() for shard in shards)
        )

    def current(self) -> GatewayStatus:
        connected = self.connected()
        state = "connected" if connected else "disconnected"
        return GatewayStatus(connected=connected, at=_now(), state=state)

    async def _changed(self, *_: object) -> None:
        self._write(self.current())

    async def _disconnected(self, *_: object) -> None:
        self._write(GatewayStatus(connected=False, at=_now(), state="disconnected"))

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            self._write(self.current())

    def _write(self, status: GatewayStatus) -> None:
        # A small local file, written whole: off the loop would cost more than the write.
        try:
            write_status(self.path, status)
        except OSError as exc:
            if not self._failed:  # once, not every heartbeat
                log.warning(
                    "cannot write the health status file %s (%s): `quizbot health` will say "
                    "unhealthy; set HEALTH_FILE to a path the bot may write",
                    self.path,
                    exc.strerror or exc,
                )
            self._failed = True
        else:
            self._failed = False


def _now() -> datetime:
    return datetime.now(UTC)
