"""The bot: a commands.AutoShardedBot (for cogs/extensions) whose app commands do all the work.

Always the sharded class, so one code path runs one process or many: with SHARD_COUNT and
SHARD_IDS it runs exactly those shards (`ShardPlan.client_options`, bot/sharding.py); without
them it passes no shard arguments and discord.py asks Discord how many shards to run (GET
/gateway/bot: one, below 1,000 servers), all in this process. Which servers' daily quizzes
this process posts is the scheduler's `shards` (the same plan).

It owns the long-lived parts: the service, the live-count updater, the daily-quiz scheduler
and the content reloader (a change under CONTENT_DIR, or SIGHUP, reloads the banks), which it
builds in `setup_hook`, starts once the gateway is ready and stops in `close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from datetime import timedelta

import discord
from discord.ext import commands

from bot.content.reload import ContentReloader
from bot.discord_ui import clicks, loop_lag
from bot.discord_ui.components import DYNAMIC_ITEMS
from bot.discord_ui.dm import DiscordDirectMessages
from bot.discord_ui.errors import QuizTree
from bot.discord_ui.live_counts import DEFAULT_INTERVAL, LiveCounts
from bot.discord_ui.poster import DiscordPoster
from bot.discord_ui.posting import ChannelCooldowns
from bot.schedule.reminders import Reminders
from bot.schedule.runner import Scheduler
from bot.service import QuizService
from bot.settings import Settings

log = logging.getLogger(__name__)

EXTENSIONS: tuple[str, ...] = (
    "bot.discord_ui.cogs.quiz",
    "bot.discord_ui.cogs.standings",
    "bot.discord_ui.cogs.schedule",
    "bot.discord_ui.cogs.config",
    "bot.discord_ui.cogs.insights",
    "bot.discord_ui.cogs.banks",
    "bot.discord_ui.cogs.reminders",
    "bot.discord_ui.cogs.practice",
)

ACK_AFTER = 2.0
"""Seconds a handler may work before it defers; Discord drops an interaction unanswered
after 3 s, and the deferral itself needs a round trip."""


class QuizBot(commands.AutoShardedBot):
    scheduler: Scheduler
    """The daily quizzes' loop; built in `setup_hook`, before the cogs that use it load."""
    reminders: Reminders
    """The review reminders' pass on the scheduler's loop (`enabled=False` in a process
    that does not send DMs)."""

    def __init__(
        self,
        settings: Settings,
        service: QuizService,
        *,
        live_count_interval: float = DEFAULT_INTERVAL,
        ack_after: float = ACK_AFTER,
        run_scheduler: bool = True,
    ) -> None:
        """`run_scheduler=False` keeps the scheduler's loop from starting (tests drive its
        ticks themselves); its commands work either way."""
        # quizbot never joins a voice channel: discord.py's start-up warnings that voice
        # needs PyNaCl and davey would greet every host with nothing to act on.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        super().__init__(
            # Only slash commands and components: no prefix commands, no privileged intents.
            command_prefix=commands.when_mentioned,
            help_command=None,
            intents=discord.Intents.default(),
            tree_cls=QuizTree,
            allowed_mentions=discord.AllowedMentions.none(),
            **settings.shards.client_options(),  # type: ignore[arg-type]
        )
        self.settings = settings
        self.service = service
        self.ack_after = ack_after
        self.live_counts = LiveCounts(self, interval=live_count_interval)
        self.cooldowns = ChannelCooldowns()
        self.clicks = clicks.Router(*DYNAMIC_ITEMS)
        """Our components' clicks: routed in `on_interaction`, not by discord.py (clicks.py)."""
        self.run_scheduler = run_scheduler
        self._when_ready: asyncio.Task[None] | None = None
        self.content = ContentReloader(settings.content_dir, service)
        """Reloads the banks: on changes under CONTENT_DIR once ready (CONTENT_WATCH), and
        on `reload_content` (SIGHUP)."""

    async def setup_hook(self) -> None:
        # Commands are synced by `quizbot sync`, never on start: syncing is rate limited and
        # only needed when the commands change.
        await self.service.start()
        self.scheduler = Scheduler(
            self.service,
            DiscordPoster(self),
            grace=timedelta(minutes=self.settings.schedule_grace_minutes),
            shards=self.settings.shards,
        )
        # DMs belong to shard 0's process: with several processes, exactly one sends them (the
        # daily claim row would stop a double DM anyway).
        self.reminders = Reminders(
            self.service,
            DiscordDirectMessages(self),
            enabled=self.settings.shards.owns_direct_messages,
        )
        self.scheduler.add_pass(self.reminders)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        if self.run_scheduler or self.settings.content_watch:
            self._when_ready = asyncio.create_task(
                self._start_when_ready(), name="quizbot-start-when-ready"
            )
        if self.settings.loop_lag_probe:
            writer = self.service.writer_load
            loop_lag.start_loop_lag_probe(also=lambda: writer.take().describe())
        # The banks, the command tree and the cogs live as long as the process. Frozen, they
        # are no longer re-scanned by every full collection, which discord.py's per-interaction
        # reference cycles trigger about once a second under load (120-300 ms pauses, measured
        # in BENCHMARKS.md).
        gc.freeze()

    async def _start_when_ready(self) -> None:
        # Posting before the gateway is ready would work over REST, but recovery reads the
        # channel cache and the bot's own user; waiting also means nothing posts while the
        # bot still shows as offline. The content watch waits too: `quizbot sync` logs in
        # (setup_hook runs) but never gets ready.
        await self.wait_until_ready()
        if self.run_scheduler:
            self.scheduler.start()
        if self.settings.content_watch:
            self.content.watch()

    def reload_content(self) -> None:
        """Reload the banks now (SIGHUP); the outcome is logged."""
        self.content.request()

    async def _stop_background(self) -> None:
        if self._when_ready is not None:
            self._when_ready.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._when_ready
            self._when_ready = None
        scheduler = getattr(self, "scheduler", None)  # None when setup_hook never ran
        if scheduler is not None:
            await scheduler.stop()
        await self.content.stop()

    async def on_interaction(self, interaction: discord.Interaction[QuizBot]) -> None:
        if interaction.type is discord.InteractionType.component:
            await self.clicks.dispatch(interaction)

    async def on_app_command_completion(
        self, interaction: discord.Interaction[QuizBot], command: object
    ) -> None:
        # The command has answered: free its interaction now, as a click's (`clicks.release`).
        clicks.release(interaction)

    async def on_ready(self) -> None:
        user, shards = self.user, self.settings.shards
        runs = shards.describe() if shards.sharded else f"{self.shard_count} shard(s), all here"
        log.info(
            "logged in as %s (id %s) in %d servers (%s)",
            user,
            user and user.id,
            len(self.guilds),
            runs,
        )

    async def close(self) -> None:
        # First: a tick in flight must not outlive the service it writes through.
        await self._stop_background()
        await loop_lag.stop_loop_lag_probe()
        await self.live_counts.close()
        try:
            await super().close()
        finally:
            await self.service.close()
