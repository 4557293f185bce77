"""Numerical answers (`numerical` tasks), as Moodle grades them: each accepted answer is a value
with a tolerance (`3:2`) or a range (`1..5`) and a credit; a member may write a decimal comma,
scientific notation and a unit, which its multiplier turns into the task's first unit. Pure,
exact (fractions, never floats), shared by the engine, the content check and the importers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Final

from bot.quiz.errors import N_, InvalidAnswerError
from bot.quiz.typed import TypedMistake, normalise

_NUMBER: Final = r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?"
_TYPED: Final = re.compile(rf"(?P<number>{_NUMBER})\s*(?P<unit>.*)")
_SPEC: Final = re.compile(
    rf"(?P<low>{_NUMBER})\s*\.\.\s*(?P<high>{_NUMBER})"
    rf"|(?P<value>{_NUMBER})(?:\s*:\s*(?P<tol>{_NUMBER}))?"
)


class NotANumberError(InvalidAnswerError):
    """A typed answer to a numerical task that is no number: it uses no attempt."""


NOT_A_NUMBER: Final = N_(
    "That isn't a number I can read, so no attempt was used. Type a number such as 42, "
    "3.5, 3,5 or 1.2e-3, with its unit if the task has one."
)


def number(text: str) -> Fraction | None:
    """A decimal number, exactly: "3.5", "3,5" (a decimal comma), "-1e3", ".5"; else None."""
    if not re.fullmatch(_NUMBER, text.strip()):
        return None
    return Fraction(text.strip().replace(",", "."))


def shown(value: Fraction) -> str:
    """A value as people write it: 3, 2.5, 0.001 (exact decimals), else 6 significant digits."""
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):.6g}"


@dataclass(frozen=True, slots=True)
class NumAnswer:
    """Right within [low, high] (a value ± tolerance, or a range); `credit` in percent."""

    low: Fraction
    high: Fraction
    credit: Fraction = Fraction(100)
    spec: str = field(default="", compare=False)
    """As the author wrote it ("3:2", "1..5"): Moodle XML writes both as value and tolerance."""

    def holds(self, value: Fraction) -> bool:
        return self.low <= value <= self.high

    @property
    def middle(self) -> Fraction:
        return (self.low + self.high) / 2


def parse_spec(text: str, credit: Fraction = Fraction(100)) -> NumAnswer | None:
    """`3`, `3:2` (3 ± 2), `1..5`; None when it is none of these."""
    found = _SPEC.fullmatch(text.strip())
    if found is None:
        return None
    if found["low"] is not None:
        low, high = (Fraction(found[end].replace(",", ".")) for end in ("low", "high"))
        if low > high:
            return None
        return NumAnswer(low, high, credit, f"{shown(low)}..{shown(high)}")
    value = Fraction(found["value"].replace(",", "."))
    tolerance = abs(Fraction(found["tol"].replace(",", "."))) if found["tol"] else Fraction(0)
    spec = f"{shown(value)}:{shown(tolerance)}" if tolerance else shown(value)
    return NumAnswer(value - tolerance, value + tolerance, credit, spec)


@dataclass(frozen=True, slots=True)
class Unit:
    """Moodle's unit: a value in it is the first unit's times `multiplier` (1 m = 100 cm)."""

    name: str
    multiplier: Fraction = Fraction(1)


@dataclass(frozen=True, slots=True)
class NumericAnswers:
    answers: tuple[NumAnswer, ...]
    units: tuple[Unit, ...] = ()
    """The first is the answers' own; none: a unit is no part of the answer."""
    unit_penalty: Fraction = Fraction(0)
    """In percent of the credit: taken when units are set and the member's is missing or
    unknown (Moodle's "fraction of response grade")."""
    mistakes: tuple[TypedMistake, ...] = ()
    """Known wrong answers, as specs ("2", "10..20"), with their note."""

    @property
    def best(self) -> NumAnswer:
        return max(self.answers, key=lambda a: a.credit)

    def answer_text(self) -> str:
        best = self.best
        unit = f" {self.units[0].name}" if self.units else ""
        if best.low == best.high:
            return f"{shown(best.low)}{unit}"
        if best.spec and ".." not in best.spec:
            value, tolerance = best.middle, (best.high - best.low) / 2
            return f"{shown(value)}{unit} (± {shown(tolerance)})"
        return f"{shown(best.low)} to {shown(best.high)}{unit}"


@dataclass(frozen=True, slots=True)
class NumMatch:
    answer: NumAnswer | None
    credit: Fraction
    """0 to 1, after any unit penalty."""
    unit_penalised: bool = False


def read(spec: NumericAnswers, text: str) -> tuple[Fraction, bool]:
    """The typed value in the first unit, and whether its unit was right (or not needed);
    NotANumberError for text that is no number."""
    found = _TYPED.fullmatch(normalise(text))
    value = number(found["number"]) if found else None
    if found is None or value is None:
        raise NotANumberError(f"{text!r} is not a number")
    unit = found["unit"].strip()
    if not spec.units:
        if unit:
            raise NotANumberError(f"{text!r} is not a number")
        return value, True
    if not unit:
        return value, False
    for known in spec.units:
        if known.name == unit or known.name.casefold() == unit.casefold():
            return value / known.multiplier, True
    return value, False


def match(spec: NumericAnswers, text: str) -> NumMatch:
    value, unit_ok = read(spec, text)
    for answer in spec.answers:
        if answer.holds(value):
            credit = answer.credit / 100
            if not unit_ok and spec.unit_penalty:
                credit = credit * (1 - spec.unit_penalty / 100)
            return NumMatch(answer, credit, not unit_ok and bool(spec.unit_penalty))
    return NumMatch(None, Fraction(0))


def known_mistake(spec: NumericAnswers, text: str) -> TypedMistake | None:
    value, _ = read(spec, text)
    for mistake in spec.mistakes:
        for written in mistake.answers:
            answer = parse_spec(written)
            if answer is not None and answer.holds(value):
                return mistake
    return None
