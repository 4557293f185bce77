"""Grading and scoring: one member's progress on one posted task, as pure functions over
immutable values, so the bot, the terminal practice and the store's write unit apply the same
rules. Each fact is decided here only: a post's id (`post_id`), closed (`post_closed`), taking
an answer (`check_open`, `check_owner`), valid picks (`normalise_picks`, `check_partial_picks`),
finished and attempts left (`Progress`), the score (`score`, `grade`; a multi task's
`credit`, a matching task's `matching_credit`, a cloze task's `cloze.credit`), an attempt
recorded (`Outcome.recorded`), what a hint and the solution cost (`see_hint`,
`open_solution`, `check_free_look`): each hint of a task's ladder halves the points still open.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from fractions import Fraction
from typing import Any

from bot.quiz import cloze, numeric, typed
from bot.quiz.errors import (
    AnswerableElsewhereError,
    BlankAnswerError,
    InvalidAnswerError,
    NoHintError,
    PostClosedError,
    PrivatePostError,
    UnknownPostError,
)
from bot.quiz.tasks import CREDIT_TOLERANCE, FULL_CREDIT, MAX_ATTEMPTS, Difficulty, Kind, Task

MAX_ID = 2**63 - 1
"""The largest id SQLite's INTEGER holds: post, session and schedule ids are 1..MAX_ID."""


