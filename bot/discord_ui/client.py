"""The bot, and the long-lived parts it builds in `setup_hook`, starts once ready and stops in
`close`: the service, the live counts, the scheduler and the content reloader.

Always the sharded class, so one code path runs one process or many: SHARD_COUNT and SHARD_IDS
pick the shards (bot/sharding.py); without them discord.py asks Discord, all in this process.
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
from bot.discord_ui import clicks, cloze, loop_lag, typed
from bot.discord_ui.dm import DiscordDirectMessages
from bot.discord_ui.params import QuizTree
from bot.discord_ui.post_view import DEFAULT_INTERVAL, DYNAMIC_ITEMS, LiveCounts, ServerLanguages
from bot.discord_ui.poster import DiscordPoster
from bot.discord_ui.posting import ChannelCooldowns
from bot.discord_ui.translator import CatalogTranslator
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
    "bot.discord_ui.cogs.help",
    "bot.discord_ui.cogs.welcome",
    "bot.discord_ui.cogs.mydata",
    "bot.discord_ui.cogs.departures",
)

ACK_AFTER = 2.0
"""Seconds a handler may work before it defers; Discord drops an interaction unanswered
after 3 s, and the deferral itself needs a round trip."""


class QuizBot(commands.AutoShardedBot):
    scheduler: Scheduler  # built in `setup_hook`, before the cogs that use it load
    reminders: Reminders

    def __init__(
        self,
        settings: Settings,
        service: QuizService,
        *,
        live_count_interval: float = DEFAULT_INTERVAL,
        ack_after: float = ACK_AFTER,
        run_scheduler: bool = True,
    ) -> None:
        """`run_scheduler=False`: tests drive the scheduler's ticks themselves."""
        # No voice: discord.py's warnings that voice needs PyNaCl and davey are noise.
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
        # The one `on_interaction` listener: our clicks, and the submits of our modals.
        self.clicks = clicks.Router(*DYNAMIC_ITEMS)
        self.clicks.on_modal(typed.MODAL_PATTERN, typed.submitted)  # a typed answer
        self.clicks.on_modal(cloze.MODAL_PATTERN, cloze.submitted)  # a cloze task's typed parts
        self.clicks.listen(self)
        self.languages = ServerLanguages(self)  # each server's /config language
        self.languages.listen()
        self.run_scheduler = run_scheduler
        self._when_ready: asyncio.Task[None] | None = None
        self.content = ContentReloader(settings.content_dir, service)

    async def setup_hook(self) -> None:
        # Commands are registered by `quizbot run` only when they differ from Discord's
        # (command_sync.py): syncing is rate limited and only needed when the commands change.
        await self.service.start()
        # Command descriptions in each member's language, sent when the commands are synced.
        await self.tree.set_translator(CatalogTranslator())
        self.scheduler = Scheduler(
            self.service,
            DiscordPoster(self),
            grace=timedelta(minutes=self.settings.schedule_grace_minutes),
            shards=self.settings.shards,
        )
        # DMs belong to shard 0's process: with several processes, exactly one sends them.
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
        # The banks, tree and cogs live as long as the process: frozen, full collections
        # (about once a second under load) no longer re-scan them (BENCHMARKS.md).
        gc.freeze()

    async def _start_when_ready(self) -> None:
        # Recovery reads the channel cache and the bot's own user, so nothing posts before
        # ready; nor does the content watch start in `quizbot sync`, which never gets ready.
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
