"""The bank schema: the keys of a bank and of each kind of task, what an id looks like, and a
task built only when none of its parts has a problem. What each part may hold is `parts`'; the
generic shapes are `nodes`'; what fits Discord is `rendering.render_problems`'.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final, NamedTuple

from babel import Locale, UnknownLocaleError
from yaml.nodes import MappingNode, Node, ScalarNode

from bot.content.cloze_parts import ClozeParts
from bot.content.limits import MAX_TASKS_PER_BANK
from bot.content.matching_parts import MatchingParts
from bot.content.nodes import EnoughProblems, describe, join, line_of, shown
from bot.content.parts import Fields, TaskParts
from bot.content.problems import Problem
from bot.content.safety import Shape, topic_problem
from bot.content.typed_parts import TypedParts
from bot.quiz.tasks import Difficulty, Kind, Solution, Task

ID_PATTERN: Final = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)*")
MAX_ID_LENGTH: Final = 64
MAX_LANGUAGE_TAG: Final = 35  # BCP 47's longest tag in practice

# key -> required
BANK_KEYS: Final = {
    "bank": True,
    "topic": True,
    "source": False,
    "language": False,
    "tasks": True,
}
COMMON_TASK_KEYS: Final = {
    "id": True,
    "kind": True,
    "difficulty": True,
    "topic": False,
    "hint": False,
    "hints": False,
    "solution": True,
    "mistakes": False,
    "confirmed": False,
}
KIND_KEYS: Final = {
    Kind.CHOICE: {"question": True, "options": True, "answer": True},
    Kind.MULTI: {
        "question": True,
        "options": True,
        "answers": False,
        "show_count": False,
        "single": False,
    },
    Kind.SHORT: {"question": True, "answers": True, "case_sensitive": False, "typos": False},
    Kind.NUMERICAL: {"question": True, "answers": True, "units": False, "unit_penalty": False},
    Kind.MATCHING: {"question": True, "pairs": True, "distractors": False},
    Kind.CLOZE: {"question": True},
    Kind.FILL: {
        "instruction": True,
        "code": True,
        "options": True,
        "answers": True,
        "language": False,
    },
}


@dataclass(frozen=True, slots=True)
class ParsedTask:
    task: Task
    line: int
    lines: Mapping[str, int]  # by field path, to place problems found later
    confirmed: bool = True  # False: not served until a person checks the importer's guess
    file: Path | None = None


@dataclass(slots=True)
class ParsedBank:
    file: Path
    tasks: list[ParsedTask] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _Shared(NamedTuple):
    """The fields every kind of task has, as checked (None: refused, or missing)."""

    difficulty: Difficulty | None
    topic: str | None
    hints: tuple[str, ...] | None
    solution: Solution | None


def _peek(node: MappingNode, key: str) -> Node | None:
    for key_node, value_node in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value_node
    return None


class BankChecker(TaskParts, TypedParts, MatchingParts, ClozeParts):
    """Checks one bank, collecting every problem up to the bound; tasks without one are built."""

    def __init__(self, file: Path, *, max_tasks: int = MAX_TASKS_PER_BANK) -> None:
        super().__init__(file)
        self.max_tasks = max_tasks
        self.bank_title: str | None = None
        self.bank_topic: str | None = None
        self.bank_language: str | None = None
        self.result = ParsedBank(file, problems=self.problems)

    def check(self, root: Node | None) -> ParsedBank:
        # Past the bound, the loader lists the first problems and says there are more.
        with contextlib.suppress(EnoughProblems):
            self._bank(root)
        return self.result

    def _bank(self, root: Node | None) -> None:
        if root is None:
            self.report(None, None, "the file is empty; a bank needs bank, topic and tasks")
            return
        bank = self.mapping(root, "", BANK_KEYS)
        if bank is None:
            return
        title = self.text(bank["bank"], "bank", shape=Shape.LINE) if "bank" in bank else None
        topic = self._topic(bank["topic"], "topic") if "topic" in bank else None
        if "source" in bank:
            self.text(bank["source"], "source", shape=Shape.LINE)
        if "language" in bank:
            self.bank_language = self._language(bank["language"], "language")
        tasks_node = bank.get("tasks")
        tasks = (
            self.sequence(tasks_node, "tasks", at_least=1, at_most=self.max_tasks, what="task")
            if tasks_node
            else []
        )
        self.bank_title, self.bank_topic = title, topic
        topic_line = self.lines.get("topic")
        for index, node in enumerate(tasks or []):
            self._task(node, index, topic_line)

    def _task(self, node: Node, index: int, topic_line: int | None) -> None:
        self.task_id, self.lines = None, {}
        before = len(self.problems)
        path = f"tasks[{index}]"
        if not self.fresh(node, path):
            return
        if not isinstance(node, MappingNode):
            self.report(node, path, f"expected a task mapping, got {describe(node)}")
            return
        prefix = self._identify(node, index)
        kind = self._kind(node, prefix)
        keys = {**COMMON_TASK_KEYS, **(KIND_KEYS[kind] if kind else _ALL_KIND_KEYS)}
        fields = self.fields(node, prefix, keys)
        flag = fields.get("confirmed")
        confirmed = True if flag is None else self.flag(flag, join(prefix, "confirmed"))
        task = self._build(fields, prefix, kind)
        if task is not None and self.bank_language is not None:
            task = replace(task, bank_language=self.bank_language)
        if task is not None and confirmed is not None and len(self.problems) == before:
            lines = dict(self.lines)
            if "topic" not in lines and topic_line is not None:
                lines["topic"] = topic_line
            parsed = ParsedTask(task, line_of(node) or 0, lines, confirmed, self.file)
            self.result.tasks.append(parsed)

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
                f"id '{shown(task_id)}' must be lowercase letters and digits joined by '-', '_' or "
                f"'.', at most {MAX_ID_LENGTH} characters",
            )
            return prefix
        self.task_id = task_id
        return ""

    def _kind(self, node: MappingNode, prefix: str) -> Kind | None:
        return self.choose(_peek(node, "kind"), join(prefix, "kind"), Kind)

    def _build(self, fields: Fields, prefix: str, kind: Kind | None) -> Task | None:
        # Every part is checked before any early return, so all problems are reported.
        difficulty = self.choose(fields.get("difficulty"), join(prefix, "difficulty"), Difficulty)
        own = fields.get("topic")
        topic = self._topic(own, join(prefix, "topic")) if own is not None else self.bank_topic
        hints = self._hints(fields, prefix)
        solution = self._solution(fields.get("solution"), join(prefix, "solution"))
        shared = _Shared(difficulty, topic, hints, solution)
        if kind in (Kind.SHORT, Kind.NUMERICAL):  # typed: no options, answers of their own
            return self._build_typed(fields, prefix, kind, shared)
        if kind is Kind.MATCHING:  # options made from the pairs' answers and the distractors
            return self._build_matching(fields, prefix, shared)
        if kind is Kind.CLOZE:  # parts in Moodle's syntax, each with its own answers
            return self._build_cloze(fields, prefix, shared)
        options = self._options(fields.get("options"), join(prefix, "options"), kind)
        labels = tuple(o.label for o in options) if options else None
        body = self._body(fields, prefix, kind, labels)
        answers = None if body is None else body.always_right
        mistakes = self._mistakes(fields.get("mistakes"), join(prefix, "mistakes"), labels, answers)
        bank_title = self.bank_title
        if not (self.task_id and kind and difficulty and topic and solution and options):
            return None
        if body is None or mistakes is None or hints is None or not bank_title:
            return None
        return Task(
            id=self.task_id,
            topic=topic,
            kind=kind,
            difficulty=difficulty,
            prompt=body.prompt,
            options=options,
            answers=body.answers,
            hints=hints,
            solution=solution,
            mistakes=mistakes,
            instruction=body.instruction,
            language=body.language,
            bank=bank_title,
            weights=body.weights,
            show_count=body.show_count,
            single=body.single,
        )

    def _shared_task(self, kind: Kind, shared: _Shared) -> Task | None:
        """A task of `kind` with only what every kind has, once all of it is valid: its builder
        adds its own fields (`replace`)."""
        difficulty, topic, hints, solution = shared
        if not (self.task_id and difficulty and topic and solution and self.bank_title):
            return None
        if hints is None:
            return None
        return Task(
            id=self.task_id,
            topic=topic,
            kind=kind,
            difficulty=difficulty,
            prompt="",
            options=(),
            answers=(),
            hints=hints,
            solution=solution,
            bank=self.bank_title,
        )

    def _build_typed(self, fields: Fields, prefix: str, kind: Kind, shared: _Shared) -> Task | None:
        read = self._short if kind is Kind.SHORT else self._numerical
        body = read(fields, prefix)
        task = self._shared_task(kind, shared)
        if task is None or body is None:
            return None
        return replace(
            task,
            prompt=body.question,
            mistakes=body.general,
            short=body.short,
            numeric=body.numeric,
        )

    def _build_matching(self, fields: Fields, prefix: str, shared: _Shared) -> Task | None:
        body = self._matching(fields, prefix)
        general = self._mistakes(fields.get("mistakes"), join(prefix, "mistakes"), (), ())
        task = self._shared_task(Kind.MATCHING, shared)
        if task is None or body is None or general is None:
            return None
        return replace(
            task,
            prompt=body.question,
            options=body.options,
            answers=body.answers,
            mistakes=body.mistakes + general,
            stems=body.stems,
        )

    def _build_cloze(self, fields: Fields, prefix: str, shared: _Shared) -> Task | None:
        body = self._cloze(fields, prefix)
        general = self._mistakes(fields.get("mistakes"), join(prefix, "mistakes"), (), ())
        task = self._shared_task(Kind.CLOZE, shared)
        if task is None or body is None or general is None:
            return None
        return replace(task, prompt=body.prompt, mistakes=general, parts=body.parts)

    def _topic(self, node: Node, path: str) -> str | None:
        # A topic is offered as a command choice, whose value is one line of `MAX_TOPIC`.
        topic = self.text(node, path, shape=Shape.LINE)
        too_long = None if topic is None else topic_problem(topic)
        if too_long:  # all else about it was said by `text`
            self.report(node, path, too_long)
            return None
        return topic

    def _language(self, node: Node, path: str) -> str | None:
        """The bank's language tag as written, `_` read as `-`, if Babel knows it."""
        written = self.text(node, path, shape=Shape.LINE, limit=MAX_LANGUAGE_TAG)
        if written is None:
            return None
        tag = written.replace("_", "-")
        try:
            locale = Locale.parse(tag, sep="-")
        except (ValueError, UnknownLocaleError):
            why = "is not a language Babel knows: write a tag such as de, pt-BR or en"
            self.report(node, path, f"'{shown(written)}' {why}")
            return None
        # Babel reads an old or undetermined tag (`iw`, `und`) as another language's.
        if locale.language != tag.split("-")[0].lower():
            why = f"is an old or undetermined tag (Babel reads it as '{locale.language}')"
            self.report(node, path, f"'{shown(written)}' {why}: write the bank's language, e.g. de")
            return None
        return tag


_ALL_KIND_KEYS: Final = {key: False for keys in KIND_KEYS.values() for key in keys}
