"""Aiken: plain-text multiple choice, one question after another.

```
What does len([1, 2, 3]) return?
A) 2
B. 3
C) 4
ANSWER: B
```

The question's lines, then options `A)` or `A.` in order (A, B, C, …), then `ANSWER: X`.
Questions are separated by blank lines (or simply follow an ANSWER line). Each becomes a choice
task; a malformed one becomes a report line naming the line at fault. Aiken carries no
feedback, hint or title: the hint is a neutral one, the solution gives only the answer, and
the id is a slug of the question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from bot.content.importers.drafts import (
    NEUTRAL_HINT,
    NEUTRAL_HINT_COMMENT,
    Draft,
    ImportResult,
    ReportLine,
    slug,
    unique_ids,
)
from bot.quiz.tasks import OPTION_LABELS

FORMAT_NAME = "Aiken"

_OPTION = re.compile(r"^(?P<label>[A-Z])[.)][ \t]+(?P<text>\S.*)$")
_ANSWER = re.compile(r"^ANSWER:[ \t]*(?P<label>\S*)[ \t]*$", re.IGNORECASE)
_NO_FEEDBACK_COMMENT = "Aiken has no feedback: the solution gives only the answer."


def looks_like(text: str) -> bool:
    """Whether `text` reads as Aiken: an `ANSWER: X` line after option lines."""
    if text.lstrip().startswith("<"):
        return False
    lines = [line.strip() for line in text.splitlines()]
    return any(
        _ANSWER.match(line) and i > 0 and _OPTION.match(lines[i - 1])
        for i, line in enumerate(lines)
    )


@dataclass(slots=True)
class _Block:
    """The lines of one question, each with its line number."""

    lines: list[tuple[int, str]] = field(default_factory=list)
    options: bool = False
    """Whether an option line has been seen (the question text is over)."""


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """Every Aiken question in `text` as a choice task; every malformed one as a report line.
    The bank's topic is `topic`, else the source file's name."""
    name = PurePath(source).stem or "aiken"
    drafts: list[Draft] = []
    report: list[ReportLine] = []
    for block in _blocks(text.removeprefix("\ufeff").splitlines()):
        outcome = _question(block)
        if isinstance(outcome, Draft):
            drafts.append(outcome)
        else:
            report.append(outcome)
    unique_ids(drafts)
    return ImportResult(
        drafts,
        report,
        bank=name,
        topic=topic or name,
        source=f"{FORMAT_NAME}: {PurePath(source).name}",
    )


def _blocks(lines: list[str]) -> list[_Block]:
    """Split into questions: at an ANSWER line, and at a blank line once options have begun (a
    blank line between the question and its first option does not split it)."""
    blocks: list[_Block] = []
    block = _Block()

    def flush() -> None:
        nonlocal block
        if block.lines:
            blocks.append(block)
        block = _Block()

    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            if block.lines and (block.options or not _next_is_option(lines, number)):
                flush()
            continue
        if block.lines and _OPTION.match(line):
            block.options = True
        block.lines.append((number, line))
        if _ANSWER.match(line):
            flush()
    flush()
    return blocks


def _next_is_option(lines: list[str], number: int) -> bool:
    """Whether the next non-blank line after line `number` (1-based) is an option."""
    for raw in lines[number:]:
        if raw.strip():
            return _OPTION.match(raw.strip()) is not None
    return False


def _question(block: _Block) -> Draft | ReportLine:
    start = block.lines[0][0]

    def bad(line: int, why: str) -> ReportLine:
        return ReportLine(line, f"left out: the question at line {start} is not valid Aiken: {why}")

    question: list[str] = []
    options: list[str] = []
    answer: str | None = None
    for number, line in block.lines:
        option = _OPTION.match(line) if question else None
        found = _ANSWER.match(line) if question else None
        if found:
            if len(options) < 2:
                return bad(number, "the ANSWER line needs at least two options before it")
            label = found["label"].upper()
            if not label:
                return bad(number, "the ANSWER line names no option")
            if len(label) != 1 or label not in OPTION_LABELS[: len(options)]:
                last = OPTION_LABELS[len(options) - 1]
                return bad(number, f"ANSWER {found['label']!r} is not one of the options A–{last}")
            answer = label
        elif option:
            expected = OPTION_LABELS[len(options)]
            if option["label"] != expected:
                return bad(number, f"option {option['label']} where {expected} was expected")
            options.append(option["text"].strip())
        elif options:
            return bad(number, f"{line!r} is neither an option nor the ANSWER line")
        else:
            question.append(line)
    if answer is None:
        last_line = block.lines[-1][0]
        if not options:
            return bad(last_line, "it has no options (A) text or A. text) and no ANSWER line")
        return bad(last_line, "no ANSWER: line after its options")
    text = "\n".join(question)
    return Draft(
        id=slug(text),
        kind="choice",
        options=options,
        answers=[answer],
        question=text,
        hint=NEUTRAL_HINT,
        final_answer=options[OPTION_LABELS.index(answer)],
        source_line=start,
        comment=f"{_NO_FEEDBACK_COMMENT}\n{NEUTRAL_HINT_COMMENT}",
    )
