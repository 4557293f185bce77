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
from fractions import Fraction
from typing import Any, Final

import yaml

from bot.content.schema import ID_PATTERN, MAX_ID_LENGTH
from bot.quiz.numeric import NumericAnswers
from bot.quiz.tasks import (
    CREDIT_TOLERANCE,
    FULL_CREDIT,
    OPTION_LABELS,
    Kind,
    MistakeNote,
    SolutionStep,
    Task,
    equal_weights,
)
from bot.quiz.typed import ShortAnswers

DIFFICULTIES = ("easy", "medium", "hard")


Note = MistakeNote  # a draft's notes and steps are the task model's own
Step = SolutionStep


@dataclass(slots=True)
class Draft:
    """One imported task, in the words of our bank format (content/README.md)."""

    id: str
    kind: str  # "choice", "fill", "multi", "short", "numerical", "matching" or "cloze"
    options: list[str]
    answers: list[str]  # labels: one for a choice task, one per blank, a multi's right ones
    question: str | None = None  # a choice or multi task's
    instruction: str | None = None  # a fill task's, with its code and language
    code: str | None = None
    language: str | None = None  # None: python
    difficulty: str = "medium"
    topic: str | None = None  # None: the bank's
    hints: list[str] = field(default_factory=list)  # the ladder, in order; none is fine
    steps: list[Step] = field(default_factory=list)
    final_answer: str | None = None
    quick_check: str | None = None
    explanation: str | None = None
    mistakes: list[Note] = field(default_factory=list)
    confirmed: bool = True  # False: the answers are a guess a person must check
    source_line: int | None = None  # where the question starts in the source
    comment: str | None = None  # written as a YAML comment above the task
    weights: list[Fraction] = field(default_factory=list)
    """A multi task's weight per option, in percent; empty: equal shares of `answers`."""
    show_count: bool = False  # a multi task's post says how many options are right
    single: bool = False  # a multi task the member answers with one option, graded by its weight
    short: ShortAnswers | None = None  # a short task's answers and known mistakes
    numeric: NumericAnswers | None = None  # a numerical task's
    pairs: tuple[tuple[str, str], ...] = ()  # a matching task's (stem, answer)
    distractors: tuple[str, ...] = ()  # a matching task's other answers


@dataclass(frozen=True, slots=True)
class ReportLine:
    """`SOURCE:LINE: <message>`: one per question left out, or guessed, or changed."""

    line: int | None
    message: str

    @property
    def left_out(self) -> bool:
        """A question (or more) not imported: every such line says so first (`left_out`)."""
        return self.message.startswith(LEFT_OUT)

    def render(self, source: str) -> str:
        return f"{source}:{self.line}: {self.message}" if self.line else f"{source}: {self.message}"


LEFT_OUT: Final = "left out: "
"""How a report line of a question not imported begins."""


def left_out(line: int | None, kind: str) -> ReportLine:
    """The report line for a question kind we do not import (yet)."""
    return ReportLine(line, f"{LEFT_OUT}{kind} questions are not supported (yet)")


class LeftOut(Exception):
    """Not imported (a question, or a whole file); `report` says why."""

    def __init__(self, report: ReportLine) -> None:
        super().__init__(report.message)
        self.report = report


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
    for n, stem in enumerate(task.stems, start=1):
        yield f"stem {n}", stem
    for option in task.options:
        yield f"option {option.label}", option.text
    for n, hint in enumerate(task.hints, start=1):
        yield ("hint" if len(task.hints) == 1 else f"hint {n}"), hint
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


def percent_text(weight: Fraction) -> str:
    """A weight as Moodle writes it: at most 5 decimals of a percent (7 of a fraction)."""
    return f"{float(weight):.5f}".rstrip("0").rstrip(".")


def set_weights(draft: Draft, weights: list[Fraction]) -> None:
    """A multi draft's right options and weights from the source's, one per option: equal
    shares (as `answers: [A, C]` gives them, a third written 33.33333 too) become `answers`.
    A single-pick draft keeps its weights; its right options are those of full credit."""
    labels = OPTION_LABELS[: len(weights)]
    if draft.single:
        draft.answers = [label for label, w in zip(labels, weights, strict=True) if is_full(w)]
        draft.weights = list(weights)
        return
    draft.answers = [label for label, w in zip(labels, weights, strict=True) if w > 0]
    shares = equal_weights(labels, draft.answers) if draft.answers else ()
    equal = len(shares) == len(weights) and all(
        abs(a - b) <= CREDIT_TOLERANCE for a, b in zip(shares, weights, strict=True)
    )
    draft.weights = [] if equal else list(weights)


