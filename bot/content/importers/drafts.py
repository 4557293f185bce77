"""What an importer produces: tasks in our bank format, not yet checked, plus a report.

Every format's parser (GIFT, Moodle XML, Aiken, practice pages) turns its source into `Draft`
tasks and `ReportLine`s; `bank_yaml` writes the drafts as one YAML bank in the format of
content/README.md, which the ordinary loader then checks like any hand-written bank. So an
import is never trusted more than a bank a person wrote.
"""

from __future__ import annotations

import heapq
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from bot.quiz.tasks import Kind, Task

KINDS = ("choice", "fill")
DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(slots=True)
class Note:
    """A mistake note; `options` are the labels it is tied to (none: general to the task)."""

    text: str
    options: tuple[str, ...] = ()


@dataclass(slots=True)
class Step:
    title: str
    text: str


@dataclass(slots=True)
class Draft:
    """One imported task, in the words of our bank format (content/README.md)."""

    id: str
    kind: str
    """"choice" or "fill"."""
    options: list[str]
    answers: list[str]
    """Option labels (A, B, …): exactly one for a choice task, one per blank for a fill task."""
    question: str | None = None
    """A choice task's question."""
    instruction: str | None = None
    """A fill task's instruction ("Complete the code to …")."""
    code: str | None = None
    """A fill task's template, blanks written [1] … [n]."""
    language: str | None = None
    """A fill task's code language; None: the bank's default (python)."""
    difficulty: str = "medium"
    topic: str | None = None
    """None: the bank's topic."""
    hint: str | None = None
    steps: list[Step] = field(default_factory=list)
    final_answer: str | None = None
    quick_check: str | None = None
    explanation: str | None = None
    mistakes: list[Note] = field(default_factory=list)
    confirmed: bool = True
    """False: the importer guessed the answers and a person must check them (a multi-blank
    fill task from a practice page). `content check` refuses the task until it is set."""
    source_line: int | None = None
    """Where the question starts in the source, for the report."""
    comment: str | None = None
    """A note for the person reading the YAML (written as a comment above the task)."""


@dataclass(frozen=True, slots=True)
class ReportLine:
    """`SOURCE:LINE: <message>`: one per question left out, or guessed, or changed."""

    line: int | None
    message: str

    def render(self, source: str) -> str:
        return f"{source}:{self.line}: {self.message}" if self.line else f"{source}: {self.message}"


def left_out(line: int | None, kind: str) -> ReportLine:
    """The report line for a question kind we do not import (yet)."""
    return ReportLine(line, f"left out: {kind} questions are not supported (yet)")


NEUTRAL_HINT = "Read each option carefully."
"""The hint of a task whose source has none (our format requires one)."""
NEUTRAL_HINT_COMMENT = "The source has no hint: a neutral one was written; a real nudge is better."
"""The draft's `comment` that says so, for the person checking the bank."""


@dataclass(slots=True)
class ImportResult:
    drafts: list[Draft]
    report: list[ReportLine]
    bank: str
    """The bank's title."""
    topic: str
    source: str | None = None


def task_texts(task: Task) -> Iterator[tuple[str, str]]:
    """Every text of a task with the name of its field, for an exporter to check that its
    format can carry each one."""
    yield "id", task.id
    yield "topic", task.topic
    fill = task.kind is Kind.FILL
    yield ("code" if fill else "question"), task.prompt
    if fill:
        yield "instruction", task.instruction or ""
        yield "language", task.language
    for option in task.options:
        yield f"option {option.label}", option.text
    yield "hint", task.hint
    for n, step in enumerate(task.solution.steps, start=1):
        yield f"solution step {n}", f"{step.title}\n{step.text}"
    for key in ("final_answer", "quick_check", "explanation"):
        value = getattr(task.solution, key)
        if value:
            yield f"solution {key.replace('_', ' ')}", value
    for note in task.mistakes:
        yield "mistake note", note.text


def note_list(notes: Sequence[str]) -> str:
    """Notes as one feedback text (`note_items` reads it back): one note as it is; two or
    more, or one that itself starts with `- `, as a `- ` list, continuation lines indented two
    spaces."""
    if len(notes) == 1 and not notes[0].startswith("- "):
        return notes[0]
    return "\n".join("- " + note.replace("\n", "\n  ") for note in notes)


def note_items(feedback: str) -> list[str]:
    """A feedback's notes: the items of a `- ` list (continuation lines indented two spaces, or
    empty), else the whole text."""
    lines = feedback.split("\n")
    if not lines[0].startswith("- ") or not all(
        not line or line.startswith(("- ", "  ")) for line in lines
    ):
        return [feedback]
    items: list[list[str]] = []
    for line in lines:
        if line.startswith("- "):
            items.append([line[2:]])
        else:
            items[-1].append(line[2:])
    return ["\n".join(item).strip() for item in items]


def merged_order(sequences: list[list[str]]) -> list[str]:
    """Every text once, in an order that keeps each sequence's own order (so every option shows
    its notes in the order they were written), else in order of first appearance.

    A topological sort on the links between neighbours in each sequence (which imply all the
    rest), always taking the earliest text that is ready: linear, where comparing every text
    with all before it was quadratic in a feedback of many `- ` items."""
    first: dict[str, int] = {}
    follow: dict[str, list[str]] = {}
    waiting: dict[str, int] = {}
    links: set[tuple[str, str]] = set()
    for sequence in sequences:
        for i, text in enumerate(sequence):
            if text not in first:
                first[text] = len(first)
                follow[text] = []
                waiting[text] = 0
            link = (sequence[i - 1], text)
            if i and link not in links:
                links.add(link)
                follow[link[0]].append(text)
                waiting[text] += 1
    ready = [(index, text) for text, index in first.items() if not waiting[text]]
    done: list[str] = []
    while ready:
        _, text = heapq.heappop(ready)
        done.append(text)
        for later in follow[text]:
            waiting[later] -= 1
            if not waiting[later]:
                heapq.heappush(ready, (first[later], later))
    if len(done) < len(first):  # contradictory orders: keep the rest as they first came
        placed = set(done)
        done += [t for t in first if t not in placed]
    return done


