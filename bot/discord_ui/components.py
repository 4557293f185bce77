"""The buttons on a task post, and the solution confirmation: DynamicItems that outlive restarts.

Each custom_id carries the post id (and the option): `from_custom_id` only parses it, and the
callback loads everything else from the database through the service. Nothing is kept in
memory, so a button posted last week by another process works the same as a fresh one.

    quiz:ans:<post>:<option>        answer a choice or single-blank task, e.g. quiz:ans:42:B
    quiz:hint:<post>                private hint
    quiz:open:<post>                open the private picker (fill tasks with 2+ blanks)
    quiz:pick:<post>:<blank>:<picks>  one blank's select in the picker, e.g. quiz:pick:42:2:A-
    quiz:submit:<post>:<picks>      submit the picker's picks, e.g. quiz:submit:42:AC
    quiz:sol:<post>                 a private practice or review task's Solution button
    quiz:reveal:<post>              confirm /solution before finishing (forfeits attempts)
    quiz:next:<session>:<post>      the next task of a private practice or review session,
                                    from the message showing its task <post> (a Next of an
                                    older message is refused, not a second step; a custom_id
                                    from before 0.2 has no <post> and is not checked)

<post> is a post's id (1 to 2**63 - 1, ASCII digits), <session> a practice session's id (the
same form), <option> an option letter A-Z, <blank> a
blank number 1-5, <picks> one character per blank of a task with 2 to 5 blanks: its option
letter, or "-" while unpicked. The pick, submit, sol, reveal and next controls only ever sit on
the member's private (ephemeral) messages. A private practice task's buttons are a post's own (its
post id): the store refuses anyone but the session's owner, and any click once it has ended.

A custom_id can be forged, so each item's template matches ANY id with its prefix and number of
fields, and its `FIELDS` parse them (`clicks.Control`): one that does not parse gets a private
refusal. The bot routes clicks to these classes itself (`clicks.Router`): they are not
registered with discord.py, and no view we send is kept by it (`replies.detached`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Self

import discord

from bot import rendering
from bot.discord_ui import picker, replies
from bot.discord_ui.clicks import Control, Fields
from bot.discord_ui.embeds import task_embed
from bot.discord_ui.errors import (
    QuizView,
    guild_id_of,
    member_name,
    private_message_only,
)
from bot.discord_ui.replies import Responder
from bot.quiz import refs
from bot.quiz.tasks import Kind, Option

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.practice_sessions import SessionStep
    from bot.service import PostedTask

_POST = r"(?::(?P<post_id>[^:]*))?"
"""A post id field followed by more fields; the last field of a template takes the rest.
Every field is optional in the pattern, so a forged custom_id with fields missing still reaches
its item, which refuses it privately (an unmatched one would get no reply at all)."""
_LAST_POST = r"(?::(?P<post_id>[\s\S]*))?"
BUTTONS_PER_ROW = 5
HINT_ROW = 4
"""Option buttons take rows 0-3 (rendering.MAX_BUTTON_OPTIONS); Hint and Answer sit below."""


class PostButton(Control):
    """A button whose custom_id is `<PREFIX>:<post id>`, its look in class attributes: it
    carries nothing but the post's id, and everything else is loaded."""

    PREFIX: ClassVar[str]
    LABEL: ClassVar[str]
    EMOJI: ClassVar[str | None] = None
    STYLE: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary
    FIELDS: ClassVar[Fields] = {"post_id": refs.post_id}

    def __init__(self, post_id: int, *, row: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=self.LABEL,
            emoji=self.EMOJI,
            style=self.STYLE,
            custom_id=f"{self.PREFIX}:{post_id}",
        )
        super().__init__(button, row=row)  # type: ignore[call-arg]  # the DynamicItem's
        self.post_id = post_id


class AnswerButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:ans{_POST}(?::(?P<option>[\s\S]*))?",
):
    FIELDS: ClassVar[Fields] = {"post_id": refs.post_id, "option": refs.option_label}

    def __init__(
        self, post_id: int, option: str, *, label: str | None = None, row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or option,
                style=discord.ButtonStyle.secondary,
                custom_id=f"quiz:ans:{post_id}:{option}",
            ),
            row=row,
        )
        self.post_id = post_id
        self.option = option

    @classmethod
    def build(cls, post_id: int, option: Option, row: int, kind: Kind = Kind.CHOICE) -> Self:
        label = rendering.option_button_label(option, kind)
        return cls(post_id, option.label, label=label, row=row)

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        bot = interaction.client
        picks = (self.option,)
        async with Responder(interaction) as responder:
            result = await bot.service.answer(
                self.post_id,
                guild_id_of(interaction),
                interaction.user.id,
                member_name(interaction),
                picks,
            )
            if result.outcome.recorded and not result.post.private:
                bot.live_counts.bump(self.post_id)
            posted = bot.service.posted_of(result.post)
            task = posted.task
            chosen = rendering.picked_text(task, picks)
            session = replies.session_of(posted)
            reply = replies.answer_reply(
                task, result.outcome, chosen, session=session, card=result.card
            )
            await responder.answered(result.outcome, picks, reply, session=session)


class HintButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:hint{_LAST_POST}",
):
    PREFIX = "quiz:hint"
    LABEL = "Hint (halves the points)"
    EMOJI = "💡"

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        service = interaction.client.service
        async with Responder(interaction) as responder:
            hint = await service.hint(
                self.post_id,
                guild_id_of(interaction),
                interaction.user.id,
                member_name(interaction),
            )
            await responder.send(replies.hint_reply(service.posted_of(hint.post), hint))


class OpenPickerButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:open{_LAST_POST}",
):
    PREFIX = "quiz:open"
    LABEL = 'Answer'
    EMOJI = "✏️"
    STYLE = discord.ButtonStyle.primary

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        await picker.open_picker(interaction, self.post_id)


async def offer_solution(
    interaction: discord.Interaction[QuizBot], responder: Responder, post_id: int
) -> None:
    """/solution and a private task's Solution button: the worked solution, or first the
    confirmation that it forfeits the remaining attempts (`engine.open_solution` decides)."""
    service = interaction.client.service
    result = await service.solution(
        post_id,
        guild_id_of(interaction),
        interaction.user.id,
        member_name(interaction),
        confirmed=False,
    )
    posted = service.posted_of(result.post)
    if result.access.shown:
        await responder.send(replies.solution_reply(posted, result))
    else:
        prompt = replies.Reply(replies.solution_prompt(posted))
        await responder.send(prompt, view=confirm_view(post_id))


class SolutionButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:sol{_LAST_POST}",
):
    """A private practice or review task's solution. A public post has none: there a member
    types /solution, so no one forfeits a public task with a stray click."""

    PREFIX = "quiz:sol"
    LABEL = 'Solution'
    EMOJI = "📖"

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        async with Responder(interaction) as responder:
            await offer_solution(interaction, responder, self.post_id)


class ConfirmSolutionButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:reveal{_LAST_POST}",
):
    PREFIX = "quiz:reveal"
    LABEL = replies.FORFEIT_LABEL
    STYLE = discord.ButtonStyle.danger

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        service = interaction.client.service
        async with Responder(interaction, update=True) as responder:
            result = await service.solution(
                self.post_id,
                guild_id_of(interaction),
                interaction.user.id,
                member_name(interaction),
                confirmed=True,
            )
            reply = replies.solution_reply(service.posted_of(result.post), result)
            await responder.edit(content=reply.content, embeds=list(reply.embeds), view=None)


class NextButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"quiz:next(?::(?P<session_id>[^:]*))?(?::(?P<shown>[\s\S]*))?",
):
    """The next task of a private practice or review session: the session's id and the post
    the message shows, so a second click, or one on an older message, cannot skip a task."""

    FIELDS: ClassVar[Fields] = {"session_id": refs.post_id, "shown": refs.post_id}
    OPTIONAL = frozenset({"shown"})

    def __init__(self, session_id: int, shown: int | None, *, row: int | None = None) -> None:
        suffix = "" if shown is None else f":{shown}"
        super().__init__(
            discord.ui.Button(
                label="Next",
                emoji="⏭️",
                style=discord.ButtonStyle.primary,
                custom_id=f"quiz:next:{session_id}{suffix}",
            ),
            row=row,
        )
        self.session_id = session_id
        self.shown = shown

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        service = interaction.client.service
        async with Responder(interaction) as responder:
            step = await service.sessions.next(
                self.session_id,
                guild_id_of(interaction),
                interaction.channel_id or 0,
                interaction.user.id,
                shown=self.shown,
            )
            await responder.send(**session_message(step))


DYNAMIC_ITEMS: tuple[type[Control], ...] = (
    AnswerButton,
    HintButton,
    OpenPickerButton,
    SolutionButton,
    ConfirmSolutionButton,
    NextButton,
    picker.BlankSelect,
    picker.SubmitButton,
)


def post_view(posted: PostedTask) -> QuizView:
    """The post's buttons: one per option (or Answer for the picker), then Hint; a private
    practice or review task also has Solution and Next, beside Hint."""
    post_id = posted.post.id
    view = QuizView()
    if posted.task.multi_blank:
        view.add_item(OpenPickerButton(post_id, row=0))
        _add_task_controls(view, posted, row=0)
        return view
    options = posted.task.options
    for index, option in enumerate(options):
        row = index // BUTTONS_PER_ROW
        view.add_item(AnswerButton.build(post_id, option, row, posted.task.kind))
    hint_row = min(HINT_ROW, (len(options) + BUTTONS_PER_ROW - 1) // BUTTONS_PER_ROW)
    _add_task_controls(view, posted, row=hint_row)
    return view


def _add_task_controls(view: QuizView, posted: PostedTask, *, row: int) -> None:
    post_id, session_id = posted.post.id, posted.post.session_id
    view.add_item(HintButton(post_id, row=row))
    if session_id is not None:
        view.add_item(SolutionButton(post_id, row=row))
        view.add_item(NextButton(session_id, post_id, row=row))


def session_message(step: SessionStep) -> dict[str, Any]:
    """A practice or review step as a private message: its task (a post's embed and buttons,
    with Next), or the session's end (its summary; for a review, when the next one is due).
    Always ephemeral: nothing of a session is ever shown in the channel."""
    text = replies.session_text(step)
    if step.posted is None:
        return {"content": text, "embeds": [], "allowed_mentions": discord.AllowedMentions.none()}
    return {
        "content": text,
        "embeds": [task_embed(step.posted)],
        "view": post_view(step.posted),
        "allowed_mentions": discord.AllowedMentions.none(),
    }


def confirm_view(post_id: int) -> QuizView:
    view = QuizView()
    view.add_item(ConfirmSolutionButton(post_id))
    return view
