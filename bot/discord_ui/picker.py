"""The private answer picker for fill tasks with two or more blanks, and matching tasks (a
select per stem).

Stateless: the picks so far travel in every custom_id, and each change redraws the message
from them, so a restart loses nothing. Five blanks need one row more than a classic message
has, so those pickers are components-v2 layouts (the code in a text display); a matching task
shows PAGE_STEMS stems a page, with Back and Next.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self

import discord

from bot import rendering
from bot.discord_ui import replies
from bot.discord_ui.clicks import (
    POST_FIELD,
    Control,
    Fields,
    QuizView,
    Responder,
    guild_id_of,
    member,
    private_message_only,
)
from bot.discord_ui.replies import Reply
from bot.i18n import _, formats, ngettext
from bot.quiz import engine
from bot.quiz.engine import Outcome, Status, check_open, check_partial_picks
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.review import CardUpdate
from bot.quiz.tasks import MAX_STEMS, OPTION_LABELS, Kind, Task, blank_number

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import Answered, PostedTask

EMPTY = "-"
CLASSIC_MAX_BLANKS = 4
PAGE_STEMS = 4
"""A matching picker's selects a page: a classic message's rows but one, for the buttons."""

Picks = dict[int, str]

_PICKS = r"(?::(?P<picks>[\s\S]*))?"


def parse_picks(text: str) -> str:
    """The picks field of a custom_id: one option letter or EMPTY per blank, 2 to MAX_STEMS
    (whether they fit the post's task is `checked_picks`'s)."""
    if not 2 <= len(text) <= MAX_STEMS or any(c not in OPTION_LABELS + EMPTY for c in text):
        raise InvalidAnswerError("the custom_id holds no picks")
    return text


def encode_picks(picks: Mapping[int, str], blanks: int) -> str:
    """E.g. {1: "A", 3: "C"} over 3 blanks -> "A-C"."""
    return "".join(picks.get(n, EMPTY) for n in range(1, blanks + 1))


def decode_picks(text: str) -> Picks:
    return {n: label for n, label in enumerate(text, start=1) if label != EMPTY}


def checked_picks(task: Task, text: str) -> Picks:
    """Picks from a custom_id, refused unless they fit this task (custom_ids can be forged):
    one character per blank, and the engine's own check of what each blank holds."""
    if len(text) != task.blanks:
        raise InvalidAnswerError(f"picks {text!r} do not fit task {task.id}")
    picks = decode_picks(text)
    check_partial_picks(task, picks)
    return picks


def uses_layout(task: Task) -> bool:
    return task.kind is Kind.FILL and task.blanks > CLASSIC_MAX_BLANKS


def page_number(text: str) -> int:
    """A page button's page field: one digit, 0 for the first (`controls` checks the rest)."""
    if not (len(text) == 1 and text.isascii() and text.isdigit()):
        raise InvalidAnswerError("the custom_id names no page")
    return int(text)


def pages(task: Task) -> int:
    if task.kind is not Kind.MATCHING:
        return 1
    return (task.blanks + PAGE_STEMS - 1) // PAGE_STEMS


def page_of(task: Task, blank: int) -> int:
    return (blank - 1) // PAGE_STEMS if task.kind is Kind.MATCHING else 0


def slot_name(task: Task, blank: int) -> str:
    """How a reply names a blank: "[2]", or a matching task's stem "2"."""
    return str(blank) if task.kind is Kind.MATCHING else f"[{blank}]"


# -- screens -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Screen:
    """One state of the picker, independent of classic or v2 layout."""

    content: str
    embeds: Sequence[discord.Embed] = ()
    rows: Sequence[Sequence[discord.ui.Item[Any]]] = field(default_factory=tuple)
    """Component rows; none once the member has finished."""


def code_embed(task: Task, picks: Mapping[int, str]) -> discord.Embed:
    shown = (
        rendering.matched_text(task, picks)
        if task.kind is Kind.MATCHING
        else rendering.filled_code(task, picks)
    )
    return discord.Embed(
        # TRANSLATORS: an embed's title (at most 256 characters); {task} is the task's title.
        title=_("Your answer · {task}").format(task=rendering.task_title(task)),
        description=shown,
        colour=replies.INFO,
    )


