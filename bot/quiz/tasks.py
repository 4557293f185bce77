"""The task model: what a bank holds, independent of YAML and of Discord."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import Final

from bot.quiz import cloze
from bot.quiz.errors import InvalidAnswerError, NoMatchingTaskError, UnknownTaskError
from bot.quiz.numeric import NumericAnswers
from bot.quiz.typed import ShortAnswers

MAX_ATTEMPTS = 3
MAX_BLANKS = 5
MAX_HINTS = 5
"""A task's hints at most: each halves the points still open (`engine.score`)."""
MAX_STEMS = 9
"""A matching task's stems at most: a stem is a custom_id's one-digit blank (`blank_number`)."""
BLANK_PATTERN = re.compile(r"\[(\d+)\]")
OPTION_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def option_label(text: str) -> str:
    """A custom_id's option field: one letter (the task's own are `engine.normalise_picks`'s)."""
    if len(text) != 1 or text not in OPTION_LABELS:
        raise InvalidAnswerError("the custom_id names no option")
    return text


def pair_key(stem: int, label: str) -> str:
    """A matching note's tie to one wrong answer of one stem (`MistakeNote.options`): "2:C"."""
    return f"{stem}:{label}"


def blank_number(text: str) -> int:
    """A picker select's blank (or stem) field: 1..MAX_STEMS (`engine.check_partial_picks`
    checks it against the task)."""
    number = int(text) if len(text) == 1 and text.isascii() and text.isdigit() else 0
    if not 1 <= number <= MAX_STEMS:
        raise InvalidAnswerError("the custom_id names no blank")
    return number


class Kind(StrEnum):
    CHOICE = "choice"
    FILL = "fill"
    MULTI = "multi"
    """Several right options, each option weighted as in Moodle (`Task.weights`)."""
    SHORT = "short"
    """A typed answer, graded against the accepted ones (`Task.short`); no options."""
    NUMERICAL = "numerical"
    """A typed number, within an answer's tolerance or range (`Task.numeric`); no options."""
    MATCHING = "matching"
    """Stems, each matched to one of the options (`Task.stems`): a blank per stem."""
    CLOZE = "cloze"
    """Parts in one text (`Task.parts`), each a choice, a typed answer or a number."""


FULL_CREDIT: Final = Fraction(100)
CREDIT_TOLERANCE: Final = Fraction(1, 100)
"""Weights in percent: Moodle writes a third as 33.33333, so three of them still make 100."""


def equal_weights(labels: Sequence[str], right: Sequence[str]) -> tuple[Fraction, ...]:
    """`answers: [A, C]`: the right options share 100% and each wrong pick takes one share."""
    share = FULL_CREDIT / len(right)
    return tuple(share if label in right else -share for label in labels)


