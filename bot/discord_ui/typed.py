"""A typed answer (`short` tasks): the post's Answer button opens a modal with one text input,
and its submit is graded like a click. The modal's custom_id names the post, so a submit is
routed by it (`clicks.Router` calls `submitted`) and needs nothing kept in memory: one opened
before a restart is still answered."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, Final

import discord

from bot import rendering
from bot.discord_ui import replies
from bot.discord_ui.clicks import (
    LAST_POST_FIELD,
    PostButton,
    Responder,
    member,
    send_private,
)
from bot.discord_ui.replies import Reply
from bot.i18n import N_, _, formats
from bot.quiz import engine
from bot.quiz.engine import Outcome, Status
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from bot.quiz.numeric import NOT_A_NUMBER, NotANumberError
from bot.quiz.tasks import Task
from bot.quiz.typed import MAX_TYPED

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

INPUT_ID: Final = "answer"
MODAL_TITLE: Final = 45
"""Discord's limit on a modal's title."""
BLANK: Final = N_("Type an answer first. Nothing was submitted, so no attempt was used.")
MODAL_PATTERN: Final = re.compile(r"quiz:typed:(?P<post_id>[\s\S]*)")


class TypeButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:type{LAST_POST_FIELD}",
):
    """`quiz:type:<post>`: opens the answer modal; nothing is graded until it is submitted."""

    PREFIX = "quiz:type"
    # TRANSLATORS: a button's label on a task post (at most 80 characters).
    LABEL = N_("Answer")
    EMOJI = "✏️"
    STYLE = discord.ButtonStyle.primary

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        await interaction.response.send_modal(answer_modal(self.post_id))


def answer_modal(post_id: int) -> discord.ui.Modal:
    # TRANSLATORS: a form's title and its text field's label (at most 45 characters).
    title = _("Your answer")
    modal = discord.ui.Modal(title=title, custom_id=f"quiz:typed:{post_id}", timeout=None)
    modal.add_item(
        discord.ui.TextInput(
            label=title,
            custom_id=INPUT_ID,
            max_length=MAX_TYPED,
            # TRANSLATORS: a text field's placeholder (at most 100 characters).
            placeholder=_("Type it here; only you see it"),
        )
    )
    # Stopped, so discord.py keeps no copy: `clicks.Router` routes the submit by its custom_id.
    modal.stop()
    return modal


def typed_text(components: object) -> str:
    """The text input's value from a modal submit's raw components (rows or labels)."""
    found = _value(components if isinstance(components, list) else [])
    if found is None:
        raise InvalidAnswerError("the modal has no answer input")
    if not found.strip():
        raise BlankAnswerError("a blank typed answer")
    if len(found) > MAX_TYPED:
        raise InvalidAnswerError(f"a typed answer of {len(found)} characters")
    return found


def _value(components: Iterable[Any]) -> str | None:
    for component in components:
        if not isinstance(component, dict):
            continue
        if component.get("custom_id") == INPUT_ID and isinstance(component.get("value"), str):
            return str(component["value"])
        nested = list(component.get("components") or [])
        if isinstance(component.get("component"), dict):
            nested.append(component["component"])
        if (value := _value(nested)) is not None:
            return value
    return None


def typed_reply(
    task: Task, outcome: Outcome, *, session: str | None = None, card: Any = None
) -> Reply:
    """`answer_reply` for a typed answer, saying which spelling was expected if a typo was
    forgiven (or which answer earned partial credit)."""
    # TRANSLATORS: stands for a typed answer in "Not quite: **{chosen}** isn't it."
    chosen = rendering.picked_text(task, outcome.picks) if outcome.picks else _("that")
    reply = replies.answer_reply(task, outcome, chosen, session=session, card=card)
    line = ""
    if outcome.correct and outcome.expected:
        expected = rendering.escape_markdown(rendering.truncate(outcome.expected, 100))
        line = "\n-# " + _("Accepted as **{expected}**, the expected spelling.").format(
            expected=expected
        )
    elif outcome.credit and outcome.status in (Status.WRONG, Status.FAILED, Status.REPEATED):
        # TRANSLATORS: {percent} is e.g. "50%".
        line = "\n-# " + _("That answer earns {percent} of the credit.").format(
            percent=formats.percent(float(outcome.credit))
        )
    return Reply(reply.content + line, reply.embeds) if line and reply.content else reply


@contextlib.asynccontextmanager
async def typed_refusals(
    interaction: discord.Interaction[QuizBot], blank: str = BLANK
) -> AsyncIterator[None]:
    """A modal's answer refused before any attempt is used, blank (`blank` says so) or no
    number, told privately; `clicks.Router`'s guard reports any other failure."""
    try:
        yield
    except BlankAnswerError:
        await send_private(interaction, _(blank))
    except NotANumberError:
        await send_private(interaction, _(NOT_A_NUMBER))


async def submitted(interaction: discord.Interaction[QuizBot], match: re.Match[str]) -> None:
    """The modal's submit (`MODAL_PATTERN`, registered with `clicks.Router`)."""
    data: Any = interaction.data or {}
    async with typed_refusals(interaction):
        await submit(interaction, match["post_id"], data.get("components"))


async def submit(interaction: discord.Interaction[QuizBot], post: str, components: object) -> None:
    """Grade the typed answer: a blank one is refused before any attempt is counted."""
    bot = interaction.client
    post_id = engine.post_id(post)
    picks = (typed_text(components),)
    async with Responder(interaction) as responder:
        result = await bot.service.answer(post_id, *member(interaction), picks)
        if result.outcome.recorded and not result.post.private:
            bot.live_counts.bump(post_id)
        posted = bot.service.posted_of(result.post)
        session = replies.session_of(posted)
        reply = typed_reply(posted.task, result.outcome, session=session, card=result.card)
        graded = result.outcome.picks or picks
        await responder.answered(result.outcome, graded, reply, session=session)
