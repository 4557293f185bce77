"""Grading and scoring: one member's progress on one posted task.

Pure functions over immutable values, so the same rules serve the Discord bot, the terminal
practice mode and the store's atomic write (which grades inside its transaction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction

from bot.quiz.errors import InvalidAnswerError
from bot.quiz.tasks import MAX_ATTEMPTS, Difficulty, Kind, Task


class Status(StrEnum):
    CORRECT = "correct"
    WRONG = "wrong"
    """Wrong, with attempts left: the answer stays hidden."""
    FAILED = "failed"
    """The last attempt was wrong: the solution is revealed."""
    ALREADY_FINISHED = "already_finished"


@dataclass(frozen=True, slots=True)
class Progress:
    """One member's state on one posted task instance."""

    wrong_tries: int = 0
    solved: bool = False
    hint_seen: bool = False
    forfeited: bool = False
    """The member asked for the solution before finishing."""
    points: int = 0

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
    def first_try(self) -> bool:
        return self.solved and self.wrong_tries == 0


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

    @property
    def correct(self) -> bool:
        return self.status is Status.CORRECT

    @property
    def attempts_left(self) -> int:
        return self.progress.attempts_left

    @property
    def solution_revealed(self) -> bool:
        """Whether the member may now see the answer and worked solution."""
        return self.progress.finished


def score(difficulty: Difficulty, wrong_tries: int, hint_seen: bool) -> int:
    """Difficulty points × (3 − wrong tries) / 3, halved after a hint; rounded half up."""
    value = Fraction(difficulty.points * (MAX_ATTEMPTS - wrong_tries), MAX_ATTEMPTS)
    if hint_seen:
        value /= 2
    return int(value + Fraction(1, 2))


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
    """Grade one attempt. A finished member gets ALREADY_FINISHED and nothing changes."""
    picks = normalise_picks(task, picks)
    if progress.finished:
        return Outcome(Status.ALREADY_FINISHED, progress, points=progress.points)

    pairs = enumerate(zip(picks, task.answers, strict=True), start=1)
    wrong = tuple(blank for blank, (got, want) in pairs if got != want)
    if not wrong:
        points = score(task.difficulty, progress.wrong_tries, progress.hint_seen)
        done = replace(progress, solved=True, points=points)
        return Outcome(Status.CORRECT, done, points=points)

    after = replace(progress, wrong_tries=progress.wrong_tries + 1)
    status = Status.FAILED if after.finished else Status.WRONG
    return Outcome(status, after, wrong_blanks=wrong, notes=mistake_notes(task, picks, wrong))


def mistake_notes(task: Task, picks: Sequence[str], wrong: Sequence[int]) -> tuple[str, ...]:
    """The notes tied to the wrongly picked options, in blank order, without repeats."""
    notes: list[str] = []
    for blank in wrong:
        for note in task.notes_for(picks[blank - 1]):
            if note not in notes:
                notes.append(note)
    return tuple(notes) or task.general_notes


def see_hint(progress: Progress) -> Progress:
    """Record a hint. Seen after finishing, it no longer costs anything."""
    return progress if progress.finished else replace(progress, hint_seen=True)


def forfeit(progress: Progress) -> Progress:
    """Reveal the solution: before finishing, this ends the task with 0 points."""
    return progress if progress.finished else replace(progress, forfeited=True, points=0)


def describe_answer(task: Task, picks: Sequence[str]) -> str:
    """A member's picks in words, e.g. "B · split" or "[1] to_device, [2] devices"."""
    if task.kind is Kind.CHOICE or task.blanks == 1:
        return f"{picks[0]} · {task.option(picks[0]).text}"
    return ", ".join(f"[{i}] {task.option(p).text}" for i, p in enumerate(picks, 1))
