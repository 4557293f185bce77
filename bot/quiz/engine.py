"""Grading and scoring: one member's progress on one posted task, as pure functions over
immutable values, so the bot, the terminal practice and the store's write unit apply the same
rules. Each fact is decided here only: a post's id (`post_id`), closed (`post_closed`), taking
an answer (`check_open`, `check_owner`), valid picks (`normalise_picks`, `check_partial_picks`),
finished and attempts left (`Progress`), the score (`score`, `grade`), an attempt recorded
(`Outcome.recorded`), what a hint and the solution cost (`see_hint`, `open_solution`,
`check_free_look`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from fractions import Fraction

from bot.quiz.errors import (
    AnswerableElsewhereError,
    InvalidAnswerError,
    PostClosedError,
    PrivatePostError,
    UnknownPostError,
)
from bot.quiz.tasks import MAX_ATTEMPTS, Difficulty, Kind, Task

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
    hint_seen: bool = False
    forfeited: bool = False
    """The member asked for the solution before finishing."""
    points: int = 0
    tried: frozenset[tuple[str, ...]] = frozenset()
    """The member's wrong answers so far, as `normalise_picks` gives them."""
    finished_elsewhere: bool = False
    """Finished on another public post of the task: a task's points are earned once."""
    wrong_elsewhere: int = 0
    """Misses on the task's other public posts (none finished): they count once, anywhere."""
    hint_elsewhere: bool = False
    """The task's hint seen on another public post, unfinished there."""
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
    def task_hint_seen(self) -> bool:
        return self.hint_seen or self.hint_elsewhere

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
        hint_seen: bool = False,
        solution_seen: bool = False,
        points: int = 0,
        tried: frozenset[tuple[str, ...]] = frozenset(),
    ) -> Progress:
        """The progress a post's stored rows say. A solution seen is a forfeit only when
        nothing else had finished the post: seen after, it was a free look."""
        progress = cls(
            wrong_tries=wrong_tries, solved=solved, hint_seen=hint_seen, points=points, tried=tried
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
            hint_elsewhere=self.hint_elsewhere or any(other.hint_seen for other in others),
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


def score(difficulty: Difficulty, wrong_tries: int, hint_seen: bool) -> int:
    """Difficulty points × (3 − wrong tries) / 3, halved after a hint; rounded half up."""
    value = Fraction(difficulty.points * (MAX_ATTEMPTS - wrong_tries), MAX_ATTEMPTS)
    if hint_seen:
        value /= 2
    return int(value + Fraction(1, 2))


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
    """The picker's picks so far: blank numbers of this task, labels of its options."""
    for blank, label in picks.items():
        if not 1 <= blank <= task.blanks or label not in task.labels:
            raise InvalidAnswerError(f"{task.id} has no option {label!r} for blank {blank}")


def normalise_picks(task: Task, picks: Sequence[str]) -> tuple[str, ...]:
    """Validate an answer's shape: one known option label per blank."""
    picks = tuple(picks)
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

    pairs = enumerate(zip(picks, task.answers, strict=True), start=1)
    wrong = tuple(blank for blank, (got, want) in pairs if got != want)
    if not wrong:
        points = (
            0
            if progress.scores_none
            else score(task.difficulty, progress.task_wrong_tries, progress.task_hint_seen)
        )
        done = replace(progress, solved=True, points=points)
        return Outcome(Status.CORRECT, done, points=points, picks=picks)

    notes = mistake_notes(task, picks, wrong)
    if picks in progress.tried:
        # The same wrong answer again: reminded of why, not graded (nothing is stored).
        return Outcome(Status.REPEATED, progress, wrong_blanks=wrong, notes=notes, picks=picks)
    after = replace(progress, wrong_tries=progress.wrong_tries + 1, tried=progress.tried | {picks})
    status = Status.FAILED if after.finished else Status.WRONG
    return Outcome(status, after, wrong_blanks=wrong, notes=notes, picks=picks)


def mistake_notes(task: Task, picks: Sequence[str], wrong: Sequence[int]) -> tuple[str, ...]:
    """The notes tied to the wrongly picked options, in blank order, without repeats."""
    notes: list[str] = []
    for blank in wrong:
        for note in task.notes_for(picks[blank - 1]):
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


def see_hint(progress: Progress, *, closed: bool = False) -> Progress:
    """The member's progress after seeing the hint: halved points, unless it is free."""
    return progress if hint_is_free(progress, closed) else replace(progress, hint_seen=True)


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
    if task.kind is Kind.CHOICE or task.blanks == 1:
        return f"{picks[0]} · {task.option(picks[0]).text}"
    return ", ".join(f"[{i}] {task.option(p).text}" for i, p in enumerate(picks, 1))
