"""The bot: a commands.Bot (for cogs/extensions) whose app commands do all the work."""

from __future__ import annotations

import gc
import logging

import discord
from discord.ext import commands

from bot.discord_ui import loop_lag
from bot.discord_ui.components import DYNAMIC_ITEMS
from bot.discord_ui.errors import QuizTree
from bot.discord_ui.live_counts import DEFAULT_INTERVAL, LiveCounts
from bot.discord_ui.posting import ChannelCooldowns
from bot.service import QuizService
from bot.settings import Settings

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = (
    "bot.discord_ui.cogs.quiz",
    "bot.discord_ui.cogs.standings",
    "bot.discord_ui.cogs.schedule",
)

ACK_AFTER = 2.0
"""Seconds a handler may work before it defers; Discord drops an interaction unanswered
after 3 s, and the deferral itself needs a round trip."""


class QuizBot(commands.Bot):
    def __init__(
        self,
        settings: Settings,
        service: QuizService,
        *,
        live_count_interval: float = DEFAULT_INTERVAL,
        ack_after: float = ACK_AFTER,
    ) -> None:
        super().__init__(
            # Only slash commands and components: no prefix commands, no privileged intents.
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=discord.Intents.default(),
            tree_cls=QuizTree,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.settings = settings
        self.service = service
        self.ack_after = ack_after
        self.live_counts = LiveCounts(self, interval=live_count_interval)
        self.cooldowns = ChannelCooldowns()

    async def setup_hook(self) -> None:
        # Commands are synced by `quizbot sync`, never on start: syncing is rate limited and
        # only needed when the commands change.
        await self.service.start()
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.settings.loop_lag_probe:
            loop_lag.start_loop_lag_probe()
        # The banks, the command tree and the cogs live as long as the process. Frozen, they
        # are no longer re-scanned by every full collection, which discord.py's per-interaction
        # reference cycles trigger about once a second under load (120-300 ms pauses, measured
        # in BENCHMARKS.md).
        gc.freeze()

    async def on_ready(self) -> None:
        user = self.user
        log.info("logged in as %s (id %s) in %d servers", user, user and user.id, len(self.guilds))

    async def close(self) -> None:
        await loop_lag.stop_loop_lag_probe()
        await self.live_counts.close()
        try:
            await super().close()
        finally:
            await self.service.close()
