"""The result a daily post shows once it closes, from the stored attempts (pure). Shares
count members, not attempts: a member who picked B twice is one member who believed B."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from bot import rendering
from bot.i18n import N_, _, formats, ngettext
from bot.quiz import numeric, typed
from bot.quiz.cloze import ClozePart
from bot.quiz.engine import cloze_misses, describe_answer, typed_credit, typed_notes
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.rules import MISCONCEPTION_SHARE
from bot.quiz.tasks import Kind, Task

TOP_ANSWERERS = 3
TYPED_MEMBERS = 3
"""A wrong typed answer is shown only once this many members gave it: no one is singled out."""
TYPED_SHOWN = 60
ANSWER_ROOM = 300  # what the answer keeps of its line when the summary would not fit
SHORTEST_CUT = 80  # a misconception line is cut to the room left only if this much is left
WITHHELD = N_(  # the answer line of a summary that withholds it (`CloseSummary.withheld`)
    "**Answer:** not shown here yet: this task is still open on another post in this server. "
    "Once you have answered it, /solution shows it."
)


class Picked(Protocol):
    """What `wrong_pickers` reads of an attempt."""

    @property
    def user_id(self) -> int: ...
    @property
    def picks(self) -> tuple[str, ...]: ...


class AttemptRecord(Picked, Protocol):
    """One stored attempt, as the summary needs it (the store's `AttemptInfo` is one)."""

    @property
    def attempt_no(self) -> int: ...
    @property
    def correct(self) -> bool: ...
    @property
    def created_at(self) -> datetime: ...


@dataclass(frozen=True, slots=True)
class TopAnswerer:
    user_id: int
    tries: int
    solved_at: datetime


@dataclass(frozen=True, slots=True)
class Misconception:
    label: str
    option_text: str
    members: int
    answered: int
    notes: tuple[str, ...]
    blank: int | None = None  # of a multi-blank fill task
    typed: bool = False
    """A short task's wrong typed answer (the label is the text, normalised and folded)."""

    @property
    def percent(self) -> int:
        # Round half up, as the scores do; float rounding would turn 12.5 into 12.
        whole = self.answered
        return int(Fraction(100 * self.members, whole) + Fraction(1, 2)) if whole else 0

    def line(self) -> str:
        """E.g. "41% picked B — Using batch instead of split causes incorrect data division."."""
        where = f"[{self.blank}] " if self.blank is not None else ""
        share = formats.percent(Decimal(self.percent) / 100)
        if self.typed:  # a member's text: one line, cut, and no Markdown of its own
            said = rendering.escape_markdown(rendering.truncate(self.label, TYPED_SHOWN))
            why = " ".join(self.notes) or _("no note for it yet")
            # TRANSLATORS: a close summary's common mistake: "35% typed *Lyon* — the note".
            line = _("{percent} typed *{said}* — {why}").format(percent=share, said=said, why=why)
            return where + line
        why = " ".join(self.notes) if self.notes else f"({self.option_text})"
        # TRANSLATORS: a close summary's common mistake: "41% picked B — the note".
        line = _("{percent} picked {label} — {why}").format(
            percent=share, label=self.label, why=why
        )
        return where + line


@dataclass(frozen=True, slots=True)
class CloseSummary:
    answer: str
    answered: int
    solved: int
    first_try: int
    top: tuple[TopAnswerer, ...]
    misconceptions: tuple[Misconception, ...]
    withheld: bool = False
    """The task is still open on another public post here: answer and mistakes stay out."""

    def text(self, head: str | None = None, limit: int = rendering.MESSAGE_CONTENT) -> str:
        """Markdown for the closed post, under `head`, within `limit`. Cut least important
        first: the answer (in the solution too) to `ANSWER_ROOM`, then the misconceptions;
        the head, the counts and the top answerers always show."""
        lines = [head] if head else []
        if self.withheld:
            answer = _(WITHHELD)
        else:
            answer = _("**Answer:** {answer}").format(answer=self.answer)
        if not self.answered:
            rest = [_("Nobody answered this one.")]
        else:
            rest = [" · ".join(_counts(self.answered, self.solved, self.first_try))]
        if self.top:
            ranked = " ".join(
                f"{n}. <@{t.user_id}> ({_tries(t.tries)})" for n, t in enumerate(self.top, 1)
            )
            rest.append(_("**Top answerers:** {ranked}").format(ranked=ranked))
        mistakes = [] if self.withheld else [f"• {m.line()}" for m in self.misconceptions]
        if mistakes:
            rest.append(_("**Common mistakes:**"))
        over = _size([*lines, answer, *rest, *mistakes]) - limit
        if over > 0 and rendering.discord_len(answer) > ANSWER_ROOM:
            keep = max(ANSWER_ROOM, rendering.discord_len(answer) - over)
            answer = rendering.fit_text(answer, keep)
        lines += [answer, *rest]
        lines += _fitting(mistakes, limit - _size(lines))
        return rendering.fit_text("\n".join(lines), limit)


def _size(lines: Sequence[str]) -> int:
    return sum(rendering.discord_len(line) for line in lines) + max(len(lines) - 1, 0)


def _fitting(lines: Sequence[str], room: int) -> list[str]:
    """`lines` in `room` (each costs its newline): all that fit, the first that does not cut
    if enough of it fits, and a count of those left out."""
    if sum(rendering.discord_len(line) + 1 for line in lines) <= room:
        return list(lines)
    room -= rendering.discord_len(_more(len(lines))) + 1
    kept: list[str] = []
    for line in lines:
        size = rendering.discord_len(line) + 1
        if size <= room:
            kept.append(line)
            room -= size
            continue
        if room - 1 >= SHORTEST_CUT:
            kept.append(rendering.fit_text(line, room - 1))
        break
    left = len(lines) - len(kept)
    return [*kept, _more(left)] if left else kept


def _counts(answered: int, solved: int, first_try: int) -> tuple[str, str, str]:
    return (
        # TRANSLATORS: a close summary's counts, joined by " · ": "**12** answered".
        ngettext("**{n}** answered", "**{n}** answered", answered).format(
            n=formats.number(answered)
        ),
        ngettext("**{n}** solved", "**{n}** solved", solved).format(n=formats.number(solved)),
        ngettext("**{n}** on the first try", "**{n}** on the first try", first_try).format(
            n=formats.number(first_try)
        ),
    )


def _more(n: int) -> str:
    # TRANSLATORS: the last line of a close summary's common mistakes, when some were left out.
    return ngettext("• …and {n} more", "• …and {n} more", n).format(n=formats.number(n))


def _tries(n: int) -> str:
    if n == 1:
        # TRANSLATORS: how a top answerer solved it, in brackets after their name.
        return _("first try")
    return ngettext("{n} try", "{n} tries", n).format(n=formats.number(n))


def summarise(
    task: Task,
    attempts: Iterable[AttemptRecord],
    *,
    top: int = TOP_ANSWERERS,
    open_elsewhere: bool = False,
) -> CloseSummary:
    """`open_elsewhere`: withhold the answer and mistakes (`CloseSummary.withheld`)."""
    records = sorted(attempts, key=lambda a: (a.created_at, a.user_id, a.attempt_no))
    answered = {a.user_id for a in records}
    solved: dict[int, AttemptRecord] = {}
    for a in records:
        if a.correct and a.user_id not in solved:
            solved[a.user_id] = a
    ranking = sorted(solved.values(), key=lambda a: (a.attempt_no, a.created_at, a.user_id))
    return CloseSummary(
        answer=describe_answer(task, task.answers),
        answered=len(answered),
        solved=len(solved),
        first_try=sum(1 for a in solved.values() if a.attempt_no == 1),
        top=tuple(TopAnswerer(a.user_id, a.attempt_no, a.created_at) for a in ranking[:top]),
        misconceptions=misconceptions(task, records, len(answered)),
        withheld=open_elsewhere,
    )


def misconceptions(
    task: Task, attempts: Sequence[AttemptRecord], answered: int
) -> tuple[Misconception, ...]:
    return misconceptions_among(task, wrong_pickers(task, attempts), answered)


Pickers = dict[tuple[int, str], set[int]]
"""(blank, option label) -> the members who picked that option wrongly there."""


def wrong_pickers(task: Task, attempts: Iterable[Picked]) -> Pickers:
    """Who picked which wrong option (differing from `task`'s answer for its blank)."""
    pickers: Pickers = {}
    for a in attempts:
        if task.typed:  # the text as the task compares it (stored split at commas)
            text = typed.normalise(",".join(a.picks))
            if typed_credit(task, text) < 1:
                pickers.setdefault((1, _typed_key(task, text)), set()).add(a.user_id)
            continue
        if task.kind is Kind.CLOZE:  # each part short of full credit, as picked or typed
            for missed in cloze_misses(task, a.picks):
                pickers.setdefault(missed, set()).add(a.user_id)
            continue
        if task.kind is Kind.MULTI:  # one set: each pick that is not a right option
            for got in a.picks:
                if got in task.labels and task.weight(got) <= 0:
                    pickers.setdefault((1, got), set()).add(a.user_id)
            continue
        for blank, (got, want) in enumerate(zip(a.picks, task.answers, strict=False), 1):
            if got != want:
                pickers.setdefault((blank, got), set()).add(a.user_id)
    return pickers


def _typed_key(task: Task, text: str) -> str:
    """What makes typed answers one: a short task's text as it compares them; a number's value
    in the task's first unit, as the engine reads it ("3,5", "3.50 kg", "3500 g": "3.5 kg")."""
    if task.numeric is None:
        return text if task.short and task.short.case_sensitive else text.casefold()
    try:
        value, _unit_read = numeric.read(task.numeric, text)
    except numeric.NotANumberError:  # a bank edit since the attempt: kept as typed
        return text.casefold()
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    unit = f" {task.numeric.units[0].name}" if task.numeric.units else ""
    return f"{exact.normalize():f}{unit}"


def misconceptions_among(task: Task, pickers: Pickers, answered: int) -> tuple[Misconception, ...]:
    """The wrong picks of MISCONCEPTION_SHARE of the `answered` members or more, most common
    first: the one place the share rule is applied."""
    per_blank = task.multi_blank
    if task.typed:
        return _typed_misconceptions(task, pickers, answered)
    if task.kind is Kind.CLOZE:
        return _cloze_misconceptions(task, pickers, answered)
    found = [
        Misconception(
            label=label,
            option_text=_option_text(task, label),
            members=len(users),
            answered=answered,
            notes=task.notes_at(blank, label),
            blank=blank if per_blank else None,
        )
        for (blank, label), users in pickers.items()
        if answered and Fraction(len(users), answered) >= MISCONCEPTION_SHARE
    ]
    found.sort(key=lambda m: (-m.members, m.blank or 0, m.label))
    return tuple(found)


def _typed_misconceptions(task: Task, pickers: Pickers, answered: int) -> tuple[Misconception, ...]:
    """Wrong typed answers given by TYPED_MEMBERS members or more, and the share rule."""
    found = []
    for (_blank, text), users in pickers.items():
        if len(users) < TYPED_MEMBERS or Fraction(len(users), answered) < MISCONCEPTION_SHARE:
            continue
        notes = typed_notes(task, text)
        found.append(Misconception(text, text, len(users), answered, notes, typed=True))
    found.sort(key=lambda m: (-m.members, m.label))
    return tuple(found)


def _cloze_misconceptions(
    task: Task, pickers: Pickers, answered: int
) -> tuple[Misconception, ...]:
    """A cloze task's common wrong answers, by part: an option picked, as a fill blank's, or
    a text typed, by TYPED_MEMBERS members or more as a short task's."""
    found = []
    for (n, key), users in pickers.items():
        part = task.parts[n - 1] if n <= len(task.parts) else None
        if part is None or not answered:
            continue
        if Fraction(len(users), answered) < MISCONCEPTION_SHARE:
            continue
        if not part.choice and len(users) < TYPED_MEMBERS:
            continue
        if part.choice and key not in part.labels:
            continue
        note = part.note(key) if part.choice else _typed_part_note(part, key)
        shown = part.shown(key)
        notes = (note,) if note else ()
        found.append(
            Misconception(key, shown, len(users), answered, notes, n, typed=not part.choice)
        )
    found.sort(key=lambda m: (-m.members, m.blank or 0, m.label))
    return tuple(found)


def _typed_part_note(part: ClozePart, text: str) -> str | None:
    try:
        return part.note(text)
    except InvalidAnswerError:
        return None


def _option_text(task: Task, label: str) -> str:
    try:
        return task.option(label).text
    except KeyError:  # a bank edit removed the option since the attempt was stored
        return label


THREAD_NAME = 100  # Discord's limit on a thread name
_PIPE_BEFORE_PIPE = re.compile(r"\|(?=\|)")


def discussion_name(task: Task) -> str:
    # A thread's name is plain text: the topic's Markdown rendered, not shown as typed.
    # TRANSLATORS: a daily quiz's discussion thread's name (at most 100 characters in all).
    name = _("Discuss · {title}").format(title=rendering.plain_task_title(task))
    return rendering.truncate(name, THREAD_NAME)


def discussion_text(task: Task) -> str:
    """A discussion thread's first message: the explanation behind a spoiler, so the thread
    can open while the quiz runs."""
    explanation = task.solution.explanation or task.final_answer()
    # A "||" inside would end the spoiler early: a space after every pipe followed by another.
    hidden = _PIPE_BEFORE_PIPE.sub("| ", explanation)
    head = _("Talk it through here. The explanation (click to reveal): ")
    room = rendering.MESSAGE_CONTENT - rendering.discord_len(head) - 4
    return f"{head}||{rendering.fit_text(hidden, room)}||"
