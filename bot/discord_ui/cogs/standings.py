"""/leaderboard, /stats and /topics."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.clock import Period
from bot.discord_ui.embeds import leaderboard_embed, stats_embed, topics_embed
from bot.discord_ui.errors import guild_id_of
from bot.discord_ui.params import PeriodParam
from bot.discord_ui.replies import Reply, Responder

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

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
            await responder.send(Reply(embeds=(stats_embed(who.display_name, figures),)))

    @app_commands.command(name="topics", description="The task banks, with task counts.")
    async def topics(self, interaction: Interaction) -> None:
        embed = topics_embed(self.bot.service.catalog_for(interaction.guild_id))
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(StandingsCog(bot))
