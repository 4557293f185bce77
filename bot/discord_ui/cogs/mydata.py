"""/mydata show|delete: what the bot keeps about the member in this server, and deleting it
after a confirmation (which rows: bot/store/member_data.py). Both private.

The confirmation's buttons carry the member's id (`mydata:erase:<user>`, `mydata:keep:<user>`):
a click by anyone else, or off a private message, is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import discord
from discord import app_commands
from discord.ext import commands

from bot.clock import discord_timestamp
from bot.discord_ui.clicks import (
    Control,
    Fields,
    QuizView,
    Responder,
    guild_id_of,
    private_message_only,
)
from bot.quiz.engine import id_number
from bot.quiz.errors import ForgedControlError, QuizError, StoreAction
from bot.store import member_data
from bot.store.member_data import Deleted, MemberData, Span
from bot.wording import plural

if TYPE_CHECKING:
    from datetime import datetime

    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]

NOTHING_KEPT = "I keep nothing about you in this server."
NOT_YOURS = "These buttons are for the member who asked. `/mydata delete` shows you your own."


def _day(at: datetime | None) -> str:
    return discord_timestamp(at, "D") if at is not None else "?"


def _span(span: Span) -> str:
    if span.first is None or span.last is None or span.first == span.last:
        return f"on {_day(span.first)}"
    return f"from {_day(span.first)} to {_day(span.last)}"


def summary_text(data: MemberData) -> str:
    """/mydata show: every kind of row the bot keeps about the member, counted and dated."""
    if data.empty:
        return NOTHING_KEPT
    name = discord.utils.escape_markdown(data.name) if data.name else "(no name stored)"
    lines = ["**What I keep about you in this server**", f"Name: **{name}**"]
    if data.first_seen is not None:
        lines[-1] += f", first seen {_day(data.first_seen)}"
    if data.attempts.count:
        lines.append(
            f"Answers: {plural(data.attempts.count, 'answer')} ({data.correct:,} right), "
            f"{_span(data.attempts)}"
        )
    if data.finished:
        lines.append(
            f"Finished: {plural(data.finished, 'task')} ({data.solved:,} solved), "
            f"{plural(data.points, 'point')} on the leaderboard"
        )
    if data.hints or data.solutions:
        lines.append(
            f"Hints opened on {plural(data.hints, 'task')}, solutions on "
            f"{plural(data.solutions, 'task')}"
        )
    if data.review_cards:
        due = f", next due {discord_timestamp(data.next_review, 'R')}" if data.next_review else ""
        lines.append(f"Review cards: {data.review_cards:,}{due}")
    if data.reminder is not None:
        hour, zone = data.reminder
        lines.append(f"Review reminder: on, at {hour:02d}:00 {zone or '(the server’s zone)'}")
    for kind, span in (("practice", data.practice_sessions), ("review", data.review_sessions)):
        if span.count:
            lines.append(f"{kind.title()} sessions: {span.count:,}, {_span(span)}")
    if data.posts:
        lines.append(
            f"Posted with /quiz: {plural(data.posts, 'task')} (the posts stay in their "
            "channels; deleting removes your id from them)"
        )
    lines.append("-# Only you see this. `/mydata delete` deletes all of it.")
    return "\n".join(lines)


_DELETED_NOUNS: dict[str, tuple[str, str]] = {
    "attempt": ("answer", "answers"),
    "score": ("finished task", "finished tasks"),
    "reveal": ("hint or solution opened", "hints and solutions opened"),
    "review_card": ("review card", "review cards"),
    "member_reminder": ("review reminder", "review reminders"),
    "practice_session": ("practice or review session", "practice and review sessions"),
    "post": ("private task", "private tasks"),
    "post.posted_by": (
        "post made with /quiz, now without your id",
        "posts made with /quiz, now without your id",
    ),
}


def deleted_text(deleted: Deleted) -> str:
    """The reply once it is done: what went, and that the leaderboard no longer counts it."""
    if not deleted:
        return f"Nothing to delete: {NOTHING_KEPT}"
    parts = [
        f"{n:,} {_DELETED_NOUNS[name][n != 1]}"
        for name, n in deleted.items()
        if name in _DELETED_NOUNS
    ]
    what = f" ({', '.join(parts)})" if parts else ""
    return (
        f"🗑️ Done: I deleted everything I kept about you in this server{what}. Your points "
        "have left the leaderboard. If you play here again, I start afresh."
    )


def _member_id(text: str) -> int:
    number = id_number(text)
    if number is None:
        raise ForgedControlError()
    return number


class _Confirmation(Control):
    """A button of the delete confirmation, for the member named in its custom_id only."""

    PREFIX: ClassVar[str]
    LABEL: ClassVar[str]
    STYLE: ClassVar[discord.ButtonStyle]
    FIELDS: ClassVar[Fields] = {"user_id": _member_id}

    def __init__(self, user_id: int) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=self.LABEL, style=self.STYLE, custom_id=f"{self.PREFIX}:{user_id}"
        )
        super().__init__(button)  # type: ignore[call-arg]  # the DynamicItem's
        self.user_id = user_id

    def check(self, interaction: Interaction) -> int:
        """The server, once the click is the asking member's own on their private message."""
        private_message_only(interaction)
        if interaction.user.id != self.user_id:
            raise QuizError(NOT_YOURS)
        return guild_id_of(interaction)