_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str, *, limit: int = 48) -> str:
    """A task id part from free text: lowercase letters and digits joined by '-'."""
    words = _SLUG.sub("-", text.casefold()).strip("-")
    return words[:limit].rstrip("-") or "task"


def unique_ids(drafts: Iterable[Draft]) -> None:
    """Make ids unique within the bank (a repeated title gets -2, -3, …), in place."""
    seen: dict[str, int] = {}
    for draft in drafts:
        base = draft.id
        count = seen.get(base, 0) + 1
        seen[base] = count
        if count > 1:
            candidate = f"{base}-{count}"
            while candidate in seen:
                count += 1
                candidate = f"{base}-{count}"
            seen[base] = count  # the next repeat starts past the taken ones: linear
            seen[candidate] = 1
            draft.id = candidate


def task_mapping(draft: Draft) -> dict[str, Any]:
    """One task as the bank format's mapping, keys in the README's order."""
    task: dict[str, Any] = {"id": draft.id, "kind": draft.kind, "difficulty": draft.difficulty}
    if draft.topic:
        task["topic"] = draft.topic
    if draft.kind == "choice":
        task["question"] = draft.question
        task["options"] = list(draft.options)
        task["answer"] = draft.answers[0] if draft.answers else None
    else:
        task["instruction"] = draft.instruction
        task["code"] = draft.code
        if draft.language and draft.language != "python":
            task["language"] = draft.language
        task["options"] = list(draft.options)
        task["answers"] = list(draft.answers)
    if not draft.confirmed:
        task["confirmed"] = False
    task["hint"] = draft.hint
    solution: dict[str, Any] = {}
    if draft.steps:
        solution["steps"] = [{"title": s.title, "text": s.text} for s in draft.steps]
    for key in ("final_answer", "quick_check", "explanation"):
        value = getattr(draft, key)
        if value:
            solution[key] = value
    task["solution"] = solution
    if draft.mistakes:
        task["mistakes"] = [
            {"note": n.text, "options": list(n.options)} if n.options else n.text
            for n in draft.mistakes
        ]
    return task


class _Dumper(yaml.SafeDumper):
    """Block style, multi-line texts as literal blocks, keys in insertion order."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


class _FastDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """`_Dumper` on libyaml's emitter when PyYAML has it (the PyPI wheels do): the same text,
    several times faster. libyaml writes characters outside the BMP (emoji) and U+0085 as
    `\\U…` / `\\N` escapes, so a task whose text comes out with one is written again with
    `_Dumper`, which keeps them as they are."""


_FastDumper.add_representer(str, _str)


def _dump(data: Any) -> str:
    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 100}
    text = yaml.dump(data, Dumper=_FastDumper, **options)
    if "\\U" in text or "\\N" in text:
        text = yaml.dump(data, Dumper=_Dumper, **options)
    return text


def bank_document(result: ImportResult) -> dict[str, Any]:
    """The bank as plain data, as `bank_yaml` writes it (less the comments)."""
    head: dict[str, Any] = {"bank": result.bank, "topic": result.topic}
    if result.source:
        head["source"] = result.source
    return {**head, "tasks": [task_mapping(d) for d in result.drafts]}


def bank_tree(result: ImportResult) -> yaml.Node:
    """The YAML node tree of `bank_yaml`'s text, built by the same representer that writes it,
    so the content check can walk it without parsing the text back (it has no line numbers)."""
    return _Dumper(io.StringIO()).represent_data(bank_document(result))


def bank_yaml(result: ImportResult) -> str:
    """The drafts as one bank file. Comments (a draft's `comment`, the unconfirmed marker) go
    above their task; everything else is plain data a person can edit."""
    head: dict[str, Any] = {"bank": result.bank, "topic": result.topic}
    if result.source:
        head["source"] = result.source
    parts = [_dump(head), "tasks:\n"]
    for draft in result.drafts:
        text = _dump([task_mapping(draft)])
        comments = _comments(draft)
        parts.append("\n" + "".join(f"  # {c}\n" for c in comments))
        parts.append(_indent(text, "  "))
    return "".join(parts)


def _comments(draft: Draft) -> Sequence[str]:
    lines = []
    if draft.comment:
        lines.extend(draft.comment.splitlines())
    if not draft.confirmed:
        lines += [
            "confirmed: false: the importer guessed which option fills which blank.",
            "Check `answers`, then delete the `confirmed: false` line.",
        ]
    return lines


_YAML_BREAKS = "\r\n\x85\u2028\u2029"
"""YAML's line breaks. Its only blanks are space and tab, which the emitter never leaves alone
on a line of a block: a line of no-break or other Unicode spaces is text, and must be indented
(`str.strip` would call it empty, and the unindented line ends the block)."""


def _indent(text: str, prefix: str) -> str:
    return "".join(
        prefix + line if line.rstrip(_YAML_BREAKS) else line for line in text.splitlines(True)
    )
