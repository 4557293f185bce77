"""A cloze task's answer: the private picker holds a select per choice part (paged, as a matching
task's stems), and "Type the answers" opens one modal with a text input per typed part (at most
5); its submit grades every part at once. A task without choice parts opens the modal from the
post itself; one without typed parts submits from the picker.

Stateless, as the fill picker: the picks so far travel in every custom_id, one character a part
(an option's letter, `-` for a choice not yet picked, `_` for a typed part, `+` for a typed part
right before, which the modal fills in again), so a restart loses nothing. Typed text never
travels in a custom_id: it goes from the modal to the engine, and back to its member only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

import discord

from bot import rendering
from bot.discord_ui import replies
from bot.discord_ui.clicks import (
    LAST_POST_FIELD,
    POST_FIELD,
    Control,
    Fields,
    PostButton,
    Responder,
    guild_id_of,
    private_message_only,
)
from bot.discord_ui.picker import (
    PagerButton,
    PickerRules,
    PickSelect,
    Screen,
    grade,
    message_kwargs,
    open_picker,
    page_line,
)
from bot.discord_ui.typed import typed_refusals
from bot.i18n import N_, _, formats, ngettext
from bot.quiz import engine
from bot.quiz.cloze import MAX_PARTS, ClozePart
from bot.quiz.engine import Outcome, Status, check_partial_picks
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.review import CardUpdate
from bot.quiz.tasks import MAX_STEMS, OPTION_LABELS, Task, blank_number
from bot.quiz.typed import MAX_TYPED

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import Answered, PostedTask

UNPICKED: Final = "-"
TYPED: Final = "_"
KEPT: Final = "+"
PAGE_PARTS: Final = 4
"""Choice parts' selects a page: a classic message's rows but one, for the buttons."""
INPUT_PREFIX: Final = "part"
MODAL_PATTERN: Final = re.compile(r"quiz:clozed:(?P<post_id>[^:]*):(?P<picks>[\s\S]*)")
INPUT_LABEL: Final = 45
"""Discord's limit on a text input's label."""
BLANK: Final = N_("Answer every part first. Nothing was submitted, so no attempt was used.")
# TRANSLATORS: **Type the answers** is the label of the button below (translated as
# "Type the answers").
PROMPT: Final = N_(
    "Pick an option for each choice part, then press **Type the answers** for the typed ones. "
    "One submit of every part uses one of your attempts."
)
PICK_ONLY_PROMPT: Final = N_(
    "Pick an option for each part, then submit. Each submit uses one attempt."
)

_PICKS = r"(?::(?P<picks>[\s\S]*))?"
assert MAX_PARTS <= MAX_STEMS  # a part is a custom_id's one-digit blank


def parse_picks(text: str) -> str:
    """The picks field of a custom_id: one character per part (whether they fit the post's
    task is `checked`'s)."""
    if not 1 <= len(text) <= MAX_PARTS or any(c not in OPTION_LABELS + "-_+" for c in text):
        raise InvalidAnswerError("the custom_id holds no picks")
    return text


def empty_picks(task: Task) -> str:
    return "".join(UNPICKED if p.choice else TYPED for p in task.parts)


def checked(task: Task, text: str) -> dict[int, str]:
    """A custom_id's picks, refused unless they fit this task (custom_ids can be forged): the
    chosen options of its choice parts, and KEPT for its typed parts right before."""
    if len(text) != len(task.parts):
        raise InvalidAnswerError(f"picks {text!r} do not fit task {task.id}")
    picks: dict[int, str] = {}
    for n, (part, char) in enumerate(zip(task.parts, text, strict=True), 1):
        if (char in (TYPED, KEPT)) is part.choice:
            raise InvalidAnswerError(f"picks {text!r} do not fit task {task.id}")
        if char not in (UNPICKED, TYPED):
            picks[n] = char
    check_partial_picks(task, {n: c for n, c in picks.items() if c != KEPT})
    return picks


def encode(task: Task, picks: Mapping[int, str]) -> str:
    empty = empty_picks(task)
    return "".join(picks.get(n, empty[n - 1]) for n in range(1, len(task.parts) + 1))


def choice_parts(task: Task) -> list[int]:
    return [n for n, p in enumerate(task.parts, 1) if p.choice]


def typed_parts(task: Task) -> list[int]:
    return [n for n, p in enumerate(task.parts, 1) if not p.choice]


def pages(task: Task) -> int:
    return max(1, (len(choice_parts(task)) + PAGE_PARTS - 1) // PAGE_PARTS)


def page_of(task: Task, part: int) -> int:
    choices = choice_parts(task)
    return choices.index(part) // PAGE_PARTS if part in choices else 0


def part_list(parts: Iterable[int]) -> str:
    return formats.and_list([f"[{n}]" for n in parts])


# -- screens -----------------------------------------------------------------------------------


def text_embed(task: Task, picks: Mapping[int, str]) -> discord.Embed:
    shown = {n: c for n, c in picks.items() if c != KEPT}
    return discord.Embed(
        # TRANSLATORS: an embed's title (at most 256 characters); {task} is the task's title.
        title=_("Your answer · {task}").format(task=rendering.task_title(task)),
        description=rendering.cloze_text(task, shown),
        colour=replies.INFO,
    )


def controls(posted: PostedTask, picks: Mapping[int, str], page: int = 0) -> list[list[Any]]:
    task, post_id = posted.task, posted.post.id
    encoded = encode(task, picks)
    count = pages(task)
    page = min(page, count - 1)
    shown = choice_parts(task)[page * PAGE_PARTS : (page + 1) * PAGE_PARTS]
    rows: list[list[Any]] = [[PartSelect.build(task, post_id, n, encoded)] for n in shown]
    buttons: list[Any] = []
    if page > 0:
        # TRANSLATORS: a button's label (at most 80 characters): the previous page.
        buttons.append(PartPageButton(post_id, page - 1, encoded, label=_("Back")))
    if page < count - 1:
        # TRANSLATORS: a button's label (at most 80 characters): the next page.
        buttons.append(PartPageButton(post_id, page + 1, encoded, label=_("Next")))
    rows.append([*buttons, SubmitPartsButton(post_id, encoded, typed=bool(typed_parts(task)))])
    return rows


def open_screen(
    posted: PostedTask,
    picks: Mapping[int, str],
    *,
    notice: str | None = None,
    feedback: discord.Embed | None = None,
    page: int = 0,
) -> Screen:
    embeds = [text_embed(posted.task, picks)]
    if feedback is not None:
        embeds.append(feedback)
    prompt = _(PROMPT if typed_parts(posted.task) else PICK_ONLY_PROMPT)
    if pages(posted.task) > 1:
        prompt = page_line(prompt, page, pages(posted.task))
    return Screen(notice or prompt, embeds, controls(posted, picks, page))


def wrong_parts_embed(task: Task, outcome: Outcome) -> discord.Embed:
    """Which parts are wrong and, for each, what was given there and its note. The typed text
    is the member's own: this goes to them only, escaped, in a code span (no mention)."""
    answers = engine.cloze_answers(task, outcome.picks) or ()
    lines = []
    for n in outcome.wrong_blanks:
        part = task.parts[n - 1]
        given = part.shown(answers[n - 1]) if len(answers) >= n else ""
        note = part.note(answers[n - 1]) if len(answers) >= n else None
        shown = rendering.code_span(rendering.truncate(" ".join(given.split()), 100))
        lines.append(f"**[{n}]** {shown}{f': {note}' if note else ''}")
    tied = any(task.parts[n - 1].note(answers[n - 1]) for n in outcome.wrong_blanks if answers)
    if not tied and outcome.notes:
        lines.append(rendering.notes_text(outcome.notes))
    embed = discord.Embed(colour=replies.WRONG)
    # TRANSLATORS: an embed field's name (at most 256 characters).
    embed.add_field(name=_("Wrong parts"), value="\n".join(lines) or "…", inline=False)
    return embed


def wrong_notice(wrong: Sequence[int], kept: bool, outcome: Outcome) -> str:
    """Which parts were wrong, the credit the answer earned; `kept`: the right parts stay."""
    n, parts = len(wrong), part_list(wrong)
    # TRANSLATORS: {parts} lists the parts, e.g. "[2] and [3]"; {percent} is e.g. "80%".
    text = (
        ngettext(
            "Not quite: part {parts} is wrong; the rest are right and kept ({percent} of the "
            "credit).",
            "Not quite: parts {parts} are wrong; the rest are right and kept ({percent} of the "
            "credit).",
            n,
        )
        if kept
        else ngettext(
            "Not quite: part {parts} is wrong ({percent} of the credit).",
            "Not quite: parts {parts} are wrong ({percent} of the credit).",
            n,
        )
    )
    return text.format(parts=parts, percent=formats.percent(float(outcome.credit or 0)))


def outcome_screen(posted: PostedTask, outcome: Outcome, card: CardUpdate | None = None) -> Screen:
    task = posted.task
    session = replies.session_of(posted)
    card = card if session else None
    match outcome.status:
        case Status.CORRECT:
            text = _("✅ Right, every part!") + " " + replies.earned(outcome, session)
            return Screen(replies.with_card(text, card), [replies.solution_embed(task)])
        case Status.WRONG | Status.REPEATED:
            wrong = outcome.wrong_blanks
            answers = engine.cloze_answers(task, outcome.picks) or ()
            kept = {
                n: (answers[n - 1] if part.choice else KEPT)
                for n, part in enumerate(task.parts, 1)
                if n not in wrong and len(answers) >= n
            }
            notice = wrong_notice(wrong, bool(kept), outcome)
            notice += " " + replies.attempts_sentence(outcome.progress)
            if outcome.status is Status.REPEATED:
                notice = (
                    _("You already submitted exactly these answers, so that didn't use an attempt.")
                    + " "
                    + notice
                )
            feedback = wrong_parts_embed(task, outcome)
            return open_screen(
                posted, kept, notice=notice, feedback=feedback, page=page_of(task, wrong[0])
            )
        case Status.FAILED:
            text = _(
                "Not quite, and that was your last attempt, so here is the worked solution. "
                "Every miss teaches something; on to the next one!"
            )
            embeds = [wrong_parts_embed(task, outcome), replies.solution_embed(task)]
            return Screen(replies.with_card(text, card), embeds)
        case Status.ALREADY_FINISHED:
            return Screen(replies.finished_text(outcome.progress, session))


# -- the modal ---------------------------------------------------------------------------------


def _input_label(task: Task, n: int) -> str:
    """ "[2] … capital of France is": the part's number and the words before it."""
    before = re.split(r"\{#\d+\}", task.prompt.split(f"{{#{n}}}")[0])[-1][-300:]
    words = rendering.plain_label(before, 300).strip()
    label = f"[{n}] …{words[-(INPUT_LABEL - 6) :]}" if words else part_name(n)
    return label[:INPUT_LABEL]


def part_name(n: int) -> str:
    # TRANSLATORS: a part of a cloze task, e.g. "Part [2]" (at most 45 characters).
    return _("Part [{n}]").format(n=n)


def answer_modal(posted: PostedTask, picks: Mapping[int, str]) -> discord.ui.Modal:
    task = posted.task
    encoded = encode(task, picks)
    modal = discord.ui.Modal(
        # TRANSLATORS: a form's title (at most 45 characters).
        title=_("Your answers"),
        custom_id=f"quiz:clozed:{posted.post.id}:{encoded}",
        timeout=None,
    )
    for n in typed_parts(task):
        part = task.parts[n - 1]
        kept = part.right_text() if picks.get(n) == KEPT else None
        # TRANSLATORS: a text field's placeholder (at most 100 characters).
        numeric, private = _("A number"), _("Only you see it")
        modal.add_item(
            discord.ui.TextInput(
                label=_input_label(task, n),
                custom_id=f"{INPUT_PREFIX}{n}",
                max_length=MAX_TYPED,
                default=kept,
                placeholder=numeric if part.kind.value == "numerical" else private,
            )
        )
    # Stopped, so discord.py keeps no copy: `clicks.Router` routes the submit by custom_id.
    modal.stop()
    return modal


def typed_values(components: object) -> dict[int, str]:
    """Each text input's value, by part, from a modal submit's raw components."""
    found: dict[int, str] = {}

    def walk(items: Iterable[Any]) -> None:
        for item in items:
            if not isinstance(item, dict):
                continue
            custom_id, value = item.get("custom_id"), item.get("value")
            if isinstance(custom_id, str) and isinstance(value, str):
                number = custom_id.removeprefix(INPUT_PREFIX)
                if custom_id.startswith(INPUT_PREFIX) and len(number) == 1:
                    found[blank_number(number)] = value
            nested = list(item.get("components") or [])
            if isinstance(item.get("component"), dict):
                nested.append(item["component"])
            walk(nested)

    walk(components if isinstance(components, list) else [])
    return found


def answers_of(task: Task, picks: Mapping[int, str], typed: Mapping[int, str]) -> tuple[str, ...]:
    """One answer per part, for the engine: the picked option, or the typed text."""
    answers = []
    for n, part in enumerate(task.parts, 1):
        text = typed.get(n, "") if not part.choice else picks.get(n, "")
        if len(text) > MAX_TYPED:
            raise InvalidAnswerError(f"a typed answer of {len(text)} characters")
        answers.append(text)
    return tuple(answers)


async def submitted(interaction: discord.Interaction[QuizBot], match: re.Match[str]) -> None:
    """The modal's submit (`MODAL_PATTERN`, registered with `clicks.Router`)."""
    data: Any = interaction.data or {}
    async with typed_refusals(interaction, BLANK):
        post_id, picks = engine.post_id(match["post_id"]), parse_picks(match["picks"])
        await submit(interaction, post_id, picks, typed_values(data.get("components")))


async def submit(
    interaction: discord.Interaction[QuizBot],
    post_id: int,
    encoded: str,
    typed: Mapping[int, str],
    *,
    update: bool = False,
) -> None:
    """Grade every part at once; a blank part or a non-number uses no attempt (the engine's)."""
    bot = interaction.client
    async with Responder(interaction, update=update) as responder:
        posted = await bot.service.posted(
            post_id, guild_id_of(interaction), user_id=interaction.user.id
        )
        picks = checked(posted.task, encoded)
        if missing := [n for n in choice_parts(posted.task) if n not in picks]:
            notice = ngettext(
                "Pick an option for part {parts} first. Nothing was submitted, so no attempt was "
                "used.",
                "Pick an option for parts {parts} first. Nothing was submitted, so no attempt was "
                "used.",
                len(missing),
            ).format(parts=part_list(missing))
            screen = open_screen(
                posted, picks, notice=notice, page=page_of(posted.task, missing[0])
            )
            await (responder.edit if update else responder.send)(
                **message_kwargs(screen, layout=False)
            )
            return
        answers = answers_of(posted.task, picks, typed)
        await grade(interaction, responder, post_id, answers, draw_outcome, CLOZE_RULES)


def draw_outcome(posted: PostedTask, result: Answered) -> Screen:
    return outcome_screen(posted, result.outcome, result.card)


def refit(task: Task, picks: Mapping[int, str]) -> None:
    """Picks after a select's change, refused unless they still fit the task."""
    checked(task, encode(task, picks))


CLOZE_RULES: Final = PickerRules(
    fits=lambda task: bool(task.parts),
    checked=checked,
    refit=refit,
    pages=pages,
    page_of=page_of,
    open_screen=open_screen,
    placeholder=part_name,
    layout=lambda task: False,
)


# -- the items ---------------------------------------------------------------------------------


class OpenClozeButton(
    PostButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:cloze{LAST_POST_FIELD}",
):
    """`quiz:cloze:<post>`: the post's Answer button for a cloze task with choice parts."""

    PREFIX = "quiz:cloze"
    # TRANSLATORS: a button's label on a task post (at most 80 characters).
    LABEL = N_("Answer")
    EMOJI = "✏️"
    STYLE = discord.ButtonStyle.primary

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        await open_picker(interaction, self.post_id, CLOZE_RULES)


class PartSelect(
    PickSelect,
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"quiz:cpick{POST_FIELD}(?::(?P<blank>[^:]*))?{_PICKS}",
):
    """A choice part's select (its `blank`, as the fill picker's)."""

    PREFIX = "quiz:cpick"
    RULES = CLOZE_RULES
    FIELDS: ClassVar[Fields] = {
        "post_id": engine.post_id,
        "blank": blank_number,
        "picks": parse_picks,
    }

    @classmethod
    def build(cls, task: Task, post_id: int, n: int, picks: str) -> PartSelect:
        part: ClozePart = task.parts[n - 1]
        current = picks[n - 1]
        options = [
            discord.SelectOption(
                label=rendering.plain_label(f"{label} · {answer.text}", 100),
                value=label,
                default=label == current,
            )
            for label, answer in zip(part.labels, part.answers, strict=True)
        ]
        return cls(post_id, n, picks, options)


class SubmitPartsButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:csubmit{POST_FIELD}{_PICKS}",
):
    """Submit (every part a choice), or "Type the answers" (opens the modal): the picks so far
    travel on to the modal's custom_id."""

    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id, "picks": parse_picks}

    def __init__(
        self,
        post_id: int,
        picks: str,
        *,
        typed: bool = True,
        label: str | None = None,
        row: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Button(
                # TRANSLATORS: a button's label (at most 80 characters).
                label=label or (_("Type the answers") if typed else _("Submit answer")),
                emoji="✏️" if typed else "✅",
                style=discord.ButtonStyle.primary,
                custom_id=f"quiz:csubmit:{post_id}:{picks}",
            ),
            row=row,
        )
        self.post_id = post_id
        self.picks = picks

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        if TYPED not in self.picks and KEPT not in self.picks:
            private_message_only(interaction)
            await submit(interaction, self.post_id, self.picks, {}, update=True)
            return
        bot = interaction.client
        posted = await bot.service.posted(
            self.post_id, guild_id_of(interaction), user_id=interaction.user.id
        )
        picks = checked(posted.task, self.picks)
        if UNPICKED in self.picks:  # the modal would only be refused: say so on the picker
            private_message_only(interaction)
            await submit(interaction, self.post_id, self.picks, {}, update=True)
            return
        await interaction.response.send_modal(answer_modal(posted, picks))


def page_field(text: str) -> int:
    """A page button's page field: 1 for the first page (posted buttons keep it so)."""
    return blank_number(text) - 1


class PartPageButton(
    PagerButton,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:cpage{POST_FIELD}(?::(?P<page>[^:]*))?{_PICKS}",
):
    """Back or Next: another page of choice parts."""

    PREFIX = "quiz:cpage"
    FIRST_PAGE = 1
    FIELDS: ClassVar[Fields] = {
        "post_id": engine.post_id,
        "page": page_field,
        "picks": parse_picks,
    }
    RULES = CLOZE_RULES


def answer_button(task: Task, post_id: int, *, row: int) -> discord.ui.Item[Any]:
    """The post's Answer: the picker when the task has choice parts, else the modal at once."""
    if choice_parts(task):
        return OpenClozeButton(post_id, row=row)
    return SubmitPartsButton(post_id, empty_picks(task), label=_("Answer"), row=row)