def controls(
    posted: PostedTask, picks: Mapping[int, str], page: int = 0
) -> list[list[discord.ui.Item[Any]]]:
    task, post_id = posted.task, posted.post.id
    encoded = encode_picks(picks, task.blanks)
    count = pages(task)
    page = min(page, count - 1)
    shown = range(1, task.blanks + 1)
    if count > 1:
        shown = range(page * PAGE_STEMS + 1, min(task.blanks, (page + 1) * PAGE_STEMS) + 1)
    rows: list[list[discord.ui.Item[Any]]] = [
        [BlankSelect.build(task, post_id, blank, encoded)] for blank in shown
    ]
    buttons: list[discord.ui.Item[Any]] = []
    if page > 0:
        # TRANSLATORS: a button's label (at most 80 characters): the previous page.
        buttons.append(PageButton(post_id, page - 1, encoded, label=_("Back")))
    if page < count - 1:
        # TRANSLATORS: a button's label (at most 80 characters): the next page.
        buttons.append(PageButton(post_id, page + 1, encoded, label=_("Next")))
    rows.append([*buttons, SubmitButton(post_id, encoded)])
    return rows


def pick_prompt(task: Task, page: int = 0) -> str:
    if task.kind is not Kind.MATCHING:
        return _(
            "Pick an option for each blank, then submit. Each submit uses one of your attempts."
        )
    prompt = _("Pick an answer for each item, then submit. Each submit uses one of your attempts.")
    count = pages(task)
    return prompt if count == 1 else page_line(prompt, page, count)


def page_line(prompt: str, page: int, count: int) -> str:
    """A paged picker's prompt, and which page it shows (`page` counts from 0)."""
    # TRANSLATORS: {prompt} is the picker's instruction, e.g. "Pick an answer for each item,
    # then submit."; the parenthesis says which page of the picker this is.
    return _("{prompt} (Page {page} of {count}.)").format(
        prompt=prompt, page=formats.number(page + 1), count=formats.number(count)
    )


def open_screen(
    posted: PostedTask,
    picks: Mapping[int, str],
    *,
    notice: str | None = None,
    feedback: discord.Embed | None = None,
    page: int = 0,
) -> Screen:
    embeds = [code_embed(posted.task, picks)]
    if feedback is not None:
        embeds.append(feedback)
    shown = notice or pick_prompt(posted.task, page)
    return Screen(shown, embeds, controls(posted, picks, page))


def wrong_blanks_embed(task: Task, picks: Mapping[int, str], outcome: Outcome) -> discord.Embed:
    """Which blanks are wrong and, for each, the note on the option picked there."""
    lines = []
    matching = task.kind is Kind.MATCHING
    for blank in outcome.wrong_blanks:
        option = task.option(picks[blank])
        notes = task.notes_at(blank, option.label)
        why = f": {' '.join(notes)}" if notes else ""
        shown = rendering.code_span(rendering.option_select_label(option, task.kind))
        name = f"**{blank}.** {task.stems[blank - 1]} →" if matching else f"**[{blank}]**"
        lines.append(f"{name} {shown}{why}")
    if not any(task.notes_at(b, picks[b]) for b in outcome.wrong_blanks) and outcome.notes:
        lines.append(rendering.notes_text(outcome.notes))
    embed = discord.Embed(colour=replies.WRONG)
    # TRANSLATORS: an embed field's name (at most 256 characters).
    title = _("Wrong pairs") if matching else _("Wrong blanks")
    embed.add_field(name=title, value="\n".join(lines), inline=False)
    return embed


def blank_list(blanks: Sequence[int], task: Task | None = None) -> str:
    names = [slot_name(task, b) if task else f"[{b}]" for b in blanks]
    return formats.and_list(names)


def wrong_notice(task: Task, wrong: Sequence[int], kept: bool) -> str:
    """Which blanks (a matching task's items) were wrong and cleared; `kept`: the rest are
    right, and stay picked."""
    n, slots = len(wrong), blank_list(wrong, task)
    if task.kind is Kind.MATCHING:
        text = (
            ngettext(
                "Not quite: item {slots} is wrong, so I've cleared it; the rest are right.",
                "Not quite: items {slots} are wrong, so I've cleared them; the rest are right.",
                n,
            )
            if kept
            else ngettext(
                "Not quite: item {slots} is wrong, so I've cleared it.",
                "Not quite: items {slots} are wrong, so I've cleared them.",
                n,
            )
        )
    else:
        text = (
            ngettext(
                "Not quite: blank {slots} is wrong, so I've cleared it; the rest are right.",
                "Not quite: blanks {slots} are wrong, so I've cleared them; the rest are right.",
                n,
            )
            if kept
            else ngettext(
                "Not quite: blank {slots} is wrong, so I've cleared it.",
                "Not quite: blanks {slots} are wrong, so I've cleared them.",
                n,
            )
        )
    return text.format(slots=slots)


