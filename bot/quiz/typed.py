"""Typed answers (`short` tasks): what a member's text is once normalised, and which accepted
answer it matches, with Moodle's `*` wildcard and the opt-in typo tolerance. Pure, so the bot,
the terminal practice and the content check agree on every comparison."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

MAX_TYPED: Final = 200
"""A typed answer's length at most, after normalising (a modal's text input says so too)."""
MAX_TYPOS: Final = 2
TYPO_MIN_LETTERS: Final = 5
"""Typos are forgiven only in answers this long: a typo in "Rome" makes another word."""
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Accepted:
    """One accepted answer, as the author wrote it (`*` matches any text), and its credit."""

    text: str
    credit: Fraction = Fraction(100)
    """In percent, as Moodle's grade: 100 is right, less is partial credit."""


@dataclass(frozen=True, slots=True)
class TypedMistake:
    """Known wrong answers and the note they bring (`mistakes: - answers: [...] note:`)."""

    answers: tuple[str, ...]
    note: str


@dataclass(frozen=True, slots=True)
class ShortAnswers:
    """A `short` task's grading: its accepted answers in order (the first match wins)."""

    accepted: tuple[Accepted, ...]
    case_sensitive: bool = False
    typos: int = 0
    """Damerau–Levenshtein edits forgiven, in answers of TYPO_MIN_LETTERS letters or more."""
    mistakes: tuple[TypedMistake, ...] = ()

    @property
    def best(self) -> Accepted:
        """The answer shown as the solution: the first with the most credit."""
        return max(self.accepted, key=lambda a: a.credit)


@dataclass(frozen=True, slots=True)
class Match:
    accepted: Accepted | None
    """The accepted answer the text matched; None: none did."""
    typo: bool = False
    """Matched only by forgiving a typo: the reply says which spelling was expected."""

    @property
    def credit(self) -> Fraction:
        """0 to 1."""
        return Fraction(0) if self.accepted is None else self.accepted.credit / 100


def normalise(text: str) -> str:
    """Unicode NFC, whitespace trimmed and collapsed: what is graded and stored."""
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def _fold(text: str, case_sensitive: bool) -> str:
    return text if case_sensitive else text.casefold()


def _matches(answer: str, typed: str, case_sensitive: bool) -> bool:
    """Moodle's wildcard: `*` is any text; `\\*` a literal star. Case is compared by full
    case folding ("ﬀ" is "FF"), which a regex's IGNORECASE does not do."""
    parts = re.split(r"(\\\*|\*)", _fold(normalise(answer), case_sensitive))
    body = "".join(
        ".*" if part == "*" else re.escape("*" if part == "\\*" else part) for part in parts
    )
    return re.fullmatch(body, _fold(typed, case_sensitive), re.DOTALL) is not None


def has_wildcard(answer: str) -> bool:
    return bool(re.search(r"(?<!\\)\*", answer))


def distance(a: str, b: str) -> int:
    """Damerau–Levenshtein (optimal string alignment): a swap of neighbours is one edit."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(row[j - 1] + 1, rows[-1][j] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]


def _letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def match(spec: ShortAnswers, text: str) -> Match:
    """The accepted answer `text` matches: exactly (with wildcards) first, in order; then, if
    the task forgives typos, the nearest one without a wildcard, of 5 letters or more."""
    typed = normalise(text)
    for accepted in spec.accepted:
        if _matches(accepted.text, typed, spec.case_sensitive):
            return Match(accepted)
    if spec.typos and not known_mistake(spec, typed):
        got = _fold(typed, spec.case_sensitive)
        near = [
            (distance(got, _fold(normalise(a.text), spec.case_sensitive)), -a.credit, i)
            for i, a in enumerate(spec.accepted)
            if not has_wildcard(a.text) and _letters(a.text) >= TYPO_MIN_LETTERS
        ]
        best = min(near, default=None)
        if best is not None and best[0] <= spec.typos:
            return Match(spec.accepted[best[2]], typo=True)
    return Match(None)


def known_mistake(spec: ShortAnswers, text: str) -> TypedMistake | None:
    """The author's note for a known wrong answer (wildcards allowed), if `text` is one."""
    typed = normalise(text)
    for mistake in spec.mistakes:
        if any(_matches(a, typed, spec.case_sensitive) for a in mistake.answers):
            return mistake
    return None


def same_answer(spec: ShortAnswers, a: str, b: str) -> bool:
    """Two typed answers the task cannot tell apart (a repeat uses no attempt)."""
    return _fold(normalise(a), spec.case_sensitive) == _fold(normalise(b), spec.case_sensitive)


def merged(mistakes: Sequence[TypedMistake]) -> tuple[TypedMistake, ...]:
    """Known mistakes with one note as one (Moodle writes one answer each), in first order."""
    by_note: dict[str, list[str]] = {}
    for mistake in mistakes:
        by_note.setdefault(mistake.note, []).extend(mistake.answers)
    return tuple(TypedMistake(tuple(dict.fromkeys(a)), note) for note, a in by_note.items())