class EraseButton(
    _Confirmation,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mydata:erase(?::(?P<user_id>[\s\S]*))?",
):
    PREFIX = "mydata:erase"
    LABEL = "Delete my data"
    STYLE = discord.ButtonStyle.danger

    async def handle(self, interaction: Interaction) -> None:
        guild_id = self.check(interaction)
        async with Responder(interaction, update=True) as responder:
            deleted = await interaction.client.service.run_write(
                StoreAction.DELETE, member_data.delete_member, guild_id, self.user_id
            )
            await responder.edit(content=deleted_text(deleted), view=None)


class KeepButton(
    _Confirmation,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"mydata:keep(?::(?P<user_id>[\s\S]*))?",
):
    PREFIX = "mydata:keep"
    LABEL = "Keep it"
    STYLE = discord.ButtonStyle.secondary

    async def handle(self, interaction: Interaction) -> None:
        self.check(interaction)
        async with Responder(interaction, update=True) as responder:
            await responder.edit(content="Nothing was deleted.", view=None)


def confirmation(user_id: int) -> QuizView:
    view = QuizView()
    view.add_item(EraseButton(user_id))
    view.add_item(KeepButton(user_id))
    return view


class MyDataCog(commands.Cog):
    mydata = app_commands.Group(
        name="mydata",
        description="What the bot keeps about you in this server: see it, or delete it.",
        guild_only=True,
    )

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.clicks.add(EraseButton, KeepButton)

    async def _summary(self, interaction: Interaction) -> MemberData:
        return await self.bot.service.run_read(
            member_data.member_summary, guild_id_of(interaction), interaction.user.id
        )

    @mydata.command(name="show", description="What the bot keeps about you here (only you see it).")
    async def mydata_show(self, interaction: Interaction) -> None:
        async with Responder(interaction) as responder:
            await responder.send(content=summary_text(await self._summary(interaction)))

    @mydata.command(name="delete", description="Delete what the bot keeps about you here.")
    async def mydata_delete(self, interaction: Interaction) -> None:
        async with Responder(interaction) as responder:
            data = await self._summary(interaction)
            if data.empty:
                await responder.send(content=NOTHING_KEPT)
                return
            await responder.send(
                content=(
                    "This deletes everything I keep about you in this server (`/mydata show` "
                    "lists it): your answers, scores, hints and solutions opened, review cards, "
                    "reminder and sessions. Your points leave the leaderboard at once. It "
                    "cannot be undone."
                ),
                view=confirmation(interaction.user.id),
            )


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(MyDataCog(bot))
