"""Cloze tasks (Moodle's embedded answers, "multianswer"): one text with several parts, each a
choice (MULTICHOICE), a typed answer (SHORTANSWER) or a number (NUMERICAL), graded as Moodle
grades them: each part's credit times its weight, over the weights. A typed part is graded by
`typed` and a number by `numeric`, so a part compares as a `short` or `numerical` task does."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Final

from bot.quiz import numeric, typed
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError

MAX_PARTS: Final = 9
"""A cloze task's parts at most: a part is a custom_id's one-digit blank (`tasks.blank_number`)."""
MAX_TYPED_PARTS: Final = 5
"""Typed parts at most: they share one modal, and Discord's modal holds 5 text inputs."""
MARKER: Final = re.compile(r"\{#(\d+)\}")
"""Where a part stands in a cloze task's prompt: `{#1}`, as Moodle keeps the text."""
_LABELS: Final = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class PartKind(StrEnum):
    CHOICE = "multichoice"
    SHORT = "shortanswer"
    NUMERICAL = "numerical"


@dataclass(frozen=True, slots=True)
class PartAnswer:
    """One answer of a part as Moodle writes it: `=Paris#note`, `%50%paris`, `~Lyon#why`."""

    text: str
    credit: Fraction
    """In percent: 100 is right, less is partial credit."""
    feedback: str = ""


@dataclass(frozen=True, slots=True)
class ClozePart:
    kind: PartKind
    answers: tuple[PartAnswer, ...]
    weight: int = 1
    """Moodle's `{2:...}`: the part's share of the task's credit."""
    style: str = ""
    """The type as written ("MC", "MCV", "SAC", ...), so an export gives it back; "" the
    kind's full name."""
    case_sensitive: bool = False
    """A typed part's `SAC` / `SHORTANSWER_C`."""

    @property
    def choice(self) -> bool:
        return self.kind is PartKind.CHOICE

    @property
    def labels(self) -> tuple[str, ...]:
        """A choice part's options' labels, in order (the picks a select gives)."""
        return tuple(_LABELS[: len(self.answers)]) if self.choice else ()

    @property
    def best(self) -> PartAnswer:
        """The answer shown as the solution: the first with the most credit."""
        return max(self.answers, key=lambda a: a.credit)

    def best_text(self) -> str:
        if self.kind is PartKind.NUMERICAL:
            return self.numeric_spec().answer_text()
        return self.best.text

    def short_spec(self) -> typed.ShortAnswers:
        """A typed part as a short task's answers: 0% answers with feedback are its mistakes."""
        accepted = tuple(typed.Accepted(a.text, a.credit) for a in self.answers if a.credit > 0)
        mistakes = tuple(
            typed.TypedMistake((a.text,), a.feedback)
            for a in self.answers
            if a.credit <= 0 and a.feedback
        )
        return typed.ShortAnswers(accepted, self.case_sensitive, 0, mistakes)

    def numeric_spec(self) -> numeric.NumericAnswers:
        """A number part as a numerical task's answers (`3.14:0.01`, `1..5`); `*` catches all."""
        values: list[numeric.NumAnswer] = []
        mistakes: list[typed.TypedMistake] = []
        for a in self.answers:
            if a.text == "*":
                continue
            spec = numeric.parse_spec(a.text, a.credit if a.credit > 0 else Fraction(100))
            if spec is None:
                continue  # the content check refuses it; never graded
            if a.credit > 0:
                values.append(spec)
            elif a.feedback:
                mistakes.append(typed.TypedMistake((a.text,), a.feedback))
        return numeric.NumericAnswers(tuple(values), mistakes=tuple(mistakes))

    def check(self, answer: str) -> str:
        """A member's answer to this part as graded and stored: a known label, or the typed
        text normalised; a blank one is refused (BlankAnswerError: no attempt is used)."""
        if self.choice:
            if not answer:
                raise BlankAnswerError("every part of a cloze task takes an answer")
            if answer not in self.labels:
                raise InvalidAnswerError(f"a cloze part has no option {answer!r}")
            return answer
        text = typed.normalise(answer)
        if not text:
            raise BlankAnswerError("every part of a cloze task takes an answer")
        if len(text) > typed.MAX_TYPED:
            raise InvalidAnswerError(f"a typed answer is at most {typed.MAX_TYPED} characters")
        if self.kind is PartKind.NUMERICAL:
            numeric.read(self.numeric_spec(), text)  # NotANumberError: no attempt is used
        return text

    def credit(self, answer: str) -> Fraction:
        """This part's credit for a checked answer, 0 to 1."""
        if self.choice:
            return max(self.answers[self.labels.index(answer)].credit, Fraction(0)) / 100
        if self.kind is PartKind.SHORT:
            return typed.match(self.short_spec(), answer).credit
        return numeric.match(self.numeric_spec(), answer).credit

    def note(self, answer: str) -> str | None:
        """The feedback tied to a checked answer short of full credit (Moodle's `#...`)."""
        if self.choice:
            chosen = self.answers[self.labels.index(answer)]
            return None if chosen.credit >= 100 else chosen.feedback or None
        if self.kind is PartKind.SHORT:
            spec = self.short_spec()
            found = typed.match(spec, answer).accepted
            if found is None:
                mistake = typed.known_mistake(spec, answer)
                return mistake.note if mistake else None
        else:
            found_number = numeric.match(self.numeric_spec(), answer).answer
            if found_number is None:
                known = numeric.known_mistake(self.numeric_spec(), answer)
                return known.note if known else self._catch_all()
            return self._feedback_of(found_number.spec, found_number.credit)
        return self._feedback_of(found.text, found.credit)

    def _feedback_of(self, text: str, credit: Fraction) -> str | None:
        for a in self.answers:
            if a.credit == credit and a.credit < 100 and a.feedback and _same_spec(a.text, text):
                return a.feedback
        return None

    def _catch_all(self) -> str | None:
        return next((a.feedback or None for a in self.answers if a.text == "*"), None)

    def right_text(self) -> str | None:
        """A typed text this part takes as fully right, to fill in again on a retry; None if
        it has none to show (a wildcard answer)."""
        if self.kind is PartKind.NUMERICAL:
            best = self.numeric_spec().best
            text = numeric.shown(best.middle)
        else:
            text = self.best.text
        try:
            return text if self.credit(self.check(text)) == 1 else None
        except InvalidAnswerError:
            return None

    def shown(self, answer: str) -> str:
        """A checked answer in words: a choice part's option text, else the typed text."""
        return self.answers[self.labels.index(answer)].text if self.choice else answer

    def same(self, a: str, b: str) -> bool:
        """Two answers this part cannot tell apart (a repeat uses no attempt)."""
        if self.choice or self.case_sensitive:
            return a == b
        return a.casefold() == b.casefold()