def missing_notice(task: Task, missing: Sequence[int]) -> str:
    """A submit with blanks (a matching task's items) left empty: which, and no attempt used."""
    n, slots = len(missing), blank_list(missing, task)
    if task.kind is Kind.MATCHING:
        text = ngettext(
            "Pick an option for item {slots} first. Nothing was submitted, so no attempt was used.",
            "Pick an option for items {slots} first. Nothing was submitted, so no attempt was "
            "used.",
            n,
        )
    else:
        text = ngettext(
            "Pick an option for blank {slots} first. Nothing was submitted, so no attempt was "
            "used.",
            "Pick an option for blanks {slots} first. Nothing was submitted, so no attempt was "
            "used.",
            n,
        )
    return text.format(slots=slots)


def outcome_screen(
    posted: PostedTask, picks: Picks, outcome: Outcome, card: CardUpdate | None = None
) -> Screen:
    """`card`: what the answer did to the member's review card (`Answered.card`)."""
    task = posted.task
    session = replies.session_of(posted)
    card = card if session else None  # said in a practice or review only, as answer_reply does
    match outcome.status:
        case Status.CORRECT:
            text = (
                _("✅ Right, every pair!")
                if task.kind is Kind.MATCHING
                else _("✅ Right, every blank!")
            )
            text += " " + replies.earned(outcome, session)
            return Screen(replies.with_card(text, card), [replies.solution_embed(task)])
        case Status.WRONG | Status.REPEATED:
            wrong = outcome.wrong_blanks
            kept = {b: p for b, p in picks.items() if b not in wrong}
            notice = wrong_notice(task, wrong, bool(kept))
            notice += " " + replies.attempts_sentence(outcome.progress)
            if outcome.status is Status.REPEATED:
                notice = (
                    _("You already submitted exactly these picks, so that didn't use an attempt.")
                    + " "
                    + notice
                )
            return open_screen(
                posted,
                kept,
                notice=notice,
                feedback=wrong_blanks_embed(task, picks, outcome),
                page=page_of(task, wrong[0]),
            )
        case Status.FAILED:
            text = _(
                "Not quite, and that was your last attempt, so here is the worked solution. "
                "Every miss teaches something; on to the next one!"
            )
            return Screen(
                replies.with_card(text, card),
                [wrong_blanks_embed(task, picks, outcome), replies.solution_embed(task)],
            )
        case Status.ALREADY_FINISHED:
            return Screen(replies.finished_text(outcome.progress, session))


def layout_text(screen: Screen) -> str:
    """The screen as the one text display of a components-v2 message. The notice (the outcome
    line) comes first, so a cut to Discord's limit takes the end, never the notice."""
    parts = [screen.content]
    for embed in screen.embeds:
        if embed.title:
            parts.append(f"### {embed.title}")
        if embed.description:
            parts.append(embed.description)
        parts.extend(f"**{f.name}**\n{f.value}" for f in embed.fields)
    return rendering.fit_text("\n\n".join(parts), rendering.LAYOUT_TEXT)


def message_kwargs(screen: Screen, *, layout: bool) -> dict[str, Any]:
    """Arguments for send_message / edit_message that draw `screen`."""
    if layout:
        view = discord.ui.LayoutView(timeout=None)
        view.add_item(discord.ui.TextDisplay(layout_text(screen)))
        for row in screen.rows:
            view.add_item(discord.ui.ActionRow(*row))
        return {"view": view}
    classic: discord.ui.View | None = None
    if screen.rows:
        classic = QuizView()
        for index, row in enumerate(screen.rows):
            for item in row:
                item.row = index
                classic.add_item(item)
    return {"content": screen.content, "embeds": list(screen.embeds), "view": classic}


# -- what a picker's kind of task decides ------------------------------------------------------


class DrawScreen(Protocol):
    def __call__(
        self,
        posted: PostedTask,
        picks: Mapping[int, str],
        *,
        notice: str | None = None,
        page: int = 0,
    ) -> Screen: ...


