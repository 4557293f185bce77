"""/insights: the group's hardest tasks, misconceptions and participation (moderators).

Thin: the service reads the period (bot/service.py `insights`), the figures are decided in
bot/schedule/insights.py, and the embed fits them into Discord's limits. Private unless the
moderator asks to post it: it names tasks and how the group did on them, not members.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui.checks import moderator_only
from bot.discord_ui.errors import guild_id_of
from bot.discord_ui.params import Flag, ValueChoices
from bot.discord_ui.replies import Reply, Responder
from bot.schedule.insights import Insights, InsightsPeriod

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
InsightsPeriodParam = app_commands.Transform[
    InsightsPeriod, ValueChoices(InsightsPeriod, "period")
]
COLOUR = discord.Colour.teal()


def insights_embed(report: Insights) -> discord.Embed:
    """Three fields (four for a week), each cut to a field's limit (1,024): together well
    under an embed's 6,000 characters."""
    limit = rendering.EMBED_FIELD_VALUE
    embed = discord.Embed(
        title=f"🔎 Insights · {report.period.title}",
        colour=COLOUR,
        description=(
            f"{report.first_day:%a %d %b %Y} to {report.last_day:%a %d %b %Y}, "
            "in the server's time zone."
        ),
    )
    embed.add_field(
        name="Hardest tasks (lowest first-try rate)",
        value=rendering.truncate(report.hardest_text(), limit),
        inline=False,
    )
    embed.add_field(
        name="Misconceptions (≥ 20% of a task's answerers)",
        value=rendering.truncate(report.misconceptions_text(), limit),
        inline=False,
    )
    embed.add_field(
        name="Participation",
        value=rendering.truncate(report.participation_text(), limit),
        inline=False,
    )
    if report.period is InsightsPeriod.WEEK and report.attempts:
        embed.add_field(
            name="Per day", value=rendering.truncate(report.day_table(), limit), inline=False
        )
    return embed


class InsightsCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="insights", description="How the group is doing: hardest tasks, mistakes, activity."
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(
        period="the last 7 days (week, the default) or the last 30 (month)",
        post="Post it in the channel for everyone (default: only you see it)",
    )
    @moderator_only()  # type: ignore[operator]
    async def insights(
        self,
        interaction: Interaction,
        period: InsightsPeriodParam = InsightsPeriod.WEEK,
        post: app_commands.Transform[bool, Flag("post")] = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, ephemeral=not post) as responder:
            report = await self.bot.service.insights(guild_id, period)
            await responder.send(Reply(embeds=(insights_embed(report),)))


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(InsightsCog(bot))
