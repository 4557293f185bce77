"""Aiken: plain-text multiple choice (question lines, `A)` or `A.` options, `ANSWER: X`).

Each question becomes a choice task, a malformed one a report line naming the line at fault.
Aiken has no feedback, hint or title: no hint, the answer as solution, a slug as id.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from bot.content.importers import drafts
from bot.content.importers.drafts import Draft, ImportResult, ReportLine
from bot.quiz.tasks import OPTION_LABELS

FORMAT_NAME = "Aiken"

_OPTION = re.compile(r"^(?P<label>[A-Z])[.)][ \t]+(?P<text>\S.*)$")
_EMPTY_OPTION = re.compile(r"^(?P<label>[A-Z])[.)]$")
_TIGHT_OPTION = re.compile(r"^[A-Z][.)]\S")  # `A)x`: the space after the label is missing
# Any ANSWER line, even a malformed one, ends its question: it is reported as what it is.
_ANSWER = re.compile(r"^ANSWER[ \t]*:[ \t]*(?P<label>.*?)[ \t]*$", re.IGNORECASE)
_SEVERAL = re.compile(r"[\s,;/&]+")
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
    options: bool = False  # an option line was seen: the question text is over


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """Every question as a choice task or a report line; the topic is `topic` or the file's name."""
    name = PurePath(source).stem or "aiken"
    made: list[Draft] = []
    report: list[ReportLine] = []
    for block in _blocks(text.removeprefix("\ufeff").splitlines()):
        outcome = _question(block)
        if isinstance(outcome, Draft):
            made.append(outcome)
        else:
            report.append(outcome)
    drafts.unique_ids(made)
    shown = f"{FORMAT_NAME}: {PurePath(source).name}"
    return ImportResult(made, report, name, topic or name, shown)


def _blocks(lines: list[str]) -> list[_Block]:
    """Split into questions at an ANSWER line, and at a blank line once options have begun."""
    blocks: list[_Block] = []
    block = _Block()
    following = _following(lines)

    def flush() -> None:
        nonlocal block
        if block.lines:
            blocks.append(block)
        block = _Block()

    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            if block.lines and (block.options or not _OPTION.match(following[number - 1])):
                flush()
            continue
        before = blocks[-1].lines[-1][1] if blocks else ""
        if not block.lines and _ANSWER.match(line) and _ANSWER.match(before):
            # A second ANSWER line belongs to the question before it, which has two.
            blocks[-1].lines.append((number, line))
            continue
        if block.lines and _is_option(line):
            block.options = True
        block.lines.append((number, line))
        if _ANSWER.match(line):
            flush()
    flush()
    return blocks


def _is_option(line: str) -> bool:
    return bool(_OPTION.match(line) or _EMPTY_OPTION.match(line))


def _following(lines: list[str]) -> list[str]:
    """The next non-blank line after each, stripped: one pass from the end (linear)."""
    following = [""] * len(lines)
    after = ""
    for i in range(len(lines) - 1, -1, -1):
        following[i] = after
        after = lines[i].strip() or after
    return following


def _question(block: _Block) -> Draft | ReportLine:
    start = block.lines[0][0]

    def bad(line: int, why: str) -> ReportLine:
        return ReportLine(line, f"left out: the question at line {start} is not valid Aiken: {why}")

    question: list[str] = []
    options: list[str] = []
    answer: str | None = None
    answer_line = 0
    first = block.lines[0][1]
    second = block.lines[1][1] if len(block.lines) > 1 else None
    if _is_option(first) and (second is None or _is_option(second) or _ANSWER.match(second)):
        return bad(start, f"it starts with the option line {first!r}: no question text")
    for number, line in block.lines:
        option = _OPTION.match(line) if question else None
        found = _ANSWER.match(line) if question else None
        empty = _EMPTY_OPTION.match(line) if question else None
        if found and answer is not None:
            return bad(number, f"two ANSWER lines (the first is line {answer_line})")
        if found:
            if len(options) < 2:
                tight = [(n, text) for n, text in block.lines[1:] if _TIGHT_OPTION.match(text)]
                if tight and not options:
                    at, text = tight[0]
                    return bad(at, f"option line {text!r} needs a space after {text[:2]!r}")
                return bad(number, "the ANSWER line needs at least two options before it")
            label = found["label"].upper()
            if not label:
                return bad(number, "the ANSWER line names no option")
            if len(_SEVERAL.split(label)) > 1:
                why = f"the ANSWER line names several options ({found['label']!r}); one is right"
                return bad(number, why)
            if len(label) != 1 or label not in OPTION_LABELS[: len(options)]:
                last = OPTION_LABELS[len(options) - 1]
                return bad(number, f"ANSWER {found['label']!r} is not one of the options A–{last}")
            answer, answer_line = label, number
        elif option or (empty and (options or empty["label"] == "A")):
            match = option or empty
            assert match is not None
            label = match["label"]
            if len(options) == len(OPTION_LABELS):
                return bad(number, f"more than {len(OPTION_LABELS)} options (A–Z)")
            expected = OPTION_LABELS[len(options)]
            if label != expected:
                return bad(number, f"option {label} where {expected} was expected")
            if not option:
                return bad(number, f"option {label} has no text")
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
        id=drafts.slug(text),
        kind="choice",
        options=options,
        answers=[answer],
        question=text,
        final_answer=options[OPTION_LABELS.index(answer)],
        source_line=start,
        comment=_NO_FEEDBACK_COMMENT,
    )