def draft_weights(draft: Draft) -> tuple[Fraction, ...]:
    """The weights the content check gives a multi draft's task (`set_weights`' inverse)."""
    if draft.weights:
        return tuple(draft.weights)
    return equal_weights(OPTION_LABELS[: len(draft.options)], draft.answers)


def is_full(weight: Fraction) -> bool:
    """Whether a weight is full credit, within the content check's tolerance."""
    return abs(weight - FULL_CREDIT) <= CREDIT_TOLERANCE


def single_weights_fit(weights: Sequence[Fraction]) -> bool:
    """Whether a single-pick multi task's weights are Moodle's: one at least of 100%, none above."""
    highest = FULL_CREDIT + CREDIT_TOLERANCE
    return any(is_full(w) for w in weights) and all(w <= highest for w in weights)


def weights_add_up(weights: Sequence[Fraction]) -> bool:
    """Whether the right options make 100%, as the content check requires."""
    right = sum((w for w in weights if w > 0), Fraction(0))
    return abs(right - FULL_CREDIT) <= CREDIT_TOLERANCE


def _weighted_options(draft: Draft) -> list[Any]:
    """A multi draft's options, each with its weight unless it weighs nothing."""
    if not draft.weights:
        return list(draft.options)
    weighted: list[Any] = []
    for text, weight in zip(draft.options, draft.weights, strict=True):
        number = float(percent_text(weight))
        value = int(number) if number.is_integer() else number
        weighted.append({"text": text, "weight": value} if weight else text)
    return weighted


def task_mapping(draft: Draft) -> dict[str, Any]:
    """One task as the bank format's mapping, keys in the README's order."""
    task: dict[str, Any] = {"id": draft.id, "kind": draft.kind, "difficulty": draft.difficulty}
    if draft.topic:
        task["topic"] = draft.topic
    options = list(draft.options)
    if draft.kind == "choice":
        answer = draft.answers[0] if draft.answers else None
        task.update(question=draft.question, options=options, answer=answer)
    elif draft.kind == "multi":
        task.update(question=draft.question, options=_weighted_options(draft))
        if not draft.weights:
            task["answers"] = list(draft.answers)
        if draft.single:
            task["single"] = True
        if draft.show_count:
            task["show_count"] = True
    elif draft.kind == "matching":
        task.update(
            question=draft.question,
            pairs=[{"stem": stem, "answer": answer} for stem, answer in draft.pairs],
        )
        if draft.distractors:
            task["distractors"] = list(draft.distractors)
    elif draft.kind == "cloze":  # the parts are in the question, in Moodle's syntax
        task["question"] = draft.question
    elif draft.short is not None or draft.numeric is not None:
        task.update(question=draft.question, **typed_mapping(draft))
    else:
        task.update(instruction=draft.instruction, code=draft.code)
        if draft.language and draft.language != "python":
            task["language"] = draft.language
        task.update(options=options, answers=list(draft.answers))
    if not draft.confirmed:
        task["confirmed"] = False
    if len(draft.hints) == 1:
        task["hint"] = draft.hints[0]
    elif draft.hints:
        task["hints"] = list(draft.hints)
    solution: dict[str, Any] = {}
    if draft.steps:
        solution["steps"] = [{"title": s.title, "text": s.text} for s in draft.steps]
    for key in ("final_answer", "quick_check", "explanation"):
        value = getattr(draft, key)
        if value:
            solution[key] = value
    task["solution"] = solution
    typed = draft.short or draft.numeric
    known = [{"answers": list(m.answers), "note": m.note} for m in typed.mistakes] if typed else []
    if draft.mistakes or known:
        task["mistakes"] = known + [
            {"note": n.text, "options": list(n.options)} if n.options else n.text
            for n in draft.mistakes
        ]
    return task


def _percent(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(percent_text(value))


def typed_mapping(draft: Draft) -> dict[str, Any]:
    """A short or numerical draft's own keys, as the bank format writes them."""
    if draft.short is not None:
        short = draft.short
        answers: list[Any] = [
            a.text if a.credit == 100 else {"text": a.text, "credit": _percent(a.credit)}
            for a in short.accepted
        ]
        out: dict[str, Any] = {"answers": answers}
        if short.case_sensitive:
            out["case_sensitive"] = True
        if short.typos:
            out["typos"] = short.typos
        return out
    assert draft.numeric is not None
    numeric = draft.numeric
    out = {
        "answers": [
            a.spec if a.credit == 100 else {"answer": a.spec, "credit": _percent(a.credit)}
            for a in numeric.answers
        ]
    }
    if numeric.units:
        out["units"] = [
            {"unit": u.name}
            if u.multiplier == 1
            else {"unit": u.name, "multiplier": _percent(u.multiplier)}
            for u in numeric.units
        ]
    if numeric.unit_penalty:
        out["unit_penalty"] = _percent(numeric.unit_penalty)
    return out


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
