"""/insights (moderators): `overview`, the group's hardest tasks, misconceptions and
participation (bot/reports/insights.py), private unless posted: it names tasks, never members;
`tasks`, which tasks work, per task and flag (bot/reports/items.py, over first tries on the
server's channel posts), private and paged. One group: Discord forbids a command and a group
of the same name. Private replies speak the moderator's language; a posted overview, the
server's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui.checks import moderator_group, moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import (
    Flag,
    TopicParam,
    ValueChoices,
    WholeNumber,
    topic_autocomplete,
)
from bot.discord_ui.replies import Reply
from bot.i18n import N_, _, current_locale, formats, ngettext, speaking
from bot.reports import items
from bot.reports.insights import Insights, InsightsPeriod
from bot.reports.items import ItemsPage, page_of

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
InsightsPeriodParam = app_commands.Transform[InsightsPeriod, ValueChoices(InsightsPeriod, "period")]
ItemFlagParam = app_commands.Transform[items.Flag, ValueChoices(items.Flag, "flag")]
PageParam = app_commands.Transform[int, WholeNumber("page", 1, 1000)]
COLOUR = discord.Colour.teal()
RULE = N_(
    "Each member's first try on each task, on channel posts; /practice and /review do not "
    "count. Fix a flagged task with /bank download, then /bank upload."
)

# TRANSLATORS: the /insights overview's field names (256 characters at most); "(continued)"
# names the next field of a list that did not fit one.
HARDEST = (N_("Hardest tasks (lowest first-try rate)"), N_("Hardest tasks (continued)"))
MISCONCEPTIONS = (
    N_("Misconceptions (a fifth or more of a task's answerers)"),
    N_("Misconceptions (continued)"),
)
PARTICIPATION = N_("Participation")
PER_DAY = N_("Per day")

Field = tuple[str, str]
"""(name, value) of an embed field."""


def insights_embed(report: Insights) -> discord.Embed:
    """The report within one embed's limits. Participation (and the week's table) is short and
    always shows; the task lists take the rest of the 6,000 characters and 25 fields, as many
    fields each as they need, whole tasks only, and say how many tasks did not fit."""
    limit = rendering.EMBED_FIELD_VALUE
    # TRANSLATORS: a CLDR date pattern ("Sun 02 Mar 2025"): reorder the fields and add
    # punctuation as your language writes dates; the letters must stay Latin.
    pattern = _("EEE dd MMM y")
    embed = discord.Embed(
        # TRANSLATORS: {period} reads "the last 7 days".
        title=_("🔎 Insights · {period}").format(period=report.period.label),
        colour=COLOUR,
        description=_("{first} to {last}, in the server's time zone.").format(
            first=formats.pattern_date(report.first_day, pattern),
            last=formats.pattern_date(report.last_day, pattern),
        ),
    )
    hardest_names = (_(HARDEST[0]), _(HARDEST[1]))
    mistake_names = (_(MISCONCEPTIONS[0]), _(MISCONCEPTIONS[1]))
    participation = rendering.truncate(report.participation_text(), limit)
    tail: list[Field] = [(_(PARTICIPATION), participation)]
    if report.period is InsightsPeriod.WEEK and report.attempts:
        tail.append((_(PER_DAY), rendering.truncate(report.day_table(), limit)))
    room = rendering.EMBED_TOTAL - _size(embed.title or "", embed.description or "", *tail)
    slots = rendering.EMBED_FIELDS - len(tail)
    # The hardest list is at most five lines, so it goes first; the reserve still guarantees
    # the misconceptions a full field however long the titles are.
    reserve = rendering.discord_len(mistake_names[0]) + limit
    hardest = _pack(
        report.hardest_entries() or [report.hardest_text()],
        hardest_names,
        room - reserve,
        slots - 1,
    )
    room -= _size(*hardest)
    slots -= len(hardest)
    withheld = report.withheld_text()
    mistakes = _pack(
        [*report.misconception_entries(), *([withheld] if withheld else [])]
        if report.misconceptions
        else [report.misconceptions_text()],
        mistake_names,
        room,
        slots,
        unshown=report.unshown,
    )
    for name, value in [*hardest, *mistakes, *tail]:
        embed.add_field(name=name, value=value, inline=False)
    return embed


def _size(*texts: str | Field) -> int:
    return sum(rendering.discord_len(t) if isinstance(t, str) else _size(*t) for t in texts)


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
    more = ngettext("+{n} more task", "+{n} more tasks", hidden).format(n=formats.number(hidden))
    lines = [*entries, more] if hidden else list(entries)
    values: list[list[str]] = [[]]
    for line in lines:
        if values[-1] and _size("\n".join([*values[-1], line])) > rendering.EMBED_FIELD_VALUE:
            values.append([])
        values[-1].append(line)
    return [(names[n > 0], "\n".join(value)) for n, value in enumerate(values)]


def items_embed(shown: ItemsPage, topic: str | None, flag: items.Flag | None) -> discord.Embed:
    what = " · ".join(x for x in (topic, _(flag.label) if flag else None) if x)
    # TRANSLATORS: {what} is a topic and/or a flag: "Git · too hard".
    title = _("🔎 Tasks · {what}").format(what=what) if what else _("🔎 Tasks")
    embed = discord.Embed(
        title=rendering.truncate(title, rendering.EMBED_TITLE),
        colour=COLOUR,
        description=rendering.truncate(
            "\n\n".join(shown.entries) or _("No task has answers that match yet."),
            rendering.EMBED_DESCRIPTION,
        ),
    )
    page = ngettext(
        "Page {page} of {pages} · {n} task", "Page {page} of {pages} · {n} tasks", shown.total
    ).format(
        page=formats.number(shown.page),
        pages=formats.number(shown.pages),
        n=formats.number(shown.total),
    )
    if shown.page < shown.pages:
        # TRANSLATORS: `page:` is the command's option name, which stays English.
        page += " · " + _("page:{next} for more").format(next=shown.page + 1)
    embed.set_footer(text=f"{page}\n{_(RULE)}")
    return embed


class InsightsCog(commands.Cog):
    insights = moderator_group("insights", "How the group is doing, and which tasks work.")

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @insights.command(
        name="overview", description="How the group is doing: hardest tasks, mistakes, activity."
    )
    @app_commands.describe(
        period="the last 7 days (week, the default) or the last 30 (month)",
        post="Post it in the channel for everyone (default: only you see it)",
    )
    @moderator_only()
    async def insights_overview(
        self,
        interaction: Interaction,
        period: InsightsPeriodParam = InsightsPeriod.WEEK,
        post: app_commands.Transform[bool, Flag("post")] = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, ephemeral=not post) as responder:
            # Posted, it is the group's: in the server's language, like the leaderboard.
            public = await self.bot.languages.public_locale(guild_id) if post else None
            with speaking(public or current_locale()):
                report = await self.bot.service.insights(guild_id, period, public=post)
                embed = insights_embed(report)
            await responder.send(Reply(embeds=(embed,)))

    @insights.command(
        name="tasks",
        description="Which tasks work: first-try rate, discrimination, options, flags.",
    )
    @app_commands.describe(
        topic="Only tasks of this topic",
        flag="Only tasks with this flag",
        page="Which page (8 tasks each, flagged first)",
    )
    @app_commands.autocomplete(topic=topic_autocomplete)
    @moderator_only()
    async def insights_tasks(
        self,
        interaction: Interaction,
        topic: TopicParam | None = None,
        flag: ItemFlagParam | None = None,
        page: PageParam = 1,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, ephemeral=True) as responder:
            stats = await self.bot.service.item_stats(guild_id)
            shown = page_of(stats, page, topic=topic or None, flag=flag)
            await responder.send(Reply(embeds=(items_embed(shown, topic or None, flag),)))


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(InsightsCog(bot))
