"""The bank schema: validate one file's YAML node tree and build its tasks.

We walk the node tree from `yaml.compose` rather than the dicts from `yaml.safe_load` because
nodes keep their line numbers and their resolved tags: every problem can name its line, and a
plain `yes` or `1.0` where text belongs is caught instead of silently becoming a bool or float.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.content.problems import Problem
from bot.quiz.tasks import (
    BLANK_PATTERN,
    MAX_BLANKS,
    OPTION_LABELS,
    Difficulty,
    Kind,
    MistakeNote,
    Option,
    Solution,
    SolutionStep,
    Task,
)

_TAG: Final = "tag:yaml.org,2002:"
STR_TAG: Final = _TAG + "str"
NULL_TAG: Final = _TAG + "null"

ID_PATTERN: Final = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
MAX_ID_LENGTH: Final = 64
MIN_OPTIONS: Final = 2
STEP_PREFIX: Final = re.compile(r"step\s*\d+\s*[:.)-]", re.IGNORECASE)

# key -> required
BANK_KEYS: Final = {"bank": True, "topic": True, "source": False, "tasks": True}
COMMON_TASK_KEYS: Final = {
    "id": True,
    "kind": True,
    "difficulty": True,
    "topic": False,
    "hint": True,
    "solution": True,
    "mistakes": False,
}
KIND_KEYS: Final = {
    Kind.CHOICE: {"question": True, "options": True, "answer": True},
    Kind.FILL: {
        "instruction": True,
        "code": True,
        "options": True,
        "answers": True,
        "language": False,
    },
}
SOLUTION_KEYS: Final = {
    "steps": False,
    "final_answer": False,
    "quick_check": False,
    "explanation": False,
}
STEP_KEYS: Final = {"title": True, "text": True}
MISTAKE_KEYS: Final = {"note": True, "options": True}


@dataclass(frozen=True, slots=True)
class ParsedTask:
    task: Task
    line: int
    lines: Mapping[str, int]
    """Line of each field of the task, by field path, to place problems found later."""


@dataclass(frozen=True, slots=True)
class _Body:
    """The kind-specific part of a task."""

    prompt: str
    answers: tuple[str, ...]
    instruction: str | None = None
    language: str = "python"


@dataclass(slots=True)
class ParsedBank:
    file: Path
    tasks: list[ParsedTask] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def line_of(node: Node | None) -> int | None:
    return None if node is None else node.start_mark.line + 1


def describe(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    kinds = {
        "str": "text",
        "bool": f"true/false ({node.value!r})",
        "int": f"a number ({node.value})",
        "float": f"a number ({node.value})",
        "null": "nothing",
        "timestamp": f"a date ({node.value})",
    }
    name = node.tag.removeprefix(_TAG)
    return kinds.get(name, f"a value tagged {node.tag}")


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def span(labels: tuple[str, ...]) -> str:
    return f"{labels[0]}–{labels[-1]}" if len(labels) > 1 else labels[0]


def unknown_key_message(key: str, allowed: Mapping[str, bool]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    guess = f" (did you mean '{close[0]}'?)" if close else ""
    return f"unknown key '{key}'{guess}; allowed here: {', '.join(allowed)}"


def blank_problems(code: str) -> list[str]:
    """What is wrong with the numbering of a template's blanks."""
    counts = Counter(int(n) for n in BLANK_PATTERN.findall(code))
    if not counts:
        return ["the code has no blanks; mark each with [1], [2], …"]
    problems = [
        f"blank [{n}] appears {times} times; each blank appears once"
        for n, times in sorted(counts.items())
        if times > 1
    ]
    if 0 in counts:
        problems.append("[0] is not a blank: blanks are numbered from [1] (write x[ 0 ] for code)")
    highest = max(counts)
    problems += [
        f"blank [{n}] is missing: blanks are numbered [1] to [{highest}] without gaps"
        for n in range(1, highest + 1)
        if n not in counts
    ]
    if len(counts) > MAX_BLANKS:
        problems.append(f"the code has {len(counts)} blanks; at most {MAX_BLANKS} are allowed")
    return problems


