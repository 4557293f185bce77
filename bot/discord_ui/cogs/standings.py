"""/leaderboard, /stats and /topics."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import stats_picture
from bot.clock import Period
from bot.discord_ui.embeds import leaderboard_embed, stats_embed, topics_embed
from bot.discord_ui.errors import context, guild_id_of
from bot.discord_ui.params import PeriodParam
from bot.discord_ui.replies import Reply, Responder

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["QuizBot"]


class StandingsCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="The top 10, and where you stand.")
    @app_commands.guild_only()
    @app_commands.describe(period="today, this week (the default) or all time")
    async def leaderboard(
        self, interaction: Interaction, period: PeriodParam = Period.WEEK
    ) -> None:
        guild_id = guild_id_of(interaction)
        # Public: the board is the group's, and it only shows totals.
        async with Responder(interaction, ephemeral=False) as responder:
            board = await self.bot.service.leaderboard(guild_id, period, interaction.user.id)
            embed = leaderboard_embed(board, period, interaction.user.id)
            await responder.send(Reply(embeds=(embed,)))

    @app_commands.command(name="stats", description="Your quiz figures (or a member's).")
    @app_commands.guild_only()
    @app_commands.describe(member="Whose figures; default: yours")
    async def stats(self, interaction: Interaction, member: discord.Member | None = None) -> None:
        guild_id = guild_id_of(interaction)
        who = member or interaction.user
        async with Responder(interaction) as responder:
            figures = await self.bot.service.stats(guild_id, who.id)
            picture = await self._picture(guild_id, who.id) if figures.tried else None
            if picture is not None:
                embed = stats_embed(who.display_name, figures, picture=picture.filename)
                try:
                    await responder.send(Reply(embeds=(embed,)), files=[picture])
                    return
                except discord.HTTPException as exc:
                    # The picture only repeats the figures: if Discord refuses the message
                    # with it (the attachment), the text alone is still the answer. A refused
                    # request leaves the interaction unanswered, so the retry can answer it.
                    log.warning(
                        "Discord refused the stats picture in %s (%s); sending the text alone",
                        context(interaction),
                        exc,
                    )
            await responder.send(Reply(embeds=(stats_embed(who.display_name, figures),)))

    async def _picture(self, guild_id: int, user_id: int) -> discord.File | None:
        """The /stats picture of a member's progress, drawn off the event loop. None if
        anything on the way fails (a bug, logged): the figures still go out as text."""
        service = self.bot.service
        try:
            due = await service.reviews_due_by_topic(guild_id, user_id)
            progress = await service.stats_progress(guild_id, user_id, due=due)
            png = await asyncio.to_thread(stats_picture.render, progress)
            return discord.File(
                io.BytesIO(png),
                filename=stats_picture.FILENAME,
                description=stats_picture.describe(progress),
            )
        except Exception:
            log.exception("could not draw the stats picture of %s in %s", user_id, guild_id)
            return None

    @app_commands.command(name="topics", description="The task banks, with task counts.")
    async def topics(self, interaction: Interaction) -> None:
        embed = topics_embed(self.bot.service.catalog_for(interaction.guild_id))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(StandingsCog(bot))