def id_number(text: str) -> int | None:
    """ASCII digits naming an id the database can hold, else None (no id is written "١٢")."""
    if not (len(text) <= len(str(MAX_ID)) and text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


def post_id(text: str) -> int:
    """A custom_id's post field: anything no post can have names no post (UnknownPostError)."""
    number = id_number(text)
    if number is None:
        raise UnknownPostError("the custom_id names no post id")
    return number


class Status(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    """Wrong, with attempts left: the answer stays hidden."""
    FAILED = "failed"
    """The last attempt was wrong: the solution is revealed."""
    ALREADY_FINISHED = "already_finished"
    REPEATED = "repeated"
    """An earlier wrong answer again (a double click): not graded, so it uses no attempt."""


@dataclass(frozen=True, slots=True)
class Progress:
    """One member's state on one posted task instance."""

    wrong_tries: int = 0
    solved: bool = False
    hints_seen: int = 0
    """How many of the task's hints the member saw here, from the first (the ladder's)."""
    forfeited: bool = False
    """The member asked for the solution before finishing."""
    points: int = 0
    tried: frozenset[tuple[str, ...]] = frozenset()
    """The member's wrong answers so far, as `normalise_picks` gives them."""
    finished_elsewhere: bool = False
    """Finished on another public post of the task: a task's points are earned once."""
    wrong_elsewhere: int = 0
    """Misses on the task's other public posts (none finished): they count once, anywhere."""
    hints_elsewhere: int = 0
    """The most of the task's hints seen on another of its public posts, unfinished there."""
    tried_before: bool = False
    """A private post's task tried on another post before: solving it is no first try."""

    @property
    def attempts_used(self) -> int:
        return self.wrong_tries + (1 if self.solved else 0)

    @property
    def attempts_left(self) -> int:
        return 0 if self.finished else MAX_ATTEMPTS - self.wrong_tries

    @property
    def finished(self) -> bool:
        return self.solved or self.forfeited or self.wrong_tries >= MAX_ATTEMPTS

    @property
    def task_wrong_tries(self) -> int:
        """Misses on the task in the server, this post's and its other public posts'."""
        return self.wrong_tries + self.wrong_elsewhere

    @property
    def hint_seen(self) -> bool:
        return self.hints_seen > 0

    @property
    def hint_elsewhere(self) -> bool:
        return self.hints_elsewhere > 0

    @property
    def task_hints_seen(self) -> int:
        """The task's hints seen, here or on another public post: each halves the points once."""
        return max(self.hints_seen, self.hints_elsewhere)

    @property
    def task_hint_seen(self) -> bool:
        return self.task_hints_seen > 0

    @property
    def scores_none(self) -> bool:
        """No answer here can earn points (attempts still count for stats and the card)."""
        return self.finished_elsewhere or self.task_wrong_tries >= MAX_ATTEMPTS

    @property
    def scoring_attempts_left(self) -> int:
        """Of `attempts_left`, those that can still earn points."""
        if self.finished or self.scores_none:
            return 0
        return MAX_ATTEMPTS - self.task_wrong_tries

    @property
    def can_score(self) -> bool:
        """What holds a task back from practice and review, and refuses a free look."""
        return not (self.finished or self.scores_none)

    @property
    def first_try(self) -> bool:
        """Solved with no miss on the task anywhere in the server, and not tried before."""
        return self.solved and self.task_wrong_tries == 0 and not self.tried_before

    @classmethod
    def of_record(
        cls,
        *,
        wrong_tries: int = 0,
        solved: bool = False,
        hints_seen: int = 0,
        solution_seen: bool = False,
        points: int = 0,
        tried: frozenset[tuple[str, ...]] = frozenset(),
    ) -> Progress:
        """The progress a post's stored rows say. A solution seen is a forfeit only when
        nothing else had finished the post: seen after, it was a free look."""
        progress = cls(
            wrong_tries=wrong_tries,
            solved=solved,
            hints_seen=hints_seen,
            points=points,
            tried=tried,
        )
        if solution_seen and not progress.finished:
            return replace(progress, forfeited=True)
        return progress

    def with_other_posts(self, others: Sequence[Progress]) -> Progress:
        """With the task's other public posts: its points, misses and hint count once."""
        if self.finished or not others:
            return self
        if any(other.finished for other in others):
            return replace(self, finished_elsewhere=True)
        return replace(
            self,
            wrong_elsewhere=self.wrong_elsewhere + sum(other.wrong_tries for other in others),
            hints_elsewhere=max([self.hints_elsewhere, *(o.hints_seen for o in others)]),
            tried=self.tried.union(*(other.tried for other in others)),
        )

    def after_answer_elsewhere(self, outcome: Outcome) -> Progress:
        """After a recorded answer on another public post of the task, as `with_other_posts`
        would read it back (for the store's batch)."""
        if self.finished or self.finished_elsewhere:
            return self
        if outcome.progress.finished:
            return replace(self, finished_elsewhere=True)
        return replace(
            self, wrong_elsewhere=self.wrong_elsewhere + 1, tried=self.tried | {outcome.picks}
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    status: Status
    progress: Progress
    """The member's state after this answer (unchanged when already finished)."""
    wrong_blanks: tuple[int, ...] = ()
    """1-based blank numbers answered wrongly (fill tasks; (1,) for a wrong choice)."""
    notes: tuple[str, ...] = ()
    """Why the chosen wrong options are wrong; the task's general notes when none is tied."""
    points: int = 0
    picks: tuple[str, ...] = ()
    """The graded picks as `normalise_picks` gives them: what the store keeps."""
    credit: Fraction | None = None
    """Multi tasks: the submission's credit, 0 to 1 (`credit`)."""
    wrong_picks: tuple[str, ...] = ()
    """Multi tasks: the picked options that are not right (weight 0 or less)."""
    expected: str | None = None
    """Typed tasks: the accepted spelling, when a typo was forgiven."""

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    @property
    def recorded(self) -> bool:
        """Whether this outcome stored an attempt (and so changed the post's counts)."""
        return self.status not in (Status.ALREADY_FINISHED, Status.REPEATED)

    @property
    def attempts_left(self) -> int:
        return self.progress.attempts_left


def score(difficulty: Difficulty, wrong_tries: int, hints_seen: int) -> int:
    """Difficulty points × (3 − wrong tries) / 3, halved for each hint seen; rounded half up."""
    value = Fraction(difficulty.points * (MAX_ATTEMPTS - wrong_tries), MAX_ATTEMPTS)
    return int(value / 2**hints_seen + Fraction(1, 2))


def post_closed(closed_at: datetime | None, closes_at: datetime | None, now: datetime) -> bool:
    """Closed explicitly, or from its closing time on (even before the scheduler marks it)."""
    return closed_at is not None or (closes_at is not None and now >= closes_at)


def check_open(closed: bool, progress: Progress) -> None:
    """A closed post takes no new attempts; a member who finished hears ALREADY_FINISHED."""
    if closed and not progress.finished:
        raise PostClosedError("this quiz has closed")


def check_owner(owner_id: int | None, user_id: int) -> None:
    """A private post (`owner_id` set) is its owner's alone."""
    if owner_id is not None and owner_id != user_id:
        raise PrivatePostError()


def check_partial_picks(task: Task, picks: Mapping[int, str]) -> None:
    """The picker's picks so far: blank numbers of this task, labels of its options (a cloze
    task's: its choice parts, each with its own options)."""
    if task.kind is Kind.CLOZE:
        for part, label in picks.items():
            if not 1 <= part <= len(task.parts) or label not in task.parts[part - 1].labels:
                raise InvalidAnswerError(f"{task.id} has no option {label!r} for part {part}")
        return
    for blank, label in picks.items():
        if not 1 <= blank <= task.blanks or label not in task.labels:
            raise InvalidAnswerError(f"{task.id} has no option {label!r} for blank {blank}")


def normalise_picks(task: Task, picks: Sequence[str]) -> tuple[str, ...]:
    """Validate an answer's shape: one known option label per blank; for a multi task, a set
    of known labels, in option order (so the same set is the same answer)."""
    picks = tuple(picks)
    if task.typed:
        return (_typed_answer(task, picks),)
    if task.kind is Kind.CLOZE:
        return _cloze_picks(task, picks)
    if task.kind is Kind.MULTI:
        if not picks:
            raise BlankAnswerError(f"{task.id} takes at least one option")
        if strange := set(picks) - set(task.labels):
            raise InvalidAnswerError(f"{task.id} has no option {', '.join(sorted(strange))}")
        if task.single and len(set(picks)) > 1:
            raise InvalidAnswerError(f"{task.id} takes one option, got {len(set(picks))}")
        return tuple(label for label in task.labels if label in picks)
    if len(picks) != task.blanks:
        raise InvalidAnswerError(f"{task.id} expects {task.blanks} pick(s), got {len(picks)}")
    unknown = [p for p in picks if p not in task.labels]
    if unknown:
        raise InvalidAnswerError(f"{task.id} has no option {', '.join(unknown)}")
    return picks


def grade(task: Task, progress: Progress, picks: Sequence[str]) -> Outcome:
    """Grade one attempt. ALREADY_FINISHED and REPEATED (a double click) change nothing."""
    picks = normalise_picks(task, picks)
    if progress.finished:
        return Outcome(Status.ALREADY_FINISHED, progress, points=progress.points)

    if task.kind is Kind.MULTI:
        return _grade_multi(task, progress, picks)
    if task.kind is Kind.MATCHING:
        return _grade_matching(task, progress, picks)
    if task.kind is Kind.CLOZE:
        return _grade_cloze(task, progress, picks)
    if task.short is not None:
        return _grade_short(task, task.short, progress, picks[0])
    if task.numeric is not None:
        return _grade_numeric(task, task.numeric, progress, picks[0])
    pairs = enumerate(zip(picks, task.answers, strict=True), start=1)
    wrong = tuple(blank for blank, (got, want) in pairs if got != want)
    if not wrong:
        points = _points(task, progress)
        done = replace(progress, solved=True, points=points)
        return Outcome(Status.CORRECT, done, points=points, picks=picks)

    notes = mistake_notes(task, picks, wrong)
    if picks in progress.tried:
        # The same wrong answer again: reminded of why, not graded (nothing is stored).
        return Outcome(Status.REPEATED, progress, wrong_blanks=wrong, notes=notes, picks=picks)
    after = replace(progress, wrong_tries=progress.wrong_tries + 1, tried=progress.tried | {picks})
    status = Status.FAILED if after.finished else Status.WRONG
    return Outcome(status, after, wrong_blanks=wrong, notes=notes, picks=picks)


def _points(task: Task, progress: Progress, credit: Fraction = Fraction(1)) -> int:
    """What finishing now earns: `score` times the credit, rounded half up; none once the
    task scores none here."""
    if progress.scores_none:
        return 0
    wrong, hints = progress.task_wrong_tries, progress.task_hints_seen
    if credit == 1:
        return score(task.difficulty, wrong, hints)
    value = Fraction(task.difficulty.points * (MAX_ATTEMPTS - wrong), MAX_ATTEMPTS) * credit
    return int(value / 2**hints + Fraction(1, 2))


def credit(task: Task, picks: Sequence[str]) -> Fraction:
    """A multi task's credit for a set of picks, 0 to 1: the sum of their weights, clamped as
    Moodle does; within CREDIT_TOLERANCE of 100% counts as full."""
    total = sum((task.weight(label) for label in set(picks)), Fraction(0))
    if total >= FULL_CREDIT - CREDIT_TOLERANCE:
        return Fraction(1)
    return max(total, Fraction(0)) / FULL_CREDIT


def _solved(task: Task, progress: Progress, picks: tuple[str, ...], **extra: Any) -> Outcome:
    """A graded kind's right answer: the points of finishing now."""
    points = _points(task, progress)
    done = replace(progress, solved=True, points=points)
    return Outcome(Status.CORRECT, done, points=points, picks=picks, credit=Fraction(1), **extra)


def _missed(
    task: Task, progress: Progress, picks: tuple[str, ...], got: Fraction, **extra: Any
) -> Outcome:
    """A graded kind's miss: one attempt more; the last one still earns its credit's share of
    the points it was worth."""
    after = replace(progress, wrong_tries=progress.wrong_tries + 1, tried=progress.tried | {picks})
    points = _points(task, progress, got) if after.finished else 0
    status = Status.FAILED if after.finished else Status.WRONG
    return Outcome(
        status, replace(after, points=points), points=points, picks=picks, credit=got, **extra
    )


def _grade_multi(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
    """One submitted set is one attempt. Right at full credit; the last attempt, if not right,
    still earns its credit's share of the points it was worth."""
    got = credit(task, picks)
    if got == 1:
        return _solved(task, progress, picks)
    # A single pick short of full credit is the wrong one (its note explains the half).
    wrong = tuple(label for label in picks if task.weight(label) <= 0 or task.single)
    found = [note for label in wrong for note in task.notes_for(label)]
    notes = tuple(dict.fromkeys(found)) or task.general_notes
    if picks in progress.tried:  # the same set again: reminded of why, not graded
        return Outcome(
            Status.REPEATED, progress, notes=notes, picks=picks, credit=got, wrong_picks=wrong
        )
    return _missed(task, progress, picks, got, notes=notes, wrong_picks=wrong)


def matching_credit(task: Task, picks: Sequence[str]) -> Fraction:
    """A matching task's credit, 0 to 1: the share of stems matched right, as Moodle's."""
    right = sum(got == want for got, want in zip(picks, task.answers, strict=True))
    return Fraction(right, len(task.answers))


def _grade_matching(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
    """A full set of pairs is one attempt, right only when every pair is; the last attempt,
    if not right, earns its credit's share of the points it was worth."""
    got = matching_credit(task, picks)
    if got == 1:
        return _solved(task, progress, picks)
    pairs = enumerate(zip(picks, task.answers, strict=True), start=1)
    wrong = tuple(stem for stem, (pick, want) in pairs if pick != want)
    notes = mistake_notes(task, picks, wrong)
    if picks in progress.tried:  # the same pairs again: reminded of why, not graded
        return Outcome(
            Status.REPEATED, progress, wrong_blanks=wrong, notes=notes, picks=picks, credit=got
        )
    return _missed(task, progress, picks, got, wrong_blanks=wrong, notes=notes)


def _cloze_picks(task: Task, picks: tuple[str, ...]) -> tuple[str, ...]:
    """An answer per part, checked by its part (`ClozePart.check`: a blank or non-number part
    uses no attempt, as Moodle's interactive mode asks for every part first), encoded for the
    store (`cloze.encode`)."""
    if len(picks) != len(task.parts):
        raise InvalidAnswerError(f"{task.id} expects {len(task.parts)} part(s), got {len(picks)}")
    return cloze.encode([part.check(pick) for part, pick in zip(task.parts, picks, strict=True)])


def _grade_cloze(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
    """All parts at once are one attempt, right only when every part is; the last attempt, if
    not right, earns its credit's share (`cloze.credit`) of the points it was worth."""
    answers = cloze.decode(picks)
    got = cloze.credit(task.parts, answers)
    if got == 1:
        return _solved(task, progress, picks)
    pairs = list(zip(task.parts, answers, strict=True))
    wrong = tuple(n for n, (part, answer) in enumerate(pairs, 1) if part.credit(answer) < 1)
    found = [note for n in wrong if (note := pairs[n - 1][0].note(pairs[n - 1][1]))]
    notes = tuple(dict.fromkeys(found)) or task.general_notes
    if any(_same_cloze(task, cloze.decode(tried), answers) for tried in progress.tried):
        return Outcome(
            Status.REPEATED, progress, wrong_blanks=wrong, notes=notes, picks=picks, credit=got
        )
    return _missed(task, progress, picks, got, wrong_blanks=wrong, notes=notes)


def _same_cloze(task: Task, a: Sequence[str], b: Sequence[str]) -> bool:
    return len(a) == len(b) == len(task.parts) and all(
        part.same(x, y) for part, x, y in zip(task.parts, a, b, strict=True)
    )


def cloze_answers(task: Task, picks: Sequence[str]) -> tuple[str, ...] | None:
    """A cloze task's stored picks as one answer per part; None if they are not that."""
    answers = cloze.decode(picks)
    if len(answers) != len(task.parts):
        return None
    for part, answer in zip(task.parts, answers, strict=True):
        if part.choice and answer not in part.labels:
            return None
    return answers


def cloze_misses(task: Task, picks: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """A cloze answer's parts short of full credit, as (part, answer): a choice part's label,
    a typed part's text (case-folded unless the part is case-sensitive), for the reports."""
    answers = cloze_answers(task, picks)
    if answers is None:
        return ()
    found: list[tuple[int, str]] = []
    for n, (part, got) in enumerate(zip(task.parts, answers, strict=True), 1):
        try:
            right = part.credit(got) == 1
        except InvalidAnswerError:  # stored before an edit that made it no number
            right = False
        if not right:
            found.append((n, got if part.choice or part.case_sensitive else got.casefold()))
    return tuple(found)


def _typed_answer(task: Task, picks: tuple[str, ...]) -> str:
    """A typed answer, normalised; a blank one is refused before any attempt is counted."""
    if len(picks) != 1:
        raise InvalidAnswerError(f"{task.id} takes one typed answer, got {len(picks)}")
    text = typed.normalise(picks[0])
    if not text:
        raise BlankAnswerError(f"{task.id} takes a typed answer")
    if len(text) > typed.MAX_TYPED:
        raise InvalidAnswerError(f"a typed answer is at most {typed.MAX_TYPED} characters")
    if task.numeric is not None:
        numeric.read(task.numeric, text)  # NotANumberError: no attempt is used
    return text


def _grade_short(task: Task, spec: typed.ShortAnswers, progress: Progress, text: str) -> Outcome:
    """A typed answer: right at full credit; a partial match, like a multi task's set, is a
    miss that still earns its credit's share on the last attempt."""
    picks = (text,)
    found = typed.match(spec, text)
    expected = found.accepted.text if found.accepted and found.typo else None
    if found.credit == 1:
        return _solved(task, progress, picks, expected=expected)
    return _typed_miss(task, spec, progress, text, found.credit, expected=expected)


def _typed_miss(
    task: Task,
    spec: typed.ShortAnswers,
    progress: Progress,
    text: str,
    got: Fraction,
    same: Callable[[str, str], bool] | None = None,
    **extra: Any,
) -> Outcome:
    """A typed answer short of full credit: a repeat (stored picks are read back split at
    commas, so one is compared as one text) is reminded, not graded; else a miss."""
    picks = (text,)
    notes = typed_notes(task, text)
    if same is None:
        same = functools.partial(typed.same_answer, spec)
    if any(same(",".join(tried), text) for tried in progress.tried):
        return Outcome(Status.REPEATED, progress, notes=notes, picks=picks, credit=got)
    return _missed(task, progress, picks, got, wrong_blanks=(1,), notes=notes, **extra)


def _grade_numeric(
    task: Task, spec: numeric.NumericAnswers, progress: Progress, text: str
) -> Outcome:
    """A typed number: as a short answer, with the credit of the first answer holding it."""
    picks = (text,)
    found = numeric.match(spec, text)
    if found.credit == 1:
        return _solved(task, progress, picks)
    return _typed_miss(
        task, typed.ShortAnswers(()), progress, text, found.credit,
        same=functools.partial(_same_number, spec),
    )  # fmt: skip


def _same_number(spec: numeric.NumericAnswers, tried: str, text: str) -> bool:
    """"3,5" after "3.5" (or "3500 g" after "3.5 kg") is the same answer again: no attempt."""
    try:
        return numeric.read(spec, tried) == numeric.read(spec, text)
    except numeric.NotANumberError:  # stored before the bank changed its units
        return False


def typed_credit(task: Task, text: str) -> Fraction:
    """A typed answer's credit, 0 to 1 (0 for a numerical task's non-number)."""
    if task.short is not None:
        return typed.match(task.short, text).credit
    if task.numeric is not None:
        try:
            return numeric.match(task.numeric, text).credit
        except numeric.NotANumberError:
            return Fraction(0)
    raise ValueError(f"{task.id} is not a typed task")


def typed_notes(task: Task, text: str) -> tuple[str, ...]:
    """The note of the known wrong answer `text` is, else the task's catch-all notes."""
    known = None
    if task.short is not None:
        known = typed.known_mistake(task.short, text)
    elif task.numeric is not None:
        try:
            known = numeric.known_mistake(task.numeric, text)
        except numeric.NotANumberError:
            known = None
    return (known.note,) if known else task.general_notes


def mistake_notes(task: Task, picks: Sequence[str], wrong: Sequence[int]) -> tuple[str, ...]:
    """The notes tied to the wrongly picked options, in blank order, without repeats."""
    notes: list[str] = []
    for blank in wrong:
        for note in task.notes_at(blank, picks[blank - 1]):
            if note not in notes:
                notes.append(note)
    return tuple(notes) or task.general_notes


PostLink = tuple[int, int, int | None]
"""(server, channel, message) of a post; the message is None until it was sent."""


def check_free_look(closed: bool, progress: Progress, elsewhere: PostLink | None) -> None:
    """A closed post's free hint and solution would give away the answer to a member who can
    still score with its task on another public post (`elsewhere`)."""
    if closed and progress.can_score and elsewhere:
        raise AnswerableElsewhereError(elsewhere)


def hint_is_free(progress: Progress, closed: bool) -> bool:
    """After finishing, or once the post has closed, a hint costs nothing."""
    return progress.finished or closed


@dataclass(frozen=True, slots=True)
class HintAccess:
    """What asking for a hint shows and does to one member's progress."""

    progress: Progress
    """After: the hints shown are seen (unchanged when free)."""
    shown: int
    """How many of the task's hints to show, from the first: the ones seen and the next."""
    charged: bool
    """The last one shown is new: the points still open were halved."""
    free: bool
    """Finished or closed: every hint is shown, and nothing is charged or stored."""


def see_hint(task: Task, progress: Progress, *, closed: bool = False) -> HintAccess:
    """The next hint of the ladder, with the ones seen before (again free); all of them once
    free. A task without hints has none to see (NoHintError: nothing charged)."""
    count = len(task.hints)
    if not count:
        raise NoHintError()
    if hint_is_free(progress, closed):
        return HintAccess(progress, count, charged=False, free=True)
    seen = min(progress.task_hints_seen, count)
    shown = min(seen + 1, count)
    after = replace(progress, hints_seen=max(progress.hints_seen, shown))
    return HintAccess(after, shown, charged=shown > seen, free=False)


def forfeit(progress: Progress) -> Progress:
    """Reveal the solution: before finishing, this ends the task with 0 points."""
    return progress if progress.finished else replace(progress, forfeited=True, points=0)


@dataclass(frozen=True, slots=True)
class SolutionAccess:
    """What asking for the solution does to one member's progress."""

    shown: bool
    """False: it would forfeit, so the member must confirm first (nothing changes)."""
    progress: Progress
    forfeited_now: bool = False
    recorded: bool = False
    """Whether a 'solution' reveal is stored (a closed post's free solution is not)."""


def open_solution(progress: Progress, *, closed: bool, confirmed: bool) -> SolutionAccess:
    """Free after finishing or closing; before, it forfeits, once confirmed. Only a view on an
    open post is recorded: after closing it is everyone's."""
    if closed:
        return SolutionAccess(shown=True, progress=progress)
    if progress.finished:
        return SolutionAccess(shown=True, progress=progress, recorded=True)
    if not confirmed:
        return SolutionAccess(shown=False, progress=progress)
    return SolutionAccess(shown=True, progress=forfeit(progress), forfeited_now=True, recorded=True)


def describe_answer(task: Task, picks: Sequence[str]) -> str:
    """A member's picks in words, e.g. "B · split" or "[1] to_device, [2] devices"."""
    if task.kind is Kind.MULTI:
        return ", ".join(f"{p} · {task.option(p).text}" for p in picks)
    if task.typed:  # read back split at its commas; none: the task's answer
        return ",".join(picks) or task.final_answer()
    if task.kind is Kind.CLOZE:
        answers = cloze_answers(task, picks) if picks else None
        if answers is None:
            return task.final_answer()
        shown = (part.shown(a) for part, a in zip(task.parts, answers, strict=True))
        return ", ".join(f"[{n}] {text}" for n, text in enumerate(shown, 1))
    if task.kind is Kind.MATCHING:
        pairs = zip(task.stems, picks, strict=False)
        return ", ".join(f"{stem} → {task.option(p).text}" for stem, p in pairs)
    if task.kind is Kind.CHOICE or task.blanks == 1:
        return f"{picks[0]} · {task.option(picks[0]).text}"
    return ", ".join(f"[{i}] {task.option(p).text}" for i, p in enumerate(picks, 1))
