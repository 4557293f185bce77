"""/leaderboard, /stats and /topics, and their embeds. The leaderboard is public, so it speaks
the server's language; /stats and /topics are private, in the member's."""

from __future__ import annotations

import asyncio
import io
import logging
import unicodedata
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering, stats_picture
from bot.clock import Period, discord_timestamp
from bot.discord_ui.clicks import Responder, context, guild_id_of
from bot.discord_ui.params import PeriodParam
from bot.discord_ui.replies import Reply
from bot.i18n import N_, _, formats, ngettext, speaking
from bot.quiz.tasks import Catalog, Difficulty
from bot.store import Leaderboard, MemberStats

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

Interaction = discord.Interaction["QuizBot"]

_DIRECTION_MARKS = dict.fromkeys(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
ISOLATE, END_ISOLATE = "\u2068", "\u2069"


TIES = N_("Ties: more solved first, then whoever reached the score first.")
PERIOD_STARTS = {
    Period.TODAY: N_("Days start at 00:00, {zone} time."),
    Period.WEEK: N_("Weeks start on Monday 00:00, {zone} time."),
}
# TRANSLATORS: the leaderboard's title (256 characters at most), one per period.
BOARD_TITLES = {
    Period.TODAY: N_("🏆 Leaderboard · today"),
    Period.WEEK: N_("🏆 Leaderboard · this week"),
    Period.ALL: N_("🏆 Leaderboard · all time"),
}


def leaderboard_footer(period: Period | str, zone: str) -> str:
    """How the board ranks and where its period starts: members see equal scores in different
    places, and a day that is not theirs, otherwise unexplained."""
    start = PERIOD_STARTS.get(Period(period))
    return f"{_(TIES)} {_(start).format(zone=zone)}" if start else _(TIES)


def shown_name(name: str, user_id: int) -> str:
    """A member's name within a line: Markdown escaped, and isolated so that a right-to-left
    name, or a direction override in it, cannot reorder the figures after it. A name with
    nothing visible in it would leave a rank without anyone: it shows as the member's id."""
    bare = name.translate(_DIRECTION_MARKS)
    if all(rendering.draws_nothing(c) or unicodedata.category(c)[0] in "CM" for c in bare):
        return _("member {id}").format(id=user_id)
    return f"{ISOLATE}{discord.utils.escape_markdown(bare)}{END_ISOLATE}"


def board_line(place: str, name: str, points: int, solved: int, *, you: bool) -> str:
    """One ranked member: `place` a medal or a bold rank, `name` as `shown_name` gives it."""
    values = {"place": place, "name": name, "points": formats.number(points)}
    if you:
        # TRANSLATORS: a leaderboard line; "pts" is short for points. "← you" marks the reader.
        text = ngettext(
            "{place} {name} · **{points}** pts · {solved} solved ← you",
            "{place} {name} · **{points}** pts · {solved} solved ← you",
            solved,
        )
    else:
        # TRANSLATORS: a leaderboard line; "pts" is short for points.
        text = ngettext(
            "{place} {name} · **{points}** pts · {solved} solved",
            "{place} {name} · **{points}** pts · {solved} solved",
            solved,
        )
    return text.format(**values, solved=formats.number(solved))


def leaderboard_embed(board: Leaderboard, period: Period | str, user_id: int) -> discord.Embed:
    """The board in the current locale (the caller speaks the server's language: it is public)."""
    title = _(BOARD_TITLES[Period(period)])
    if not board.rows:
        return discord.Embed(
            title=title,
            description=_("No points yet. Answer a quiz to be the first on the board!"),
            colour=discord.Colour.gold(),
        ).set_footer(text=leaderboard_footer(period, board.zone))
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = []
    for row in board.rows:
        who = shown_name(row.name, row.user_id)
        place = medals.get(row.rank, f"**{formats.number(row.rank)}.**")
        lines.append(board_line(place, who, row.points, row.solved, you=row.user_id == user_id))
    if board.me is None:
        lines.append("\n" + _("You have no points in this period yet."))
    elif all(row.user_id != user_id for row in board.rows):
        me = board.me
        # TRANSLATORS: the reader's own line below the top 10; "pts" is short for points.
        mine = ngettext(
            "**{rank}.** you · **{points}** pts · {solved} solved",
            "**{rank}.** you · **{points}** pts · {solved} solved",
            me.solved,
        ).format(
            rank=formats.number(me.rank),
            points=formats.number(me.points),
            solved=formats.number(me.solved),
        )
        lines.append(f"…\n{mine}")
    description = rendering.truncate("\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed = discord.Embed(title=title, description=description, colour=discord.Colour.gold())
    return embed.set_footer(text=leaderboard_footer(period, board.zone))


def stats_embed(name: str, stats: MemberStats, picture: str | None = None) -> discord.Embed:
    """The figures as text (what a screen reader reads); `picture`: the filename of an
    attachment that shows them (the /stats picture), set as the embed's image."""
    embed = discord.Embed(
        title=_("📊 Stats · {name}").format(name=discord.utils.escape_markdown(name)),
        colour=discord.Colour.blurple(),
    )
    if picture is not None:
        embed.set_image(url=f"attachment://{picture}")
    if stats.tried == 0:
        embed.description = _("No quizzes tried yet.")
        return embed
    number = formats.number
    embed.add_field(name=_("Points"), value=number(stats.points))
    if stats.practice_points:
        embed.add_field(name=_("Practice points (private)"), value=number(stats.practice_points))
    embed.add_field(
        name=_("Solved"),
        value=_("{solved} of {tried} tried").format(
            solved=number(stats.solved), tried=number(stats.tried)
        ),
    )
    embed.add_field(
        name=_("First try"),
        value=_("{count} ({rate} of tried)").format(
            count=number(stats.first_try), rate=formats.percent(stats.first_try_rate)
        ),
    )
    embed.add_field(
        name=_("Streak"),
        value=ngettext("{n} day", "{n} days", stats.streak_days).format(
            n=number(stats.streak_days)
        ),
    )
    if stats.last_active is not None:
        embed.add_field(name=_("Last active"), value=discord_timestamp(stats.last_active, "R"))
    return embed


def difficulty_count(difficulty: Difficulty, n: int) -> str:
    """"3 easy": a sentence per difficulty, so that the word agrees with the count."""
    if difficulty is Difficulty.EASY:
        text = ngettext("{n} easy", "{n} easy", n)
    elif difficulty is Difficulty.MEDIUM:
        text = ngettext("{n} medium", "{n} medium", n)
    else:
        text = ngettext("{n} hard", "{n} hard", n)
    return text.format(n=formats.number(n))


def topics_embed(catalog: Catalog) -> discord.Embed:
    embed = discord.Embed(title=_("📚 Topics"), colour=discord.Colour.blurple())
    if not len(catalog):
        embed.description = _("No task banks are loaded.")
        return embed
    per_bank: dict[tuple[str, str, str | None], Counter[Difficulty]] = defaultdict(Counter)
    for task in catalog:
        per_bank[(task.topic, task.bank, task.bank_language)][task.difficulty] += 1
    lines: list[str] = []
    for topic in catalog.topics():
        lines.append(rendering.bold(topic))
        for (bank_topic, bank, language), counter in per_bank.items():
            if bank_topic != topic:
                continue
            counts = " · ".join(difficulty_count(d, counter[d]) for d in Difficulty if counter[d])
            name = bank or _("untitled bank")
            # The language the bank's content is written in (`language:`), never translated.
            lines.append(f"• {name} · {language}: {counts}" if language else f"• {name}: {counts}")
    embed.description = rendering.truncate("\n".join(lines), rendering.EMBED_DESCRIPTION)
    # TRANSLATORS: `topic:` is /quiz's option name, which stays English; <name> may be translated.
    footer = ngettext(
        "{n} task · /quiz topic:<name> to post one",
        "{n} tasks · /quiz topic:<name> to post one",
        len(catalog),
    )
    embed.set_footer(text=footer.format(n=formats.number(len(catalog))))
    return embed


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
            with speaking(await self.bot.languages.public_locale(guild_id)):
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