@dataclass(frozen=True, slots=True)
class PickerRules:
    """What the shared picker code asks of one picker: this module's (fill and matching
    tasks) or a cloze task's."""

    fits: Callable[[Task], bool]
    """Whether a post's task is answered with this picker (custom_ids can be forged)."""
    checked: Callable[[Task, str], Picks]
    """A custom_id's picks, refused unless they fit the task."""
    refit: Callable[[Task, Picks], object]
    """Refuses picks that a select's change made unfit."""
    pages: Callable[[Task], int]
    page_of: Callable[[Task, int], int]
    """The page that shows a blank."""
    open_screen: DrawScreen
    placeholder: Callable[[int], str]
    """A blank's select placeholder, where `build` gives none."""
    layout: Callable[[Task], bool]
    """Whether the picker is a components-v2 layout."""


FILL_RULES = PickerRules(
    fits=lambda task: task.multi_blank,
    checked=checked_picks,
    refit=check_partial_picks,
    pages=pages,
    page_of=page_of,
    open_screen=open_screen,
    placeholder=rendering.blank_placeholder,
    layout=uses_layout,
)


async def open_picker(
    interaction: discord.Interaction[QuizBot], post_id: int, rules: PickerRules = FILL_RULES
) -> None:
    """The post's Answer button: a fresh picker, privately, for whoever clicked."""
    service = interaction.client.service
    async with Responder(interaction) as responder:
        view = await service.member_view(post_id, guild_id_of(interaction), interaction.user.id)
        posted, progress = view.posted, view.progress
        if not rules.fits(posted.task):  # a forged custom_id: the post is answered otherwise
            raise InvalidAnswerError(f"post {post_id} is not answered with this picker")
        check_open(posted.closed, progress)
        if progress.finished:
            await responder.send(Reply(replies.finished_text(progress, replies.session_of(posted))))
            return
        screen = rules.open_screen(posted, {})
        await responder.send(**message_kwargs(screen, layout=rules.layout(posted.task)))


async def grade(
    interaction: discord.Interaction[QuizBot],
    responder: Responder,
    post_id: int,
    answers: tuple[str, ...],
    draw: Callable[[PostedTask, Answered], Screen],
    rules: PickerRules,
) -> None:
    """Submit a picker's answers and draw what became of them (`draw`) in its place."""
    bot = interaction.client
    result = await bot.service.answer(post_id, *member(interaction), answers)
    posted = bot.service.posted_of(result.post)
    if result.outcome.recorded and not posted.post.private:
        bot.live_counts.bump(post_id)
    await responder.answered(
        result.outcome,
        result.outcome.picks or answers,
        session=replies.session_of(posted),
        **message_kwargs(draw(posted, result), layout=rules.layout(posted.task)),
    )


# -- the items ---------------------------------------------------------------------------------


class PickerItem(Control):
    """An item of a private picker: the picks so far travel in its custom_id, and a click
    redraws the picker from them."""

    RULES: ClassVar[PickerRules]
    post_id: int
    picks: str

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        async with Responder(interaction, update=True) as responder:
            # Only the member who may answer the post redraws its picker: a private task's
            # owner, while the session lasts (a forged custom_id is refused as a click is).
            posted = await interaction.client.service.posted(
                self.post_id, guild_id_of(interaction), user_id=interaction.user.id
            )
            picks = self.RULES.checked(posted.task, self.picks)
            screen = self.redraw(interaction, posted, picks)
            await responder.edit(**message_kwargs(screen, layout=self.RULES.layout(posted.task)))

    def redraw(
        self, interaction: discord.Interaction[QuizBot], posted: PostedTask, picks: Picks
    ) -> Screen:
        raise NotImplementedError


class PickSelect(PickerItem):
    """A select for one blank (a matching task's stem, a cloze task's part)."""

    PREFIX: ClassVar[str]
    blank: int

    def __init__(
        self,
        post_id: int,
        blank: int,
        picks: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"{self.PREFIX}:{post_id}:{blank}:{picks}",
            placeholder=placeholder or self.RULES.placeholder(blank),
            options=options or [],
            min_values=1,
            max_values=1,
        )
        super().__init__(select)  # type: ignore[call-arg]  # the DynamicItem's
        self.post_id = post_id
        self.blank = blank
        self.picks = picks

    def redraw(
        self, interaction: discord.Interaction[QuizBot], posted: PostedTask, picks: Picks
    ) -> Screen:
        data: Any = interaction.data or {}
        values = data.get("values")  # what the member picked, as Discord sent it
        # A raw payload may send anything there (null, a number, an object).
        if not isinstance(values, list) or len(values) != 1 or not isinstance(values[0], str):
            raise InvalidAnswerError(f"one option per blank, got {values!r}")
        picks[self.blank] = values[0]
        self.RULES.refit(posted.task, picks)
        return self.RULES.open_screen(
            posted, picks, page=self.RULES.page_of(posted.task, self.blank)
        )