def answer_count_problem(code: str, answers: int) -> str | None:
    blanks = sorted(set(int(n) for n in BLANK_PATTERN.findall(code)) - {0})
    if not blanks or len(blanks) == answers:
        return None
    shown = ", ".join(f"[{n}]" for n in blanks)
    given = f"{answers} answer{' is' if answers == 1 else 's are'} given"
    return (
        f"the code has {len(blanks)} blank{'' if len(blanks) == 1 else 's'} ({shown}) but "
        f"{given}; give one option label per blank, in blank order"
    )


def _peek(node: MappingNode, key: str) -> Node | None:
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value_node
    return None


class BankChecker:
    """Checks one bank, collecting every problem rather than stopping at the first."""

    def __init__(self, file: Path) -> None:
        self.result = ParsedBank(file)
        self.task_id: str | None = None
        self.lines: dict[str, int] = {}

    # -- reporting and generic shapes ---------------------------------------------------------

    def report(self, node: Node | None, path: str | None, message: str) -> None:
        problem = Problem(self.result.file, line_of(node), self.task_id, path or None, message)
        self.result.problems.append(problem)

    def mapping(self, node: Node, path: str, keys: Mapping[str, bool]) -> dict[str, Node] | None:
        if not isinstance(node, MappingNode):
            self.report(node, path, f"expected a mapping (key: value lines), got {describe(node)}")
            return None
        found: dict[str, Node] = {}
        for key_node, value_node in node.value:
            self._add_key(key_node, value_node, path, keys, found)
        for key, required in keys.items():
            if required and key not in found:
                self.report(node, join(path, key), f"missing required key '{key}'")
        return found

    def _add_key(
        self,
        key_node: Node,
        value_node: Node,
        path: str,
        keys: Mapping[str, bool],
        found: dict[str, Node],
    ) -> None:
        if not (isinstance(key_node, ScalarNode) and key_node.tag == STR_TAG):
            self.report(key_node, path, f"keys must be text, got {describe(key_node)}")
            return
        key = key_node.value
        key_path = join(path, key)
        if key not in keys:
            self.report(key_node, key_path, unknown_key_message(key, keys))
        elif key in found:
            first = self.lines.get(key_path)
            # safe_load would silently keep the last one; say so instead.
            self.report(key_node, key_path, f"'{key}' is given twice (first on line {first})")
        else:
            found[key] = value_node
            self.lines[key_path] = line_of(key_node) or 0

    def text(self, node: Node, path: str, *, code: bool = False) -> str | None:
        if isinstance(node, ScalarNode) and node.tag == NULL_TAG:
            self.report(node, path, "must not be empty")
            return None
        if not (isinstance(node, ScalarNode) and node.tag == STR_TAG):
            quote = " (put it in quotes)" if isinstance(node, ScalarNode) else ""
            self.report(node, path, f"expected text, got {describe(node)}{quote}")
            return None
        # Code keeps its indentation; only the newline a block scalar adds is dropped.
        value = node.value.strip("\n").rstrip() if code else node.value.strip()
        if not value.strip():
            self.report(node, path, "must not be empty")
            return None
        return value

    def sequence(
        self, node: Node, path: str, *, at_least: int = 0, what: str = "item"
    ) -> list[Node] | None:
        if not isinstance(node, SequenceNode):
            self.report(node, path, f"expected a list, got {describe(node)}")
            return None
        for i, item in enumerate(node.value):
            self.lines[f"{path}[{i}]"] = line_of(item) or 0
        if len(node.value) < at_least:
            plural = "" if at_least == 1 else "s"
            self.report(node, path, f"needs at least {at_least} {what}{plural}")
            return None
        return list(node.value)

    def choose(self, node: Node, path: str, allowed: type[Kind] | type[Difficulty]) -> str | None:
        value = self.text(node, path)
        if value is None:
            return None
        if value not in {member.value for member in allowed}:
            names = ", ".join(member.value for member in allowed)
            self.report(node, path, f"{allowed.__name__.lower()} '{value}' is not one of {names}")
            return None
        return value

    # -- the bank -----------------------------------------------------------------------------

    def check(self, root: Node | None) -> ParsedBank:
        if root is None:
            self.report(None, None, "the file is empty; a bank needs bank, topic and tasks")
            return self.result
        bank = self.mapping(root, "", BANK_KEYS)
        if bank is None:
            return self.result
        title = self.text(bank["bank"], "bank") if "bank" in bank else None
        topic = self.text(bank["topic"], "topic") if "topic" in bank else None
        if "source" in bank:
            self.text(bank["source"], "source")
        tasks_node = bank.get("tasks")
        tasks = self.sequence(tasks_node, "tasks", at_least=1, what="task") if tasks_node else []
        topic_line = self.lines.get("topic")
        for index, node in enumerate(tasks or []):
            self._task(node, index, title, topic, topic_line)
        return self.result

    def _task(
        self,
        node: Node,
        index: int,
        bank_title: str | None,
        bank_topic: str | None,
        topic_line: int | None,
    ) -> None:
        self.task_id, self.lines = None, {}
        before = len(self.result.problems)
        if not isinstance(node, MappingNode):
            self.report(node, f"tasks[{index}]", f"expected a task mapping, got {describe(node)}")
            return
        prefix = self._identify(node, index)
        kind = self._kind(node, prefix)
        keys = {**COMMON_TASK_KEYS, **(KIND_KEYS[kind] if kind else _ALL_KIND_KEYS)}
        fields = self.mapping(node, prefix, keys)
        if fields is None:
            return
        task = self._build(fields, prefix, kind, bank_topic, bank_title)
        if task is not None and len(self.result.problems) == before:
            lines = dict(self.lines)
            if "topic" not in lines and topic_line is not None:
                lines["topic"] = topic_line
            self.result.tasks.append(ParsedTask(task, line_of(node) or 0, lines))

    def _identify(self, node: MappingNode, index: int) -> str:
        """Set the task id for the problems that follow; the field prefix to use without one."""
        prefix = f"tasks[{index}]"
        id_node = _peek(node, "id")
        if id_node is None:
            return prefix
        task_id = self.text(id_node, join(prefix, "id"))
        if task_id is None:
            return prefix
        if not ID_PATTERN.fullmatch(task_id) or len(task_id) > MAX_ID_LENGTH:
            self.report(
                id_node,
                join(prefix, "id"),
                f"id '{task_id}' must be lowercase letters and digits joined by '-', '_' or "
                f"'.', at most {MAX_ID_LENGTH} characters",
            )
            return prefix
        self.task_id = task_id
        return ""

    def _kind(self, node: MappingNode, prefix: str) -> Kind | None:
        kind_node = _peek(node, "kind")
        if kind_node is None:
            return None
        value = self.choose(kind_node, join(prefix, "kind"), Kind)
        return Kind(value) if value else None

    def _build(
        self,
        fields: dict[str, Node],
        prefix: str,
        kind: Kind | None,
        bank_topic: str | None,
        bank_title: str | None,
    ) -> Task | None:
        # Every part is checked before any early return, so all problems are reported.
        difficulty = self._difficulty(fields.get("difficulty"), join(prefix, "difficulty"))
        topic = self._text_of(fields, prefix, "topic") if "topic" in fields else bank_topic
        hint = self._text_of(fields, prefix, "hint")
        solution = self._solution(fields.get("solution"), join(prefix, "solution"))
        options = self._options(fields.get("options"), join(prefix, "options"))
        labels = tuple(o.label for o in options) if options else None
        body = self._body(fields, prefix, kind, labels)
        mistakes = self._mistakes(
            fields.get("mistakes"), join(prefix, "mistakes"), labels, body and body.answers
        )
        if not (
            self.task_id
            and kind
            and difficulty
            and topic
            and hint
            and solution
            and options
            and body
            and mistakes is not None
            and bank_title
        ):
            return None
        return Task(
            id=self.task_id,
            topic=topic,
            kind=kind,
            difficulty=difficulty,
            prompt=body.prompt,
            options=options,
            answers=body.answers,
            hint=hint,
            solution=solution,
            mistakes=mistakes,
            instruction=body.instruction,
            language=body.language,
            bank=bank_title,
        )

    def _text_of(self, fields: dict[str, Node], prefix: str, key: str) -> str | None:
        # A missing required key was already reported by mapping().
        return self.text(fields[key], join(prefix, key)) if key in fields else None

    def _difficulty(self, node: Node | None, path: str) -> Difficulty | None:
        value = self.choose(node, path, Difficulty) if node is not None else None
        return Difficulty(value) if value else None

    def _body(
        self,
        fields: dict[str, Node],
        prefix: str,
        kind: Kind | None,
        labels: tuple[str, ...] | None,
    ) -> _Body | None:
        if kind is Kind.CHOICE:
            return self._choice(fields, prefix, labels)
        if kind is Kind.FILL:
            return self._fill(fields, prefix, labels)
        return None

    # -- the parts of a task ------------------------------------------------------------------

    def _options(self, node: Node | None, path: str) -> tuple[Option, ...] | None:
        if node is None:
            return None
        items = self.sequence(node, path, at_least=MIN_OPTIONS, what="option")
        if items is None:
            return None
        if len(items) > len(OPTION_LABELS):
            self.report(node, path, f"{len(items)} options; labels run out after Z")
            return None
        options: list[Option] = []
        seen: dict[str, str] = {}
        for i, item in enumerate(items):
            label = OPTION_LABELS[i]
            text = self.text(item, f"{path}[{i}]")
            if text is None:
                continue
            if text in seen:
                self.report(item, f"{path}[{i}]", f"option {label} repeats option {seen[text]}")
                continue
            seen[text] = label
            options.append(Option(label, text))
        return tuple(options) if len(options) == len(items) else None

    def _label(
        self, node: Node, path: str, labels: tuple[str, ...] | None, what: str
    ) -> str | None:
        label = self.text(node, path)
        if label is None or labels is None:
            return label
        if label not in labels:
            self.report(node, path, f"{what} '{label}' is not among the options {span(labels)}")
            return None
        return label

    def _choice(
        self, fields: dict[str, Node], prefix: str, labels: tuple[str, ...] | None
    ) -> _Body | None:
        question = self._text_of(fields, prefix, "question")
        answer_node = fields.get("answer")
        answer = (
            self._label(answer_node, join(prefix, "answer"), labels, "answer")
            if answer_node is not None
            else None
        )
        return _Body(question, (answer,)) if question and answer else None

    def _fill(
        self, fields: dict[str, Node], prefix: str, labels: tuple[str, ...] | None
    ) -> _Body | None:
        instruction = self._text_of(fields, prefix, "instruction")
        language = self._text_of(fields, prefix, "language") if "language" in fields else "python"
        answers = self._answers(fields.get("answers"), join(prefix, "answers"), labels)
        code = self._code(fields.get("code"), join(prefix, "code"))
        answers_node = fields.get("answers")
        # Counted from the list itself, so a bad label does not hide a blank mismatch.
        blanks_ok = (
            code is not None
            and isinstance(answers_node, SequenceNode)
            and self._blanks(fields, prefix, code, len(answers_node.value))
        )
        if not (instruction and language and answers and code and blanks_ok):
            return None
        return _Body(code, answers, instruction, language)

    def _answers(
        self, node: Node | None, path: str, labels: tuple[str, ...] | None
    ) -> tuple[str, ...] | None:
        if node is None:
            return None
        items = self.sequence(node, path, at_least=1, what="answer")
        if items is None:
            return None
        answers = [
            self._label(item, f"{path}[{i}]", labels, "answer") for i, item in enumerate(items)
        ]
        return None if None in answers else tuple(a for a in answers if a)

    def _code(self, node: Node | None, path: str) -> str | None:
        if node is None:
            return None
        code = self.text(node, path, code=True)
        if code is not None and "```" in code:
            self.report(node, path, "the code must not contain ``` (it would end the code block)")
            return None
        return code

    def _blanks(self, fields: dict[str, Node], prefix: str, code: str, answers: int) -> bool:
        """Report blank problems; whether there were none."""
        problems = blank_problems(code)
        for message in problems:
            self.report(fields["code"], join(prefix, "code"), message)
        mismatch = answer_count_problem(code, answers)
        if mismatch:
            self.report(fields["answers"], join(prefix, "answers"), mismatch)
        return not problems and mismatch is None

    def _solution(self, node: Node | None, path: str) -> Solution | None:
        if node is None:
            return None
        fields = self.mapping(node, path, SOLUTION_KEYS)
        if fields is None:
            return None
        if not fields:
            keys = ", ".join(SOLUTION_KEYS)
            self.report(node, path, f"the solution is empty: give any of {keys}")
            return None
        before = len(self.result.problems)
        steps = self._steps(fields["steps"], join(path, "steps")) if "steps" in fields else ()
        texts = {
            key: self.text(fields[key], join(path, key))
            for key in ("final_answer", "quick_check", "explanation")
            if key in fields
        }
        if len(self.result.problems) != before or steps is None:
            return None
        return Solution(steps=steps, **texts)

    def _steps(self, node: Node, path: str) -> tuple[SolutionStep, ...] | None:
        items = self.sequence(node, path, at_least=1, what="step")
        if items is None:
            return None
        steps = [self._step(item, f"{path}[{i}]") for i, item in enumerate(items)]
        return None if None in steps else tuple(s for s in steps if s)

    def _step(self, node: Node, path: str) -> SolutionStep | None:
        fields = self.mapping(node, path, STEP_KEYS)
        if fields is None or len(fields) < len(STEP_KEYS):
            return None
        title = self.text(fields["title"], join(path, "title"))
        text = self.text(fields["text"], join(path, "text"))
        numbered = STEP_PREFIX.match(title) if title else None
        if numbered:
            self.report(
                fields["title"],
                join(path, "title"),
                f"drop the '{numbered.group(0)}' prefix: the bot numbers the steps itself",
            )
            return None
        return SolutionStep(title, text) if title and text else None

    def _mistakes(
        self,
        node: Node | None,
        path: str,
        labels: tuple[str, ...] | None,
        answers: tuple[str, ...] | None,
    ) -> tuple[MistakeNote, ...] | None:
        if node is None:
            return ()
        items = self.sequence(node, path)
        if items is None:
            return None
        notes = [
            self._mistake(item, f"{path}[{i}]", labels, answers) for i, item in enumerate(items)
        ]
        return None if None in notes else tuple(n for n in notes if n)

    def _mistake(
        self,
        node: Node,
        path: str,
        labels: tuple[str, ...] | None,
        answers: tuple[str, ...] | None,
    ) -> MistakeNote | None:
        if isinstance(node, ScalarNode):
            text = self.text(node, path)
            return MistakeNote(text) if text else None
        if not isinstance(node, MappingNode):
            self.report(
                node, path, f"expected a note (text) or note: and options:, got {describe(node)}"
            )
            return None
        fields = self.mapping(node, path, MISTAKE_KEYS)
        if fields is None or len(fields) < len(MISTAKE_KEYS):
            return None
        text = self.text(fields["note"], join(path, "note"))
        tied = self._tied(fields["options"], join(path, "options"), labels, answers)
        return MistakeNote(text, tied) if text and tied else None

    def _tied(
        self,
        node: Node,
        path: str,
        labels: tuple[str, ...] | None,
        answers: tuple[str, ...] | None,
    ) -> tuple[str, ...] | None:
        items = self.sequence(node, path, at_least=1, what="option label")
        if items is None:
            return None
        tied = [
            self._label(item, f"{path}[{i}]", labels, "tied option") for i, item in enumerate(items)
        ]
        for item, label in zip(items, tied, strict=True):
            if label and answers and set(answers) == {label}:
                self.report(
                    item,
                    path,
                    f"the note is tied to option {label}, the correct answer, so it would never "
                    "be shown",
                )
                return None
        return None if None in tied else tuple(t for t in tied if t)


_ALL_KIND_KEYS: Final = {key: False for keys in KIND_KEYS.values() for key in keys}
