"""A task post as members see it: its embed, its buttons, and the live "answered · solved" footer.
All of it derives from the database; the buttons carry only ids (grammar: clicks.py). Rendered
in the current locale: a public post's sender speaks the server's language (`ServerLanguages`
says which: `posting`, the scheduler, and the footer's redraw here), a private one the member's."""

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
from bot.discord_ui import cloze, picker, replies
from bot.discord_ui.clicks import (
    LAST_POST_FIELD,
    AnswerButton,
    Control,
    Fields,
    PostButton,
    QuizView,
    Responder,
    guild_id_of,
    member,
    outgoing,
    private_message_only,
)
from bot.discord_ui.multi import MultiSelect
from bot.discord_ui.typed import TypeButton
from bot.i18n import N_, _, formats, ngettext, server_locale, speaking
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
    # TRANSLATORS: a post's live counts in its footer, joined by " · ": "12 answered".
    answered = ngettext("{n} answered", "{n} answered", counts.answered)
    solved = ngettext("{n} solved", "{n} solved", counts.solved)
    parts = [
        answered.format(n=formats.number(counts.answered)),
        solved.format(n=formats.number(counts.solved)),
    ]
    if closed:
        # TRANSLATORS: in a post's footer: it takes no more answers.
        parts.append(_("closed"))
    return " · ".join(parts)


def task_embed(posted: PostedTask, counts: PostCounts = NO_COUNTS) -> discord.Embed:
    """The post. The caller's extra text goes in the message content, which embed edits
    (the footer's redraw) leave alone."""
    task, post, closed = posted.task, posted.post, posted.closed
    embed = discord.Embed(
        title=rendering.task_title(task),
        description=rendering.task_description(task),
        colour=CLOSED_COLOUR if closed else DIFFICULTY_COLOURS[task.difficulty],
    )
    embed.add_field(name=_("Topic"), value=task.topic)
    points = task.difficulty.points
    # The difficulty's msgid is the commands' choice's own ("easy").
    worth = ngettext("{difficulty} · {n} pt", "{difficulty} · {n} pts", points)
    embed.add_field(
        name=_("Difficulty"),
        value=worth.format(difficulty=_(task.difficulty.value), n=formats.number(points)),
    )
    attempts = ngettext("{n} attempt each", "{n} attempts each", MAX_ATTEMPTS)
    embed.add_field(name=_("Attempts"), value=attempts.format(n=MAX_ATTEMPTS))
    if post.closes_at is not None and not closed:
        # TRANSLATORS: an embed field's name: when the daily quiz stops taking answers.
        closes = _("Closes")
        embed.add_field(name=closes, value=discord_timestamp(post.closes_at, "R"), inline=False)
    if post.private:  # only the member sees it: no group counts, no leaderboard points
        review = post.session is not None and post.session.kind == "review"
        if review:
            footer = _("Private review · no leaderboard points · #{post} {task}")
        else:
            footer = _("Private practice · no leaderboard points · #{post} {task}")
        embed.set_footer(text=footer.format(post=post.id, task=task.id))
    else:
        embed.set_footer(text=f"{counts_text(counts, closed=closed)} · #{post.id} {task.id}")
    return embed


# -- the buttons -------------------------------------------------------------------------------


class HintButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:hint{LAST_POST_FIELD}",
):
    PREFIX = "quiz:hint"
    # TRANSLATORS: a button (at most 80 characters): one hint halves the points still open.
    LABEL = N_("Hint (halves the points)")
    EMOJI = "💡"

    def __init__(self, post_id: int, *, label: str | None = None, row: int | None = None) -> None:
        super().__init__(post_id, row=row)
        if label is not None:
            self.item.label = label

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        async with Responder(interaction) as responder:
            await send_hint(interaction, responder, self.post_id)


def post_hint_label(task: Task) -> str:
    """A post's Hint button, the same for every member: what one click costs."""
    count = len(task.hints)
    if count == 1:
        return _(HintButton.LABEL)
    # TRANSLATORS: a button (at most 80 characters): the task has a ladder of hints.
    label = ngettext(
        "{n} hint (each halves the points)", "{n} hints (each halves the points)", count
    )
    return label.format(n=count)


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
    # TRANSLATORS: a button (at most 80 characters): "Hint 2 of 3 (halves the points)".
    label = _("{hint} (halves the points)").format(
        hint=rendering.hint_title(posted.task, following)
    )
    view.add_item(HintButton(post_id, label=label))
    await responder.send(replies.hint_reply(posted, hint), view=view)


class OpenPickerButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:open{LAST_POST_FIELD}",
):
    PREFIX = "quiz:open"
    # TRANSLATORS: a button (the verb): opens the picker to answer.
    LABEL = N_("Answer")
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
    LABEL = N_("Solution")
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
                # TRANSLATORS: a button: the next task of a practice or review session.
                label=_("Next"),
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
    cloze.OpenClozeButton,
    cloze.PartSelect,
    cloze.SubmitPartsButton,
    cloze.PartPageButton,
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
    if task.kind is Kind.CLOZE:  # Answer opens the picker, or the modal of typed parts
        view.add_item(cloze.answer_button(task, post_id, row=0))
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
            # Public: the server's language, whoever's click (and locale) started this task.
            with speaking(await self._bot.languages.public_locale(post.guild_id)):
                embed = task_embed(posted, counts)
            await message.edit(**outgoing(embed=embed))
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


class ServerLanguages:
    """Each server's `/config language`, read once and kept: a server's settings change only
    through the process that owns it, which calls `remember`."""

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot
        self._configured: dict[int, str | None] = {}

    def listen(self) -> None:
        # Removed, a server's settings go with its data; back, it starts afresh.
        self.bot.add_listener(self._forget, "on_guild_remove")

    async def _forget(self, guild: discord.Guild) -> None:
        self._configured.pop(guild.id, None)

    def remember(self, guild_id: int, language: str | None) -> None:
        self._configured[guild_id] = language

    async def configured(self, guild_id: int) -> str | None:
        if guild_id not in self._configured:
            config = await self.bot.service.guild_config(guild_id)
            self._configured[guild_id] = config.language
        return self._configured[guild_id]

    async def public_locale(self, guild_id: int) -> str:
        """The language of the server's public messages (`bot.i18n.server_locale`'s rule)."""
        guild = self.bot.get_guild(guild_id)
        preferred = None if guild is None else guild.preferred_locale.value
        return server_locale(await self.configured(guild_id), preferred)