class PagerButton(PickerItem):
    """A paged picker's Back or Next: the same picks, another page."""

    PREFIX: ClassVar[str]
    FIRST_PAGE: ClassVar[int] = 0
    """What the custom_id's page field says for the first page (posted buttons keep theirs)."""
    page: int
    """From 0 for the first page, whatever the custom_id says."""

    def __init__(self, post_id: int, page: int, picks: str, label: str = "Next") -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=label,
            style=discord.ButtonStyle.secondary,
            custom_id=f"{self.PREFIX}:{post_id}:{page + self.FIRST_PAGE}:{picks}",
        )
        super().__init__(button)  # type: ignore[call-arg]  # the DynamicItem's
        self.post_id = post_id
        self.page = page
        self.picks = picks

    def redraw(
        self, interaction: discord.Interaction[QuizBot], posted: PostedTask, picks: Picks
    ) -> Screen:
        if self.page >= self.RULES.pages(posted.task):  # a forged custom_id
            raise InvalidAnswerError(f"task {posted.task.id} has no page {self.page + 1}")
        return self.RULES.open_screen(posted, picks, page=self.page)


class BlankSelect(
    PickSelect,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"quiz:pick{POST_FIELD}(?::(?P<blank>[^:]*))?{_PICKS}",
):
    PREFIX = "quiz:pick"
    RULES = FILL_RULES
    FIELDS: ClassVar[Fields] = {
        "post_id": engine.post_id,
        "blank": blank_number,
        "picks": parse_picks,
    }

    @classmethod
    def build(cls, task: Task, post_id: int, blank: int, picks: str) -> Self:
        current = decode_picks(picks).get(blank)
        options = [
            discord.SelectOption(
                label=rendering.option_select_label(option, task.kind),
                value=option.label,
                default=option.label == current,
            )
            for option in task.options
        ]
        return cls(post_id, blank, picks, options, rendering.select_placeholder(task, blank))


class SubmitButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:submit{POST_FIELD}{_PICKS}",
):
    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id, "picks": parse_picks}

    def __init__(self, post_id: int, picks: str) -> None:
        super().__init__(
            discord.ui.Button(
                # TRANSLATORS: a button's label (at most 80 characters).
                label=_("Submit answer"),
                emoji="✅",
                style=discord.ButtonStyle.primary,
                custom_id=f"quiz:submit:{post_id}:{picks}",
            )
        )
        self.post_id = post_id
        self.picks = picks

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        private_message_only(interaction)
        bot = interaction.client
        guild_id = guild_id_of(interaction)
        async with Responder(interaction, update=True) as responder:
            if EMPTY in self.picks:
                posted = await bot.service.posted(
                    self.post_id, guild_id, user_id=interaction.user.id
                )
                picks = checked_picks(posted.task, self.picks)
                task = posted.task
                missing = [b for b in range(1, task.blanks + 1) if b not in picks]
                notice = missing_notice(task, missing)
                screen = open_screen(posted, picks, notice=notice, page=page_of(task, missing[0]))
            else:
                picks = decode_picks(self.picks)

                def draw(posted: PostedTask, result: Answered) -> Screen:
                    return outcome_screen(posted, picks, result.outcome, result.card)

                ordered = tuple(picks[b] for b in sorted(picks))
                await grade(interaction, responder, self.post_id, ordered, draw, FILL_RULES)
                return
            await responder.edit(**message_kwargs(screen, layout=uses_layout(posted.task)))


class PageButton(
    PagerButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:page{POST_FIELD}(?::(?P<page>[^:]*))?{_PICKS}",
):
    """A matching picker's Back or Next: another page of stems."""

    PREFIX = "quiz:page"
    RULES = FILL_RULES
    FIELDS: ClassVar[Fields] = {
        "post_id": engine.post_id,
        "page": page_number,
        "picks": parse_picks,
    }
