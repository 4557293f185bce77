"""The task model: what a bank holds, independent of YAML and of Discord."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from bot.quiz.errors import InvalidAnswerError, NoMatchingTaskError, UnknownTaskError

MAX_ATTEMPTS = 3
MAX_BLANKS = 5
BLANK_PATTERN = re.compile(r"\[(\d+)\]")
OPTION_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def option_label(text: str) -> str:
    """A custom_id's option field: one letter (the task's own are `engine.normalise_picks`'s)."""
    if len(text) != 1 or text not in OPTION_LABELS:
        raise InvalidAnswerError("the custom_id names no option")
    return text


def blank_number(text: str) -> int:
    """A picker select's blank field: 1..MAX_BLANKS (`engine.check_partial_picks` checks more)."""
    number = int(text) if len(text) == 1 and text.isascii() and text.isdigit() else 0
    if not 1 <= number <= MAX_BLANKS:
        raise InvalidAnswerError("the custom_id names no blank")
    return number


class Kind(StrEnum):
    CHOICE = "choice"
    FILL = "fill"


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
    """Correct option labels: one per blank for fill tasks, exactly one for choice tasks."""
    hint: str
    solution: Solution
    mistakes: tuple[MistakeNote, ...] = ()
    instruction: str | None = None
    """For fill tasks: what the code should do ("Complete the code to ...")."""
    language: str = "python"
    bank: str = ""
    """The bank (file) the task came from, for messages and /topics."""

    @property
    def blanks(self) -> int:
        return len(self.answers)

    @property
    def multi_blank(self) -> bool:
        """A fill task with two or more blanks: answered with the private picker."""
        return self.kind is Kind.FILL and self.blanks > 1

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(o.label for o in self.options)

    def option(self, label: str) -> Option:
        for opt in self.options:
            if opt.label == label:
                return opt
        raise KeyError(label)

    def answer_text(self, blank: int = 1) -> str:
        return self.option(self.answers[blank - 1]).text

    def notes_for(self, label: str) -> tuple[str, ...]:
        return tuple(n.text for n in self.mistakes if label in n.options)

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
            raise UnknownTaskError(f"task {task_id!r} is not in the loaded banks")
        return task
