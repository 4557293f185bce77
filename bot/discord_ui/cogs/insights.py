"""/insights: the group's hardest tasks, misconceptions and participation (moderators); figures
from bot/reports/insights.py. Private unless posted: it names tasks, never members."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui.checks import moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import Flag, ValueChoices
from bot.discord_ui.replies import Reply
from bot.reports.insights import Insights, InsightsPeriod
from bot.wording import plural

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
InsightsPeriodParam = app_commands.Transform[
    InsightsPeriod, ValueChoices(InsightsPeriod, "period")
]
COLOUR = discord.Colour.teal()


HARDEST = ("Hardest tasks (lowest first-try rate)", "Hardest tasks (continued)")
MISCONCEPTIONS = ("Misconceptions (≥ 20% of a task's answerers)", "Misconceptions (continued)")
PARTICIPATION = "Participation"
PER_DAY = "Per day"

Field = tuple[str, str]
"""(name, value) of an embed field."""


def insights_embed(report: Insights) -> discord.Embed:
    """The report within one embed's limits. Participation (and the week's table) is short and
    always shows; the task lists take the rest of the 6,000 characters and 25 fields, as many
    fields each as they need, whole tasks only, and say how many tasks did not fit."""
    limit = rendering.EMBED_FIELD_VALUE
    embed = discord.Embed(
        title=f"🔎 Insights · {report.period.label}",
        colour=COLOUR,
        description=(
            f"{report.first_day:%a %d %b %Y} to {report.last_day:%a %d %b %Y}, "
            "in the server's time zone."
        ),
    )
    tail: list[Field] = [(PARTICIPATION, rendering.truncate(report.participation_text(), limit))]
    if report.period is InsightsPeriod.WEEK and report.attempts:
        tail.append((PER_DAY, rendering.truncate(report.day_table(), limit)))
    room = rendering.EMBED_TOTAL - _size(embed.title or "", embed.description or "", *tail)
    slots = rendering.EMBED_FIELDS - len(tail)
    # The hardest list is at most five lines, so it goes first; the reserve still guarantees
    # the misconceptions a full field however long the titles are.
    reserve = rendering.discord_len(MISCONCEPTIONS[0]) + limit
    hardest = _pack(
        report.hardest_entries() or [report.hardest_text()], HARDEST, room - reserve, slots - 1
    )
    room -= _size(*hardest)
    slots -= len(hardest)
    withheld = report.withheld_text()
    mistakes = _pack(
        [*report.misconception_entries(), *([withheld] if withheld else [])]
        if report.misconceptions
        else [report.misconceptions_text()],
        MISCONCEPTIONS,
        room,
        slots,
        unshown=report.unshown,
    )
    for name, value in [*hardest, *mistakes, *tail]:
        embed.add_field(name=name, value=value, inline=False)
    return embed


def _size(*texts: str | Field) -> int:
    return sum(
        rendering.discord_len(t) if isinstance(t, str) else _size(*t) for t in texts
    )


def _pack(
    entries: Sequence[str], names: tuple[str, str], room: int, slots: int, unshown: int = 0
) -> list[Field]:
    """Fields holding the first entries that fit in `room` characters (names included) and
    `slots` fields, then a "+N more tasks" line for the rest and the `unshown` tasks the
    report left out already. Each entry fits a field alone. `names` are the first field's
    and the others'."""
    for shown in range(len(entries), 0, -1):
        fields = _layout(entries[:shown], len(entries) - shown + unshown, names)
        if len(fields) <= slots and _size(*fields) <= room:
            return fields
    return _layout([], len(entries) + unshown, names)


def _layout(entries: Sequence[str], hidden: int, names: tuple[str, str]) -> list[Field]:
    lines = [*entries, f"+{plural(hidden, 'more task')}"] if hidden else list(entries)
    values: list[list[str]] = [[]]
    for line in lines:
        if values[-1] and _size("\n".join([*values[-1], line])) > rendering.EMBED_FIELD_VALUE:
            values.append([])
        values[-1].append(line)
    return [(names[n > 0], "\n".join(value)) for n, value in enumerate(values)]


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
    @moderator_only()
    async def insights(
        self,
        interaction: Interaction,
        period: InsightsPeriodParam = InsightsPeriod.WEEK,
        post: app_commands.Transform[bool, Flag("post")] = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, ephemeral=not post) as responder:
            report = await self.bot.service.insights(guild_id, period, public=post)
            await responder.send(Reply(embeds=(insights_embed(report),)))


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(InsightsCog(bot))
