"""Moodle's embedded-answer (Cloze) syntax, read and written: `{1:MULTICHOICE:=right#note~wrong}`,
`{2:SA:=Paris~%50%paris*}`, `{:NM:=3.14:0.01}`. The bank format keeps a cloze task's text in
this syntax, as Moodle writes it (content/README.md), so an import copies it unchanged."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from bot.quiz.cloze import MARKER, ClozePart, PartAnswer, PartKind

_START: Final = re.compile(r"\{(\d*):([A-Z_]+):")
_TYPES: Final = {
    **dict.fromkeys(
        (
            "MULTICHOICE",
            "MC",
            "MULTICHOICE_V",
            "MCV",
            "MULTICHOICE_H",
            "MCH",
            "MULTICHOICE_S",
            "MCS",
            "MULTICHOICE_VS",
            "MCVS",
            "MULTICHOICE_HS",
            "MCHS",
        ),
        PartKind.CHOICE,
    ),
    **dict.fromkeys(("SHORTANSWER", "SA", "MW", "SHORTANSWER_C", "SAC", "MWC"), PartKind.SHORT),
    **dict.fromkeys(("NUMERICAL", "NM"), PartKind.NUMERICAL),
}
"""Moodle's part types we grade; a MULTICHOICE's layout (`_V`, `_H`) and shuffling (`_S`) are
Moodle's display only: on Discord every choice part is a select."""
_CASE_SENSITIVE: Final = frozenset({"SHORTANSWER_C", "SAC", "MWC"})
_FULL_NAME: Final = {
    PartKind.CHOICE: "MULTICHOICE",
    PartKind.SHORT: "SHORTANSWER",
    PartKind.NUMERICAL: "NUMERICAL",
}
_CREDIT: Final = re.compile(r"%(-?\d+(?:[.,]\d*)?)%")
_ESCAPES: Final = '\\}#~/"'


class ClozeSyntaxError(ValueError):
    """Text that is not Moodle's embedded-answer syntax; the message says what and where."""


def parse(text: str) -> tuple[str, tuple[ClozePart, ...]]:
    """The text with each part's place marked `{#n}`, and the parts in order."""
    if found := MARKER.search(text):
        raise ClozeSyntaxError(f"'{found[0]}' is Moodle's own mark for a part: write the part")
    parts: list[ClozePart] = []
    out: list[str] = []
    position = 0
    for start in _START.finditer(text):
        if start.start() < position:
            continue  # inside the part before (an escaped brace's text)
        end = _closing(text, start.end())
        if end is None:
            raise ClozeSyntaxError(f"part {len(parts) + 1} ({start[0]}...) has no closing '}}'")
        parts.append(_part(start[1], start[2], text[start.end() : end], len(parts) + 1))
        out += [text[position : start.start()], f"{{#{len(parts)}}}"]
        position = end + 1
    out.append(text[position:])
    if not parts:
        raise ClozeSyntaxError(
            "no embedded answer: write each part as {1:MULTICHOICE:=right~wrong}, "
            "{1:SHORTANSWER:=answer} or {1:NUMERICAL:=3.14:0.01}"
        )
    return "".join(out), tuple(parts)


def _closing(text: str, at: int) -> int | None:
    """The index of the first `}` from `at` that no backslash escapes."""
    escaped = False
    for i in range(at, len(text)):
        if escaped:
            escaped = False
        elif text[i] == "\\":
            escaped = True
        elif text[i] == "}":
            return i
    return None


def _split(body: str, separator: str) -> list[str]:
    """`body` split at each unescaped `separator`, escapes kept (`_unescape` drops them)."""
    pieces, current, escaped = [], [], False
    for ch in body:
        if escaped:
            current += ["\\", ch]
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == separator:
            pieces.append("".join(current))
            current = []
        else:
            current.append(ch)
    if escaped:
        current.append("\\")
    pieces.append("".join(current))
    return pieces


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: m[1] if m[1] in _ESCAPES else m[0], text).strip()


def _part(weight: str, name: str, body: str, n: int) -> ClozePart:
    kind = _TYPES.get(name)
    if kind is None:
        known = "MULTICHOICE (MC), SHORTANSWER (SA), NUMERICAL (NM) and their variants"
        raise ClozeSyntaxError(f"part {n} has the type {name}, which quizbot cannot grade: {known}")
    answers = tuple(_answer(alternative, n) for alternative in _split(body, "~"))
    style = "" if name == _FULL_NAME[kind] else name
    return ClozePart(kind, answers, int(weight or "1"), style, name in _CASE_SENSITIVE)


def _answer(alternative: str, n: int) -> PartAnswer:
    credit = Fraction(0)
    if alternative.startswith("="):
        credit, alternative = Fraction(100), alternative[1:]
    elif found := _CREDIT.match(alternative):
        credit, alternative = Fraction(found[1].replace(",", ".")), alternative[found.end() :]
    text, *feedback = _split(alternative, "#")
    if not _unescape(text):
        raise ClozeSyntaxError(f"part {n} has an empty answer")
    return PartAnswer(_unescape(text), credit, _unescape("#".join(feedback)))


def escape(text: str) -> str:
    """A text as an answer or feedback of a part: Moodle's special characters escaped."""
    return re.sub(r"([\\}#~])", r"\\\1", text)


def _credit_text(credit: Fraction) -> str:
    value = float(credit)
    return f"{int(value)}" if credit.denominator == 1 else f"{value:.7g}"


def write_part(part: ClozePart) -> str:
    """One part in Moodle's syntax, as `parse` reads it back."""
    alternatives = []
    for a in part.answers:
        if a.credit == 100:
            prefix = "="
        elif a.credit != 0 or a.text.startswith(("=", "%")):
            prefix = f"%{_credit_text(a.credit)}%"
        else:
            prefix = ""
        feedback = f"#{escape(a.feedback)}" if a.feedback else ""
        alternatives.append(f"{prefix}{escape(a.text)}{feedback}")
    name = part.style or _FULL_NAME[part.kind]
    return f"{{{part.weight}:{name}:{'~'.join(alternatives)}}}"


def write(prompt: str, parts: Sequence[ClozePart]) -> str:
    """A cloze task's text in Moodle's syntax: each `{#n}` replaced by its part."""
    return MARKER.sub(lambda m: write_part(parts[int(m[1]) - 1]), prompt)
