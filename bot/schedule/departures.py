"""Servers the bot was removed from: their data is deleted once `REMOVAL_GRACE_DAYS` have
passed since it left, unless it came back first (the marks: bot/store/departures.py). A
`Scheduler` pass, so the purge runs on the scheduler's clock; each process purges only its
shards' servers."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.quiz.errors import StoreAction
from bot.sharding import ShardPlan
from bot.store import departures, member_data

if TYPE_CHECKING:
    from bot.service import QuizService

log = logging.getLogger(__name__)


class Departures:
    def __init__(
        self, service: QuizService, *, grace: timedelta, shards: ShardPlan = ShardPlan.UNSHARDED
    ) -> None:
        self.service = service
        self.grace = grace
        self.shards = shards

    async def tick(self, now: datetime) -> datetime | None:
        """Delete the data of every server left at least `grace` ago; when the next is due."""
        marks = await self.service.run_read(departures.removals)
        owned = {guild: at for guild, at in marks.items() if self.shards.owns_guild(guild)}
        banks = False
        for guild_id, left in sorted(owned.items()):
            if left + self.grace > now:
                continue
            deleted = await self.service.run_write(
                StoreAction.DELETE, member_data.delete_guild, guild_id
            )
            banks = banks or "server_bank" in deleted
            log.info(
                "server %s: the bot left it on %s; its data is deleted (%s)",
                guild_id,
                f"{left:%Y-%m-%d %H:%M} UTC",
                member_data.describe(deleted),
            )
        if banks:
            await self.service.load_server_banks()  # its uploads are served no more
        waiting = [at + self.grace for at in owned.values() if at + self.grace > now]
        return min(waiting, default=None)
