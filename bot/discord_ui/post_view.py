"""A task post as members see it: its embed, its buttons, and the live "answered · solved" footer.
All of it derives from the database; the buttons carry only ids (grammar: clicks.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar

import discord

from bot import rendering
from bot.clock import discord_timestamp
from bot.discord_ui import picker, replies
from bot.discord_ui.clicks import (
    LAST_POST_FIELD,
    AnswerButton,
    Control,
    Fields,
    QuizView,
    Responder,
    guild_id_of,
    member,
    outgoing,
    private_message_only,
)
from bot.discord_ui.multi import MultiSelect
from bot.discord_ui.typed import TypeButton
from bot.quiz import engine
from bot.quiz.errors import QuizError
from bot.quiz.tasks import MAX_ATTEMPTS, Difficulty, Kind, Task
from bot.store import PostCounts, posts

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.practice_sessions import SessionStep
    from bot.service import PostedTask

log = logging.getLogger(__name__)

DIFFICULTY_COLOURS = {
    Difficulty.EASY: discord.Colour.green(),
    Difficulty.MEDIUM: discord.Colour.gold(),
    Difficulty.HARD: discord.Colour.red(),
}
CLOSED_COLOUR = discord.Colour.dark_grey()
NO_COUNTS = PostCounts(answered=0, solved=0, first_try=0)
BUTTONS_PER_ROW = 5
HINT_ROW = 4
"""Option buttons take rows 0-3 (rendering.MAX_BUTTON_OPTIONS); Hint and Answer sit below."""


# -- the embed ---------------------------------------------------------------------------------


def counts_text(counts: PostCounts, *, closed: bool = False) -> str:
    text = f"{counts.answered} answered · {counts.solved} solved"
    return f"{text} · closed" if closed else text


def task_embed(posted: PostedTask, counts: PostCounts = NO_COUNTS) -> discord.Embed:
    """The post. The caller's extra text goes in the message content, which embed edits
    (the footer's redraw) leave alone."""
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
    if post.private:  # only the member sees it: no group counts, no leaderboard points
        kind = post.session.kind if post.session is not None else "practice"
        embed.set_footer(text=f"Private {kind} · no leaderboard points · #{post.id} {task.id}")
    else:
        embed.set_footer(text=f"{counts_text(counts, closed=closed)} · #{post.id} {task.id}")
    return embed


# -- the buttons -------------------------------------------------------------------------------


class PostButton(Control):
    """A button whose custom_id is `<PREFIX>:<post id>`, its look in class attributes."""

    PREFIX: ClassVar[str]
    LABEL: ClassVar[str]
    EMOJI: ClassVar[str | None] = None
    STYLE: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary
    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id}

    def __init__(self, post_id: int, *, row: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=self.LABEL,
            emoji=self.EMOJI,
            style=self.STYLE,
            custom_id=f"{self.PREFIX}:{post_id}",
        )
        super().__init__(button, row=row)  # type: ignore[call-arg]  # the DynamicItem's
        self.post_id = post_id


class HintButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:hint{LAST_POST_FIELD}",
):
    PREFIX = "quiz:hint"
    LABEL = "Hint (halves the points)"
    EMOJI = "💡"

    def __init__(self, post_id: int, *, label: str = LABEL, row: int | None = None) -> None:
        super().__init__(post_id, row=row)
        self.item.label = label

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        async with Responder(interaction) as responder:
            await send_hint(interaction, responder, self.post_id)


def post_hint_label(task: Task) -> str:
    """A post's Hint button, the same for every member: what one click costs."""
    count = len(task.hints)
    return HintButton.LABEL if count == 1 else f"{count} hints (each halves the points)"


async def send_hint(
    interaction: discord.Interaction[QuizBot], responder: Responder, post_id: int
) -> None:
    """The hint button and /hint: the hints seen, and a button for the next one (a ladder's)."""
    service = interaction.client.service
    hint = await service.hint(post_id, *member(interaction))
    posted = service.posted_of(hint.post)
    following = replies.next_hint(posted.task, hint)
    if following is None:
        await responder.send(replies.hint_reply(posted, hint))
        return
    view = QuizView()
    label = f"{rendering.hint_title(posted.task, following)} (halves the points)"
    view.add_item(HintButton(post_id, label=label))
    await responder.send(replies.hint_reply(posted, hint), view=view)


class OpenPickerButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:open{LAST_POST_FIELD}",
):
    PREFIX = "quiz:open"
    LABEL = "Answer"
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
    result = await service.solution(post_id, *member(interaction), confirmed=False)
    posted = service.posted_of(result.post)
    if result.access.shown:
        await responder.send(replies.solution_reply(posted, result))
    else:
        prompt = replies.Reply(replies.solution_prompt(posted))
        await responder.send(prompt, view=confirm_view(post_id))


class SolutionButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:sol{LAST_POST_FIELD}",
):
    """A private task's solution. A public post has none: there a member types /solution, so
    no one forfeits a public task with a stray click."""

    PREFIX = "quiz:sol"
    LABEL = "Solution"
    EMOJI = "📖"

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        async with Responder(interaction) as responder:
            await offer_solution(interaction, responder, self.post_id)


class ConfirmSolutionButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:reveal{LAST_POST_FIELD}",
):
    PREFIX = "quiz:reveal"
    LABEL = replies.FORFEIT_LABEL
    STYLE = discord.ButtonStyle.danger

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        service = interaction.client.service
        async with Responder(interaction, update=True) as responder:
            result = await service.solution(self.post_id, *member(interaction), confirmed=True)
            reply = replies.solution_reply(service.posted_of(result.post), result)
            await responder.edit(content=reply.content, embeds=list(reply.embeds), view=None)


class NextButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"quiz:next(?::(?P<session_id>[^:]*))?(?::(?P<shown>[\s\S]*))?",
):
    """The next task of a session, from the message showing `shown`: a second click, or one
    on an older message, cannot skip a task."""

    FIELDS: ClassVar[Fields] = {"session_id": engine.post_id, "shown": engine.post_id}
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
    picker.PageButton,
    MultiSelect,
    TypeButton,
)
"""Every control the bot routes (`clicks.Router`)."""


def post_view(posted: PostedTask) -> QuizView:
    """One button per option (or Answer, for the picker), then Hint; a private task also has
    Solution and Next."""
    task, post_id = posted.task, posted.post.id
    view = QuizView()
    if task.multi_blank:
        view.add_item(OpenPickerButton(post_id, row=0))
        _add_task_controls(view, posted, row=0)
        return view
    if task.typed:  # Answer opens a modal with one text input
        view.add_item(TypeButton(post_id, row=0))
        _add_task_controls(view, posted, row=0)
        return view
    if task.kind is Kind.MULTI:  # one select of every option; closing it submits the set
        view.add_item(MultiSelect.build(task, post_id, row=0))
        _add_task_controls(view, posted, row=1)
        return view
    for index, option in enumerate(task.options):
        view.add_item(AnswerButton.build(post_id, option, index // BUTTONS_PER_ROW, task.kind))
    hint_row = min(HINT_ROW, (len(task.options) + BUTTONS_PER_ROW - 1) // BUTTONS_PER_ROW)
    _add_task_controls(view, posted, row=hint_row)
    return view


def _add_task_controls(view: QuizView, posted: PostedTask, *, row: int) -> None:
    post_id, session_id = posted.post.id, posted.post.session_id
    if posted.task.hints:  # none: no button, and /hint says so
        view.add_item(HintButton(post_id, label=post_hint_label(posted.task), row=row))
    if session_id is not None:
        view.add_item(SolutionButton(post_id, row=row))
        view.add_item(NextButton(session_id, post_id, row=row))


def session_message(step: SessionStep) -> dict[str, Any]:
    """A practice or review step, always private: its task (embed and buttons), or the
    session's end."""
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


# -- the live footer ---------------------------------------------------------------------------

DEFAULT_INTERVAL = 5.0
MAX_RETRIES = 3


class _Result(Enum):
    DONE = "done"
    FAILED = "failed"
    GONE = "gone"


class LiveCounts:
    """The footer's counts, within Discord's edit limit: at most one edit per post per
    `interval`. The first answer after a quiet spell edits at once, later ones mark the post
    dirty for its one task; the mark is cleared before the read, so the last state is written.
    """

    def __init__(
        self,
        bot: QuizBot,
        *,
        interval: float = DEFAULT_INTERVAL,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self._bot = bot
        self.interval = interval
        self._sleep = sleep  # tests pass one they control
        self._running: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()
        self.edits = 0

    def bump(self, post_id: int) -> None:
        """Note that a post's counts changed; cheap, never waits."""
        if post_id in self._running:
            self._dirty.add(post_id)
            return
        task = asyncio.create_task(self._run(post_id), name=f"quizbot-live-counts-{post_id}")
        self._running[post_id] = task

    async def _run(self, post_id: int) -> None:
        failures = 0
        try:
            while True:
                self._dirty.discard(post_id)
                result = await self._redraw(post_id)
                if result is _Result.GONE:
                    return
                if result is _Result.FAILED:
                    failures += 1
                    if failures < MAX_RETRIES:  # a retry after the interval, not a hot loop
                        self._dirty.add(post_id)
                await self._sleep(self.interval)
                if post_id not in self._dirty:
                    return
        finally:
            self._running.pop(post_id, None)
            self._dirty.discard(post_id)

    async def _redraw(self, post_id: int) -> _Result:
        service = self._bot.service
        try:
            posted = await service.posted(post_id)
            post = posted.post
            if post.message_id is None:
                return _Result.GONE
            counts = await service.run_read(posts.post_counts, post_id)
            message = self._bot.get_partial_messageable(
                post.channel_id, guild_id=post.guild_id
            ).get_partial_message(post.message_id)
            await message.edit(**outgoing(embed=task_embed(posted, counts)))
            self.edits += 1
        except (discord.NotFound, QuizError):
            return _Result.GONE  # the message (or post, or task) is gone
        except discord.HTTPException as exc:
            log.warning("could not update the counts of post %s: %s", post_id, exc)
            return _Result.FAILED
        except Exception:
            log.exception("could not update the counts of post %s", post_id)
            return _Result.FAILED
        return _Result.DONE

    async def drain(self) -> None:
        """Wait for every pending update, including the final redraws."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
