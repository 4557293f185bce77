"""The bot leaving a server and coming back: marks the server's data for deletion after
`REMOVAL_GRACE_DAYS`, or keeps it (the purge is a scheduler pass, bot/schedule/departures.py).
Servers left while the bot was down are found when it is ready."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.quiz.errors import StoreAction, StoreError
from bot.schedule.departures import Departures
from bot.store import departures

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)


class DeparturesCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot
        self.grace = timedelta(days=bot.settings.removal_grace_days)

    async def cog_load(self) -> None:
        shards = self.bot.settings.shards
        self.bot.scheduler.add_pass(Departures(self.bot.service, grace=self.grace, shards=shards))

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        service, owns = self.bot.service, self.bot.settings.shards.owns_guild
        present = [guild.id for guild in self.bot.guilds]
        try:
            known = await service.run_read(departures.known_guilds)
            gone, back = await service.run_write(
                StoreAction.WRITE, departures.settle, present, known, owns, service.clock()
            )
        except StoreError:
            return  # logged by the store; the next ready settles it
        if gone:
            log.info(
                "%d server(s) removed the bot while it was down: their data is deleted in %d "
                "days unless it is added back",
                gone,
                self.grace.days,
            )
        if back:
            log.info("back in %d server(s) the bot had been removed from: their data is kept", back)
        self.bot.scheduler.wake()

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        service = self.bot.service
        try:
            await service.run_write(
                StoreAction.WRITE, departures.mark_removed, guild.id, service.clock()
            )
        except StoreError:
            return  # logged by the store; the next ready finds the server gone
        log.info(
            "removed from server %s: its data is deleted in %d days unless the bot is added back",
            guild.id,
            self.grace.days,
        )
        self.bot.scheduler.wake()

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        try:
            back = await self.bot.service.run_write(
                StoreAction.WRITE, departures.mark_present, [guild.id]
            )
        except StoreError:
            return  # logged by the store; the next ready clears the mark
        if back:
            log.info("added back to server %s within the grace period: its data is kept", guild.id)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(DeparturesCog(bot))
