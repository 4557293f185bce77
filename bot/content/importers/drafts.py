"""What an importer produces: unchecked tasks in our bank format, plus a report.

`bank_yaml` writes them as one bank that the ordinary loader checks: an import is never
trusted more than a bank a person wrote.
"""

from __future__ import annotations

import heapq
import io
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import yaml

from bot.content.schema import ID_PATTERN, MAX_ID_LENGTH
from bot.quiz.tasks import Kind, MistakeNote, SolutionStep, Task

DIFFICULTIES = ("easy", "medium", "hard")


Note = MistakeNote  # a draft's notes and steps are the task model's own
Step = SolutionStep


@dataclass(slots=True)
class Draft:
    """One imported task, in the words of our bank format (content/README.md)."""

    id: str
    kind: str  # "choice" or "fill"
    options: list[str]
    answers: list[str]  # labels: one for a choice task, one per blank for a fill task
    question: str | None = None  # a choice task's
    instruction: str | None = None  # a fill task's, with its code and language
    code: str | None = None
    language: str | None = None  # None: python
    difficulty: str = "medium"
    topic: str | None = None  # None: the bank's
    hint: str | None = None
    steps: list[Step] = field(default_factory=list)
    final_answer: str | None = None
    quick_check: str | None = None
    explanation: str | None = None
    mistakes: list[Note] = field(default_factory=list)
    confirmed: bool = True  # False: the answers are a guess a person must check
    source_line: int | None = None  # where the question starts in the source
    comment: str | None = None  # written as a YAML comment above the task


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


class LeftOut(Exception):
    """Not imported (a question, or a whole file); `report` says why."""

    def __init__(self, report: ReportLine) -> None:
        super().__init__(report.message)
        self.report = report


NEUTRAL_HINT = "Read each option carefully."  # for a source without hints (ours needs one)
NEUTRAL_HINT_COMMENT = "The source has no hint: a neutral one was written; a real nudge is better."


@dataclass(slots=True)
class ImportResult:
    drafts: list[Draft]
    report: list[ReportLine]
    bank: str  # the title
    topic: str
    source: str | None = None


def task_texts(task: Task) -> Iterator[tuple[str, str]]:
    """Every text of a task with its field's name, for an exporter to check it can carry it."""
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
    """Notes as one feedback text: one note as it is, else a `- ` list (`note_items` reads it)."""
    if len(notes) == 1 and not notes[0].startswith("- "):
        return notes[0]
    return "\n".join("- " + note.replace("\n", "\n  ") for note in notes)


def note_items(feedback: str) -> list[str]:
    """A feedback's notes: the items of a `- ` list, else the whole text."""
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
    """Every text once, keeping each sequence's order, else the order of first appearance: a
    topological sort on neighbours, earliest ready first (linear; pairwise was quadratic)."""
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


def tied_notes(shown: list[tuple[str, list[str]]]) -> list[Note]:
    """One note per distinct (option label, feedback items) text, tied to every option giving it."""
    tied: dict[str, list[str]] = {text: [] for text in merged_order([i for _, i in shown])}
    for label, items in shown:
        for text in items:
            tied[text].append(label)
    return [Note(text, tuple(labels)) for text, labels in tied.items()]


def task_id(title: str | None, text: str) -> str:
    """The title when it already is a valid id (an export of ours), else a slug of it or `text`."""
    if title and ID_PATTERN.fullmatch(title) and len(title) <= MAX_ID_LENGTH:
        return title
    return slug(title or text)


def category_topic(path: str) -> str | None:
    """`$course$/top/Sub` -> "Sub", a Moodle category's topic (`//` is a `/` in a name); the
    root names none. GIFT and Moodle XML both name categories so."""
    parts = [p.replace("\0", "/").strip() for p in path.replace("//", "\0").split("/")]
    parts = [p for p in parts if p]
    if parts and parts[0].startswith("$") and parts[0].endswith("$"):
        parts = parts[1:]
    if parts and parts[0].casefold() == "top":
        parts = parts[1:]
    return parts[-1] if parts else None


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
    options = list(draft.options)
    if draft.kind == "choice":
        answer = draft.answers[0] if draft.answers else None
        task.update(question=draft.question, options=options, answer=answer)
    else:
        task.update(instruction=draft.instruction, code=draft.code)
        if draft.language and draft.language != "python":
            task["language"] = draft.language
        task.update(options=options, answers=list(draft.answers))
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
    """`_Dumper` on libyaml's emitter, several times faster; it escapes emoji and U+0085
    (`\\U…`, `\\N`), so such a text is written again with `_Dumper`."""


_FastDumper.add_representer(str, _str)


def _dump(data: Any) -> str:
    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "width": 100}
    text = yaml.dump(data, Dumper=_FastDumper, **options)
    if "\\U" in text or "\\N" in text:
        text = yaml.dump(data, Dumper=_Dumper, **options)
    return text


def _head(result: ImportResult) -> dict[str, Any]:
    head: dict[str, Any] = {"bank": result.bank, "topic": result.topic}
    return head | ({"source": result.source} if result.source else {})


def bank_tree(result: ImportResult) -> yaml.Node:
    """`bank_yaml`'s node tree, from the same representer: checked without parsing it back."""
    data = {**_head(result), "tasks": [task_mapping(d) for d in result.drafts]}
    return _Dumper(io.StringIO()).represent_data(data)


def bank_yaml(result: ImportResult) -> str:
    """The drafts as one bank file, each draft's comments above it."""
    parts = [_dump(_head(result)), "tasks:\n"]
    for draft in result.drafts:
        text = _dump([task_mapping(draft)])
        comments = _comments(draft)
        parts.append("\n" + "".join(f"  # {c}\n" for c in comments))
        lines = text.splitlines(True)
        parts.append("".join("  " + ln if ln.rstrip(_YAML_BREAKS) else ln for ln in lines))
    return "".join(parts)


def _comments(draft: Draft) -> Sequence[str]:
    lines = draft.comment.splitlines() if draft.comment else []
    return lines if draft.confirmed else [*lines, *_UNCONFIRMED]


_UNCONFIRMED: Final = (
    "confirmed: false: the importer guessed which option fills which blank.",
    "Check `answers`, then delete the `confirmed: false` line.",
)


# YAML's line breaks: a line of other Unicode spaces is text and must be indented.
_YAML_BREAKS = "\r\n\x85\u2028\u2029"