def _same_spec(written: str, spec: str) -> bool:
    parsed = numeric.parse_spec(written)
    return written == spec or (parsed is not None and parsed.spec == spec)


def typed_parts(parts: Sequence[ClozePart]) -> tuple[int, ...]:
    """The 1-based numbers of the parts answered by typing (the modal's inputs, in order)."""
    return tuple(n for n, part in enumerate(parts, 1) if not part.choice)


def credit(parts: Sequence[ClozePart], answers: Sequence[str]) -> Fraction:
    """Moodle's multianswer grade, 0 to 1: each part's credit times its weight, over the
    weights."""
    total = sum((p.weight for p in parts), 0)
    got = sum((p.credit(a) * p.weight for p, a in zip(parts, answers, strict=True)), Fraction(0))
    return got / total if total else Fraction(0)


def encode(answers: Sequence[str]) -> tuple[str, ...]:
    """Answers as picks the store can join at commas and split back unambiguously: a typed
    part's `\\` and `,` are escaped (`decode` reads them back)."""
    return tuple(a.replace("\\", "\\\\").replace(",", "\\,") for a in answers)


def decode(picks: Sequence[str]) -> tuple[str, ...]:
    """`encode`'s answers from picks, or from the same picks split again at every comma."""
    joined = ",".join(picks)
    answers, current, escaped = [], [], False
    for ch in joined:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            answers.append("".join(current))
            current = []
        else:
            current.append(ch)
    answers.append("".join(current))
    return tuple(answers)


def fill(prompt: str, part_text: Callable[[int], str]) -> str:
    """The prompt with each `{#n}` replaced by `part_text(n)`."""
    return MARKER.sub(lambda m: part_text(int(m.group(1))), prompt)
