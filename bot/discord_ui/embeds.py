"""Public embeds: the task post (with its live counts) and the standings."""

from __future__ import annotations

import unicodedata
from collections import Counter, defaultdict

import discord

from bot import rendering
from bot.clock import Period, discord_timestamp
from bot.quiz.tasks import MAX_ATTEMPTS, Catalog, Difficulty
from bot.service import PostedTask
from bot.store import Leaderboard, MemberStats, PostCounts

DIFFICULTY_COLOURS = {
    Difficulty.EASY: discord.Colour.green(),
    Difficulty.MEDIUM: discord.Colour.gold(),
    Difficulty.HARD: discord.Colour.red(),
}
CLOSED_COLOUR = discord.Colour.dark_grey()
NO_COUNTS = PostCounts(answered=0, solved=0, first_try=0)
_DIRECTION_MARKS = dict.fromkeys(
    [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
ISOLATE, END_ISOLATE = "\u2068", "\u2069"


def counts_text(counts: PostCounts, *, closed: bool = False) -> str:
    text = f"{counts.answered} answered · {counts.solved} solved"
    return f"{text} · closed" if closed else text


def task_embed(posted: PostedTask, counts: PostCounts = NO_COUNTS) -> discord.Embed:
    """The post. Everything in it derives from the database, so the live-count updater (or a
    restarted bot) can redraw it exactly; the caller's extra text goes in the message content,
    which embed edits leave alone."""
    task, post, closed = posted.task, posted.post, posted.closed
    embed = discord.Embed(
        title=rendering.task_title(task),
        description=rendering.task_description(task),
        colour=CLOSED_COLOUR if closed else DIFFICULTY_COLOURS[task.difficulty],
    )
    embed.add_field(name="Topic", value=task.topic)
    embed.add_field(
        name="Difficulty", value=f"{task.difficulty.value} · {task.difficulty.points} pts"
    )
    embed.add_field(name="Attempts", value=f"{MAX_ATTEMPTS} attempts each")
    if post.closes_at is not None and not closed:
        embed.add_field(name="Closes", value=discord_timestamp(post.closes_at, "R"), inline=False)
    if post.private:
        # Only the member sees it: no group counts, and no points on the leaderboard.
        kind = post.session.kind if post.session is not None else "practice"
        embed.set_footer(text=f"Private {kind} · no leaderboard points · #{post.id} {task.id}")
    else:
        embed.set_footer(text=f"{counts_text(counts, closed=closed)} · #{post.id} {task.id}")
    return embed


TIES = "Ties: more solved first, then whoever reached the score first."
PERIOD_STARTS = {
    Period.TODAY: "Days start at 00:00, {zone} time.",
    Period.WEEK: "Weeks start on Monday 00:00, {zone} time.",
}


def leaderboard_footer(period: Period | str, zone: str) -> str:
    """How the board ranks and where its period starts: members see equal scores in different
    places, and a day that is not theirs, otherwise unexplained."""
    start = PERIOD_STARTS.get(Period(period))
    return f"{TIES} {start.format(zone=zone)}" if start else TIES


def shown_name(name: str, user_id: int) -> str:
    """A member's name within a line: Markdown escaped, and isolated so that a right-to-left
    name, or a direction override in it, cannot reorder the figures after it. A name with
    nothing visible in it would leave a rank without anyone: it shows as the member's id."""
    bare = name.translate(_DIRECTION_MARKS)
    if all(rendering.draws_nothing(c) or unicodedata.category(c)[0] in "CM" for c in bare):
        return f"member {user_id}"
    return f"{ISOLATE}{discord.utils.escape_markdown(bare)}{END_ISOLATE}"


def leaderboard_embed(board: Leaderboard, period: Period | str, user_id: int) -> discord.Embed:
    title = f"🏆 Leaderboard · {Period(period).label}"
    if not board.rows:
        return discord.Embed(
            title=title,
            description="No points yet. Answer a quiz to be the first on the board!",
            colour=discord.Colour.gold(),
        ).set_footer(text=leaderboard_footer(period, board.zone))
    medals = {1: "🥇", 2: "🥈", 3: "🥉"}
    lines = []
    for row in board.rows:
        who = shown_name(row.name, row.user_id)
        mark = " ← you" if row.user_id == user_id else ""
        place = medals.get(row.rank, f"**{row.rank}.**")
        lines.append(f"{place} {who} · **{row.points}** pts · {row.solved} solved{mark}")
    if board.me is None:
        lines.append("\nYou have no points in this period yet.")
    elif all(row.user_id != user_id for row in board.rows):
        me = board.me
        lines.append(f"…\n**{me.rank}.** you · **{me.points}** pts · {me.solved} solved")
    description = rendering.truncate("\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed = discord.Embed(title=title, description=description, colour=discord.Colour.gold())
    return embed.set_footer(text=leaderboard_footer(period, board.zone))


def stats_embed(name: str, stats: MemberStats, picture: str | None = None) -> discord.Embed:
    """The figures as text (what a screen reader reads); `picture`: the filename of an
    attachment that shows them (the /stats picture), set as the embed's image."""
    embed = discord.Embed(
        title=f"📊 Stats · {discord.utils.escape_markdown(name)}", colour=discord.Colour.blurple()
    )
    if picture is not None:
        embed.set_image(url=f"attachment://{picture}")
    if stats.tried == 0:
        embed.description = "No quizzes tried yet."
        return embed
    embed.add_field(name="Points", value=str(stats.points))
    if stats.practice_points:
        embed.add_field(name="Practice points (private)", value=str(stats.practice_points))
    embed.add_field(name="Solved", value=f"{stats.solved} of {stats.tried} tried")
    embed.add_field(
        name="First try", value=f"{stats.first_try} ({stats.first_try_rate:.0%} of tried)"
    )
    embed.add_field(
        name="Streak", value=f"{stats.streak_days} day{'' if stats.streak_days == 1 else 's'}"
    )
    if stats.last_active is not None:
        embed.add_field(name="Last active", value=discord_timestamp(stats.last_active, "R"))
    return embed


def topics_embed(catalog: Catalog) -> discord.Embed:
    embed = discord.Embed(title="📚 Topics", colour=discord.Colour.blurple())
    if not len(catalog):
        embed.description = "No task banks are loaded."
        return embed
    per_bank: dict[tuple[str, str], Counter[Difficulty]] = defaultdict(Counter)
    for task in catalog:
        per_bank[(task.topic, task.bank)][task.difficulty] += 1
    lines: list[str] = []
    for topic in catalog.topics():
        lines.append(rendering.bold(topic))
        for (bank_topic, bank), counter in per_bank.items():
            if bank_topic != topic:
                continue
            counts = " · ".join(f"{counter[d]} {d.value}" for d in Difficulty if counter[d])
            lines.append(f"• {bank or 'untitled bank'}: {counts}")
    embed.description = rendering.truncate("\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed.set_footer(text=f"{len(catalog)} tasks · /quiz topic:<name> to post one")
    return embed
