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
from bot.i18n import N_, _, formats, ngettext
from bot.quiz.engine import id_number
from bot.quiz.errors import ForgedControlError, QuizError, StoreAction
from bot.store import member_data
from bot.store.member_data import Deleted, MemberData, Span

if TYPE_CHECKING:
    from datetime import datetime

    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]

NOTHING_KEPT = N_("I keep nothing about you in this server.")
NOT_YOURS = N_("These buttons are for the member who asked. `/mydata delete` shows you your own.")


def _day(at: datetime | None) -> str:
    return discord_timestamp(at, "D") if at is not None else "?"


def _one_day(span: Span) -> bool:
    return span.first is None or span.last is None or span.first == span.last


def _tasks(n: int) -> str:
    return ngettext("{n} task", "{n} tasks", n).format(n=formats.number(n))


def _answers_line(data: MemberData) -> str:
    span, n = data.attempts, data.attempts.count
    if _one_day(span):
        text = ngettext(
            "Answers: {n} answer ({right} right), on {day}",
            "Answers: {n} answers ({right} right), on {day}",
            n,
        )
    else:
        text = ngettext(
            "Answers: {n} answer ({right} right), from {first} to {last}",
            "Answers: {n} answers ({right} right), from {first} to {last}",
            n,
        )
    return text.format(
        n=formats.number(n),
        right=formats.number(data.correct),
        day=_day(span.first),
        first=_day(span.first),
        last=_day(span.last),
    )


def _sessions_line(kind: str, span: Span) -> str:
    """`kind` "practice" or "review": each has its own sentences, as their words differ."""
    values = {
        "n": formats.number(span.count),
        "day": _day(span.first),
        "first": _day(span.first),
        "last": _day(span.last),
    }
    if kind == "practice":
        if _one_day(span):
            return _("Practice sessions: {n}, on {day}").format(**values)
        return _("Practice sessions: {n}, from {first} to {last}").format(**values)
    if _one_day(span):
        return _("Review sessions: {n}, on {day}").format(**values)
    return _("Review sessions: {n}, from {first} to {last}").format(**values)


def summary_text(data: MemberData) -> str:
    """/mydata show: every kind of row the bot keeps about the member, counted and dated."""
    if data.empty:
        return _(NOTHING_KEPT)
    name = discord.utils.escape_markdown(data.name) if data.name else _("(no name stored)")
    lines = [_("**What I keep about you in this server**")]
    if data.first_seen is not None:
        lines.append(
            _("Name: **{name}**, first seen {day}").format(name=name, day=_day(data.first_seen))
        )
    else:
        lines.append(_("Name: **{name}**").format(name=name))
    if data.attempts.count:
        lines.append(_answers_line(data))
    if data.finished:
        points = ngettext("{n} point", "{n} points", data.points).format(
            n=formats.number(data.points)
        )
        # TRANSLATORS: {points} reads "23 points".
        lines.append(
            ngettext(
                "Finished: {n} task ({solved} solved), {points} on the leaderboard",
                "Finished: {n} tasks ({solved} solved), {points} on the leaderboard",
                data.finished,
            ).format(
                n=formats.number(data.finished), solved=formats.number(data.solved), points=points
            )
        )
    if data.hints or data.solutions:
        # TRANSLATORS: {hints} and {solutions} read "2 tasks", "1 task".
        lines.append(
            _("Hints opened on {hints}, solutions on {solutions}").format(
                hints=_tasks(data.hints), solutions=_tasks(data.solutions)
            )
        )
    if data.review_cards:
        cards = formats.number(data.review_cards)
        if data.next_review:
            lines.append(
                _("Review cards: {n}, next due {when}").format(
                    n=cards, when=discord_timestamp(data.next_review, "R")
                )
            )
        else:
            lines.append(_("Review cards: {n}").format(n=cards))
    if data.reminder is not None:
        hour, zone = data.reminder
        at = f"{hour:02d}:00"  # the hour as /reminders on takes it, on the 24-hour clock
        if zone:
            lines.append(_("Review reminder: on, at {time} {zone}").format(time=at, zone=zone))
        else:
            lines.append(_("Review reminder: on, at {time} (the server’s zone)").format(time=at))
    if data.practice_sessions.count:
        lines.append(_sessions_line("practice", data.practice_sessions))
    if data.review_sessions.count:
        lines.append(_sessions_line("review", data.review_sessions))
    if data.posts:
        lines.append(
            ngettext(
                "Posted with /quiz: {n} task (the post stays in its channel; deleting removes "
                "your id from it)",
                "Posted with /quiz: {n} tasks (the posts stay in their channels; deleting "
                "removes your id from them)",
                data.posts,
            ).format(n=formats.number(data.posts))
        )
    lines.append("-# " + _("Only you see this. `/mydata delete` deletes all of it."))
    return "\n".join(lines)


def deleted_count(name: str, n: int) -> str | None:
    """"2 answers": what one table's deleted rows were, in the member's words; None for a
    table the member need not hear about (their totals, their name)."""
    match name:
        case "attempt":
            text = ngettext("{n} answer", "{n} answers", n)
        case "score":
            text = ngettext("{n} finished task", "{n} finished tasks", n)
        case "reveal":
            text = ngettext("{n} hint or solution opened", "{n} hints and solutions opened", n)
        case "review_card":
            text = ngettext("{n} review card", "{n} review cards", n)
        case "member_reminder":
            text = ngettext("{n} review reminder", "{n} review reminders", n)
        case "practice_session":
            text = ngettext(
                "{n} practice or review session", "{n} practice and review sessions", n
            )
        case "post":
            text = ngettext("{n} private task", "{n} private tasks", n)
        case "post.posted_by":
            text = ngettext(
                "{n} post made with /quiz, now without your id",
                "{n} posts made with /quiz, now without your id",
                n,
            )
        case _:
            return None
    return text.format(n=formats.number(n))


def deleted_text(deleted: Deleted) -> str:
    """The reply once it is done: what went, and that the leaderboard no longer counts it."""
    if not deleted:
        return _("Nothing to delete: I keep nothing about you in this server.")
    parts = [part for name, n in deleted.items() if (part := deleted_count(name, n))]
    if not parts:
        return _(
            "🗑️ Done: I deleted everything I kept about you in this server. Your points have "
            "left the leaderboard. If you play here again, I start afresh."
        )
    # TRANSLATORS: {what} lists what went: "1 answer, 2 finished tasks".
    return _(
        "🗑️ Done: I deleted everything I kept about you in this server ({what}). Your points "
        "have left the leaderboard. If you play here again, I start afresh."
    ).format(what=", ".join(parts))


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
            label=_(self.LABEL), style=self.STYLE, custom_id=f"{self.PREFIX}:{user_id}"
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
    # TRANSLATORS: a button (80 characters at most).
    LABEL = N_("Delete my data")
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
    # TRANSLATORS: a button (80 characters at most): keep my data, do not delete it.
    LABEL = N_("Keep it")
    STYLE = discord.ButtonStyle.secondary

    async def handle(self, interaction: Interaction) -> None:
        self.check(interaction)
        async with Responder(interaction, update=True) as responder:
            await responder.edit(content=_("Nothing was deleted."), view=None)


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
                await responder.send(content=_(NOTHING_KEPT))
                return
            await responder.send(
                content=_(
                    "This deletes everything I keep about you in this server (`/mydata show` "
                    "lists it): your answers, scores, hints and solutions opened, review cards, "
                    "reminder and sessions. Your points leave the leaderboard at once. It "
                    "cannot be undone."
                ),
                view=confirmation(interaction.user.id),
            )


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(MyDataCog(bot))
