"""The parts of a task, each checked and built from its nodes: options, answers, the body of
each kind, the solution and the mistake notes. Which parts a task has is `schema`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final, TypeVar

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from bot.content import limits
from bot.content.blanks import answer_count_problem, blank_problems, read_marks
from bot.content.nodes import NodeChecker, describe, join, shown
from bot.content.safety import Shape, look_alike
from bot.quiz.tasks import (
    CREDIT_TOLERANCE,
    FULL_CREDIT,
    MAX_HINTS,
    OPTION_LABELS,
    Kind,
    MistakeNote,
    Option,
    Solution,
    SolutionStep,
    equal_weights,
)
from bot.rendering import plain_text

Labels = tuple[str, ...] | None  # option labels; None: unknown, as a part failed
Fields = dict[str, Node]
T = TypeVar("T")

MIN_OPTIONS: Final = 2
STEP_PREFIX: Final = re.compile(r"step\s*\d+\s*[:.)-]", re.IGNORECASE)

SOLUTION_KEYS: Final = {
    "steps": False,
    "final_answer": False,
    "quick_check": False,
    "explanation": False,
}
STEP_KEYS: Final = {"title": True, "text": True}
MISTAKE_KEYS: Final = {"note": True, "options": True}
WEIGHTED_OPTION_KEYS: Final = {"text": True, "weight": False}
"""A multi task's option may be a mapping: its text and its weight in percent."""
NUMBER_TAGS: Final = frozenset({"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})


@dataclass(frozen=True, slots=True)
class Body:
    """The kind-specific part of a task."""

    prompt: str
    answers: tuple[str, ...]
    instruction: str | None = None
    language: str = "python"
    weights: tuple[Fraction, ...] = ()
    show_count: bool = False
    single: bool = False

    @property
    def always_right(self) -> tuple[str, ...]:
        """Options right wherever picked: a note tied to one would never be shown."""
        if self.weights:
            return self.answers
        return self.answers if len(set(self.answers)) == 1 else ()


def _repeat(text: str, label: str, first: Option) -> str:
    if text == first.text:
        return f"option {label} repeats option {first.label}"
    return (
        f"option {label} reads the same as option {first.label}: they differ only in case, "
        "Markdown marks, invisible characters or how the same letters are encoded (NFC/NFD)"
    )


def span(labels: tuple[str, ...]) -> str:
    return f"{labels[0]}–{labels[-1]}" if len(labels) > 1 else labels[0]


class TaskParts(NodeChecker):
    """The checks of a task's parts; `schema.BankChecker` walks a bank's tasks through them."""

    def _body(self, fields: Fields, prefix: str, kind: Kind | None, labels: Labels) -> Body | None:
        if kind is Kind.CHOICE:
            return self._choice(fields, prefix, labels)
        if kind is Kind.MULTI:
            return self._multi(fields, prefix, labels)
        return self._fill(fields, prefix, labels) if kind is Kind.FILL else None

    def _options(
        self, node: Node | None, path: str, kind: Kind | None
    ) -> tuple[Option, ...] | None:
        self.option_weights: dict[str, Fraction | None] = {}
        """A multi task's `weight:`s by option label (None: a weight with a problem)."""
        if node is None:
            return None
        items = self.sequence(
            node, path, at_least=MIN_OPTIONS, at_most=limits.MAX_OPTIONS, what="option"
        )
        if items is None:
            return None
        options: list[Option] = []
        seen: dict[str, Option] = {}
        # A fill option is code, where case is meaning (`True` and `true`); prose is not.
        case = kind is Kind.FILL
        for i, item in enumerate(items):
            label = OPTION_LABELS[i]
            text_node: Node | None = item
            at = f"{path}[{i}]"
            if kind is Kind.MULTI and isinstance(item, MappingNode):
                text_node = self._weighted_option(item, at, label)
                at = join(at, "text")
            if text_node is None:
                continue
            text = self.text(text_node, at, shape=Shape.OPTION)
            if text is None:
                continue
            # A choice option's button shows it as plain text: `**ab**` and `ab` read the same.
            key = look_alike(text if case else plain_text(text), case=case)
            if key in seen:
                self.report(item, f"{path}[{i}]", _repeat(text, label, seen[key]))
                continue
            option = Option(label, text)
            seen[key] = option
            options.append(option)
        return tuple(options) if len(options) == len(items) else None

    def _weighted_option(self, node: MappingNode, path: str, label: str) -> Node | None:
        """A multi option's `text:` node, its `weight:` noted for `_multi`; None on a problem."""
        fields = self.mapping(node, path, WEIGHTED_OPTION_KEYS)
        if fields is None or "text" not in fields:
            return None
        if "weight" in fields:
            self.option_weights[label] = self._weight(fields["weight"], path)
        return fields["text"]

    def _weight(self, node: Node, path: str) -> Fraction | None:
        at = join(path, "weight")
        if not self.fresh(node, at):
            return None
        if not (isinstance(node, ScalarNode) and node.tag in NUMBER_TAGS):
            self.report(node, at, f"expected a number of percent, got {describe(node)}")
            return None
        try:
            weight = Fraction(node.value.replace("_", ""))
        except (ValueError, ZeroDivisionError):
            self.report(node, at, f"'{shown(node.value)}' is not a plain number of percent")
            return None
        if not -FULL_CREDIT <= weight <= FULL_CREDIT:
            self.report(node, at, f"a weight is a percentage from -100 to 100, got {node.value}")
            return None
        return weight

    def _label(self, node: Node, path: str, labels: Labels, what: str) -> str | None:
        label = self.text(node, path)
        if label is None or labels is None:
            return label
        if label not in labels:
            why = f"{what} '{shown(label)}' is not among the options {span(labels)}"
            self.report(node, path, why)
            return None
        return label

    def _choice(self, fields: Fields, prefix: str, labels: Labels) -> Body | None:
        question = self._text_of(fields, prefix, "question")
        answer_node = fields.get("answer")
        at = join(prefix, "answer")
        answer = None if answer_node is None else self._label(answer_node, at, labels, "answer")
        return Body(question, (answer,)) if question and answer else None

    def _multi(self, fields: Fields, prefix: str, labels: Labels) -> Body | None:
        """`answers:` (equal weights) or a `weight:` on options (Moodle's), never both."""
        question = self._text_of(fields, prefix, "question")
        show_count = (
            self.flag(fields["show_count"], join(prefix, "show_count"))
            if "show_count" in fields
            else False
        )
        single = (
            self.flag(fields["single"], join(prefix, "single")) if "single" in fields else False
        )
        weighted = self.option_weights
        at = join(prefix, "answers")
        if single and "answers" in fields:
            why = "a single-pick task gives each option a weight, not answers"
            self.report(fields["answers"], at, why)
            return None
        if "answers" in fields and weighted:
            why = "give either answers (equal weights) or a weight on options, not both"
            self.report(fields["answers"], at, why)
            return None
        if "answers" in fields:
            answers = self._answers(fields["answers"], at, labels)
            if answers is not None and len(set(answers)) < len(answers):
                self.report(fields["answers"], at, "an option is named twice")
                return None
            if not (question and answers and labels and show_count is not None):
                return None
            picked = tuple(label for label in labels if label in answers)
            shares = equal_weights(labels, picked)
            return Body(question, picked, weights=shares, show_count=show_count)
        if not weighted:
            why = "missing 'answers' (the right options), or give options a weight"
            self.report(fields.get("options"), at, why)
            return None
        if labels is None or None in weighted.values():
            return None
        weights = tuple(weighted.get(label) or Fraction(0) for label in labels)
        if single:
            return self._single(fields, prefix, question, labels, weights, show_count)
        right = sum((w for w in weights if w > 0), Fraction(0))
        if abs(right - FULL_CREDIT) > CREDIT_TOLERANCE:
            node = fields.get("options")
            total = f"{float(right):g}"
            why = f"the positive weights add up to {total}%; the right options must make 100%"
            self.report(node, join(prefix, "options"), why)
            return None
        if not (question and show_count is not None):
            return None
        answers = tuple(label for label, w in zip(labels, weights, strict=True) if w > 0)
        return Body(question, answers, weights=weights, show_count=show_count)

    def _single(
        self,
        fields: Fields,
        prefix: str,
        question: str | None,
        labels: tuple[str, ...],
        weights: tuple[Fraction, ...],
        show_count: bool | None,
    ) -> Body | None:
        """Moodle's single-answer weights: an option at 100% (its right ones), none above."""
        full = tuple(
            label
            for label, w in zip(labels, weights, strict=True)
            if abs(w - FULL_CREDIT) <= CREDIT_TOLERANCE
        )
        if not full or max(weights) > FULL_CREDIT + CREDIT_TOLERANCE:
            why = "a single-pick task needs an option of weight 100 and none above it"
            self.report(fields.get("options"), join(prefix, "options"), why)
            return None
        if not (question and show_count is not None):
            return None
        return Body(question, full, weights=weights, show_count=show_count, single=True)

    def _fill(self, fields: Fields, prefix: str, labels: Labels) -> Body | None:
        instruction = self._text_of(fields, prefix, "instruction")
        language = (
            self.text(fields["language"], join(prefix, "language"), shape=Shape.WORD)
            if "language" in fields
            else "python"
        )
        answers = self._answers(fields.get("answers"), join(prefix, "answers"), labels)
        code_node = fields.get("code")
        at = join(prefix, "code")
        code = None if code_node is None else self.text(code_node, at, code=True, shape=Shape.CODE)
        answers_node = fields.get("answers")
        # Counted from the list itself, so a bad label does not hide a blank mismatch.
        blanks_ok = (
            code is not None
            and isinstance(answers_node, SequenceNode)
            and len(answers_node.value) <= limits.MAX_LABELS
            and self._blanks(fields, prefix, code, len(answers_node.value))
        )
        if not (instruction and language and answers and code and blanks_ok):
            return None
        return Body(code, answers, instruction, language)

    def _answers(self, node: Node | None, path: str, labels: Labels) -> Labels:
        if node is None:
            return None
        items = self.sequence(node, path, at_least=1, at_most=limits.MAX_LABELS, what="answer")
        return self._each(items, path, lambda item, at: self._label(item, at, labels, "answer"))

    def _each(
        self, items: list[Node] | None, path: str, check: Callable[[Node, str], T | None]
    ) -> tuple[T, ...] | None:
        """Every item checked, so that all problems are said; None if any failed."""
        if items is None:
            return None
        found = [check(item, f"{path}[{i}]") for i, item in enumerate(items)]
        return None if None in found else tuple(x for x in found if x)

    def _blanks(self, fields: Fields, prefix: str, code: str, answers: int) -> bool:
        """Report blank problems; whether there were none."""
        marks = read_marks(code)
        problems = blank_problems(marks)
        for message in problems:
            self.report(fields["code"], join(prefix, "code"), message)
        mismatch = answer_count_problem(marks, answers)
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
        before = len(self.problems)
        steps: tuple[SolutionStep, ...] | None = ()
        if "steps" in fields:
            at = join(path, "steps")
            items = self.sequence(
                fields["steps"], at, at_least=1, at_most=limits.MAX_STEPS, what="step"
            )
            steps = self._each(items, at, self._step)
        texts = {
            key: self.text(fields[key], join(path, key))
            for key in ("final_answer", "quick_check", "explanation")
            if key in fields
        }
        if len(self.problems) != before or steps is None:
            return None
        return Solution(steps=steps, **texts)

    def _step(self, node: Node, path: str) -> SolutionStep | None:
        fields = self.mapping(node, path, STEP_KEYS)
        if fields is None or len(fields) < len(STEP_KEYS):
            return None
        title = self.text(fields["title"], join(path, "title"), shape=Shape.LINE)
        text = self.text(fields["text"], join(path, "text"))
        numbered = STEP_PREFIX.match(title) if title else None
        if numbered:
            self.report(
                fields["title"],
                join(path, "title"),
                f"drop the '{shown(numbered.group(0))}' prefix: the bot numbers the steps itself",
            )
            return None
        return SolutionStep(title, text) if title and text else None

    def _hints(self, fields: Fields, prefix: str) -> tuple[str, ...] | None:
        """`hint:` (one) or `hints:` (the ladder, in order), or neither; None on a problem."""
        if "hint" in fields and "hints" in fields:
            at = join(prefix, "hints")
            self.report(fields["hints"], at, "give either hint or hints, not both")
            return None
        if "hint" in fields:
            hint = self._text_of(fields, prefix, "hint", limit=limits.MAX_SHORT_TEXT)
            return None if hint is None else (hint,)
        if "hints" not in fields:
            return ()
        path = join(prefix, "hints")
        items = self.sequence(fields["hints"], path, at_least=1, at_most=MAX_HINTS, what="hint")
        hints = self._each(
            items, path, lambda item, at: self.text(item, at, limit=limits.MAX_SHORT_TEXT)
        )
        if hints is None or items is None:
            return None
        for i, hint in enumerate(hints):
            if hint in hints[:i]:
                first = hints.index(hint) + 1
                self.report(items[i], f"{path}[{i}]", f"hint {i + 1} repeats hint {first}")
                return None
        return hints

    def _mistakes(
        self, node: Node | None, path: str, labels: Labels, answers: Labels
    ) -> tuple[MistakeNote, ...] | None:
        if node is None:
            return ()
        items = self.sequence(node, path, at_most=limits.MAX_MISTAKES, what="mistake note")
        return self._each(items, path, lambda item, at: self._mistake(item, at, labels, answers))

    def _mistake(
        self, node: Node, path: str, labels: Labels, answers: Labels
    ) -> MistakeNote | None:
        if isinstance(node, ScalarNode):
            text = self.text(node, path, limit=limits.MAX_SHORT_TEXT)
            return MistakeNote(text) if text else None
        if not isinstance(node, MappingNode):
            if self.fresh(node, path):
                why = f"expected a note (text) or note: and options:, got {describe(node)}"
                self.report(node, path, why)
            return None
        fields = self.mapping(node, path, MISTAKE_KEYS)
        if fields is None or len(fields) < len(MISTAKE_KEYS):
            return None
        text = self.text(fields["note"], join(path, "note"), limit=limits.MAX_SHORT_TEXT)
        tied = self._tied(fields["options"], join(path, "options"), labels, answers)
        return MistakeNote(text, tied) if text and tied else None

    def _tied(self, node: Node, path: str, labels: Labels, answers: Labels) -> Labels:
        items = self.sequence(
            node, path, at_least=1, at_most=limits.MAX_LABELS, what="option label"
        )
        if items is None:
            return None
        tied = [
            self._label(item, f"{path}[{i}]", labels, "tied option") for i, item in enumerate(items)
        ]
        for item, label in zip(items, tied, strict=True):
            if label and answers and label in answers:
                self.report(
                    item,
                    path,
                    f"the note is tied to option {label}, a correct answer, so it would never "
                    "be shown",
                )
                return None
        return None if None in tied else tuple(t for t in tied if t)
