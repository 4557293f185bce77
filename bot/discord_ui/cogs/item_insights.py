"""/insights-tasks: which tasks work, per task and flag (moderators, private, paged); the
figures are bot/reports/items.py's, over first tries on the server's channel posts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui.checks import moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import TopicParam, ValueChoices, WholeNumber, topic_autocomplete
from bot.discord_ui.replies import Reply
from bot.reports.items import Flag, ItemsPage, page_of
from bot.wording import plural

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
FlagParam = app_commands.Transform[Flag, ValueChoices(Flag, "flag")]
PageParam = app_commands.Transform[int, WholeNumber("page", 1, 1000)]
COLOUR = discord.Colour.teal()
RULE = (
    "Each member's first try on each task, on channel posts; /practice and /review do not "
    "count. Fix a flagged task with /bank download, then /bank upload."
)


def items_embed(shown: ItemsPage, topic: str | None, flag: Flag | None) -> discord.Embed:
    what = " · ".join(x for x in (topic, flag.label if flag else None) if x)
    embed = discord.Embed(
        title=rendering.truncate(f"🔎 Tasks{f' · {what}' if what else ''}", rendering.EMBED_TITLE),
        colour=COLOUR,
        description=rendering.truncate(
            "\n\n".join(shown.entries) or "No task has answers that match yet.",
            rendering.EMBED_DESCRIPTION,
        ),
    )
    more = f" · page:{shown.page + 1} for more" if shown.page < shown.pages else ""
    embed.set_footer(
        text=f"Page {shown.page} of {shown.pages} · {plural(shown.total, 'task')}{more}\n{RULE}"
    )
    return embed


class ItemInsightsCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="insights-tasks",
        description="Which tasks work: first-try rate, discrimination, options, flags.",
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
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
        flag: FlagParam | None = None,
        page: PageParam = 1,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, ephemeral=True) as responder:
            items = await self.bot.service.item_stats(guild_id)
            shown = page_of(items, page, topic=topic or None, flag=flag)
            await responder.send(Reply(embeds=(items_embed(shown, topic or None, flag),)))


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ItemInsightsCog(bot))