class Difficulty(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"

    @property
    def points(self) -> int:
        return _DIFFICULTY_POINTS[self]


_DIFFICULTY_POINTS = {Difficulty.EASY: 10, Difficulty.MEDIUM: 20, Difficulty.HARD: 30}


@dataclass(frozen=True, slots=True)
class Option:
    label: str
    text: str


@dataclass(frozen=True, slots=True)
class MistakeNote:
    """Why a wrong choice is wrong. A note with no options is general to the task."""

    text: str
    options: tuple[str, ...] = ()

    @property
    def general(self) -> bool:
        return not self.options


@dataclass(frozen=True, slots=True)
class SolutionStep:
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Solution:
    steps: tuple[SolutionStep, ...] = ()
    final_answer: str | None = None
    quick_check: str | None = None
    explanation: str | None = None


@dataclass(frozen=True, slots=True)
class Task:
    id: str
    topic: str
    kind: Kind
    difficulty: Difficulty
    prompt: str
    """The question of a choice task, or the code template (with [1]..[n]) of a fill task."""
    options: tuple[Option, ...]
    answers: tuple[str, ...]
    """Correct option labels: one per blank for fill tasks, exactly one for choice tasks, the
    options of positive weight for multi tasks (of full weight for a `single` one)."""
    hints: tuple[str, ...]
    """The hint ladder, shown one at a time in order (at most MAX_HINTS); empty: no hint."""
    solution: Solution
    mistakes: tuple[MistakeNote, ...] = ()
    instruction: str | None = None
    """For fill tasks: what the code should do ("Complete the code to ...")."""
    language: str = "python"
    bank: str = ""
    """The bank (file) the task came from, for messages and /topics."""
    bank_language: str | None = None
    """The language tag its bank declares (`de`, `pt-BR`), shown beside the bank; the content
    itself is never translated. (`language` is a fill task's code language.)"""
    weights: tuple[Fraction, ...] = ()
    """Multi tasks: each option's weight in percent, in option order (empty for the others)."""
    show_count: bool = False
    """Multi tasks: the post says how many options are right."""
    single: bool = False
    """Multi tasks: the member picks exactly one option, graded by its weight (Moodle's
    single-answer multiple choice with partial credit)."""
    short: ShortAnswers | None = None
    """Short tasks: the accepted answers and how they are compared (None for the others)."""
    numeric: NumericAnswers | None = None
    """Numerical tasks: the accepted values, units and unit penalty (None for the others)."""
    stems: tuple[str, ...] = ()
    """Matching tasks: the stems, in order; `answers` holds each one's option label."""
    parts: tuple[cloze.ClozePart, ...] = ()
    """Cloze tasks: the parts, in order; the prompt marks each one's place (`cloze.MARKER`)."""

    @property
    def typed(self) -> bool:
        """Answered by typing, in a modal: no options, no option buttons."""
        return self.short is not None or self.numeric is not None

    @property
    def blanks(self) -> int:
        return len(self.parts) if self.kind is Kind.CLOZE else len(self.answers)

    @property
    def multi_blank(self) -> bool:
        """Answered with the private picker, a select per blank: a fill task with two or
        more blanks, or a matching task (a blank per stem)."""
        return (self.kind is Kind.FILL and self.blanks > 1) or self.kind is Kind.MATCHING

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(o.label for o in self.options)

    def option(self, label: str) -> Option:
        for opt in self.options:
            if opt.label == label:
                return opt
        raise KeyError(label)

    def weight(self, label: str) -> Fraction:
        """A multi task's weight of one option, in percent."""
        return self.weights[self.labels.index(label)]

    def answer_text(self, blank: int = 1) -> str:
        return self.option(self.answers[blank - 1]).text

    def notes_for(self, label: str) -> tuple[str, ...]:
        return tuple(n.text for n in self.mistakes if label in n.options)

    def notes_at(self, blank: int, label: str) -> tuple[str, ...]:
        """The notes on picking `label` for a blank; a matching task's are each stem's own."""
        return self.notes_for(pair_key(blank, label) if self.kind is Kind.MATCHING else label)

    @property
    def general_notes(self) -> tuple[str, ...]:
        return tuple(n.text for n in self.mistakes if n.general)

    def filled(self, picks: Mapping[int, str] | None = None, placeholder: str = "[{n}]") -> str:
        """The fill template with the picked option texts in place of the blanks."""
        picks = picks or {}

        def sub(m: re.Match[str]) -> str:
            n = int(m.group(1))
            label = picks.get(n)
            return self.option(label).text if label else placeholder.format(n=n)

        return BLANK_PATTERN.sub(sub, self.prompt)

    def solved_template(self) -> str:
        return self.filled(dict(enumerate(self.answers, start=1)))

    def final_answer(self) -> str:
        """The answer in words, for solutions whose source gives none explicitly."""
        if self.solution.final_answer:
            return self.solution.final_answer
        if self.kind is Kind.MULTI:
            return "; ".join(self.option(label).text for label in self.answers)
        if self.short is not None:
            return self.short.best.text
        if self.numeric is not None:
            return self.numeric.answer_text()
        if self.kind is Kind.MATCHING:
            return "; ".join(f"{s} → {self.answer_text(i)}" for i, s in enumerate(self.stems, 1))
        if self.kind is Kind.CLOZE:
            return ", ".join(f"[{n}] {p.best_text()}" for n, p in enumerate(self.parts, 1))
        parts = [f"[{i}] = {self.answer_text(i)}" for i in range(1, self.blanks + 1)]
        return ", ".join(parts) if self.kind is Kind.FILL else self.answer_text()


@dataclass(slots=True)
class Catalog:
    """Every loaded task, indexed by id, in load order."""

    tasks: dict[str, Task] = field(default_factory=dict)

    @classmethod
    def of(cls, tasks: Iterable[Task]) -> Catalog:
        return cls({t.id: t for t in tasks})

    def __len__(self) -> int:
        return len(self.tasks)

    def __iter__(self) -> Iterator[Task]:
        return iter(self.tasks.values())

    def __contains__(self, task_id: object) -> bool:
        return task_id in self.tasks

    def get(self, task_id: str) -> Task | None:
        return self.tasks.get(task_id)

    def topics(self) -> list[str]:
        return sorted({t.topic for t in self})

    def select(self, topic: str | None = None, difficulty: Difficulty | None = None) -> list[Task]:
        """Tasks of a topic (case-insensitive) and difficulty; None means any."""
        return [
            t
            for t in self
            if (topic is None or t.topic.casefold() == topic.casefold())
            and (difficulty is None or t.difficulty is difficulty)
        ]

    def matching(
        self, topic: str | None = None, difficulty: Difficulty | None = None
    ) -> list[Task]:
        """`select`, where an empty result is the member's error (NoMatchingTaskError)."""
        tasks = self.select(topic, difficulty)
        if not tasks:
            raise NoMatchingTaskError(topic, difficulty.value if difficulty else None)
        return tasks

    def get_or_raise(self, task_id: str) -> Task:
        task = self.tasks.get(task_id)
        if task is None:
            raise UnknownTaskError(task_id)
        return task
