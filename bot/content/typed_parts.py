"""A `short` task's parts, checked and built from their nodes: the accepted answers (each with
an optional credit), `case_sensitive`, `typos` and the notes on known wrong answers. The
comparison itself is `bot.quiz.typed`'s."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from yaml.nodes import MappingNode, Node, ScalarNode

from bot.content import limits
from bot.content.nodes import NodeChecker, describe, join, shown
from bot.content.safety import Shape
from bot.quiz.numeric import NumAnswer, NumericAnswers, Unit, number, parse_spec
from bot.quiz.tasks import FULL_CREDIT, MistakeNote
from bot.quiz.typed import (
    MAX_TYPED,
    MAX_TYPOS,
    Accepted,
    ShortAnswers,
    TypedMistake,
    has_wildcard,
    match,
    normalise,
)

ACCEPTED_KEYS: Final = {"text": True, "credit": False}
NUMERIC_KEYS: Final = {"answer": True, "credit": False}
UNIT_KEYS: Final = {"unit": True, "multiplier": False}
TYPED_MISTAKE_KEYS: Final = {"answers": True, "note": True}
MAX_ACCEPTED: Final = 25
INT_TAG: Final = "tag:yaml.org,2002:int"
NUMBER_TAGS: Final = frozenset({INT_TAG, "tag:yaml.org,2002:float"})


@dataclass(frozen=True, slots=True)
class ShortBody:
    question: str
    short: ShortAnswers | None
    general: tuple[MistakeNote, ...]
    """The catch-all notes, for any other wrong answer."""
    numeric: NumericAnswers | None = None


class TypedParts(NodeChecker):
    """The checks of a short task's own keys; `schema.BankChecker` calls `_short`."""

    def _short(self, fields: dict[str, Node], prefix: str) -> ShortBody | None:
        before = len(self.problems)
        question = self._text_of(fields, prefix, "question")
        case = (
            self.flag(fields["case_sensitive"], join(prefix, "case_sensitive"))
            if "case_sensitive" in fields
            else False
        )
        typos = self._typos(fields["typos"], join(prefix, "typos")) if "typos" in fields else 0
        accepted = (
            self._accepted(fields["answers"], join(prefix, "answers"))
            if "answers" in fields
            else None
        )
        notes = self._typed_mistakes(fields.get("mistakes"), join(prefix, "mistakes"))
        if len(self.problems) != before or None in (question, case, typos, accepted, notes):
            return None
        assert question and accepted is not None and notes is not None
        assert case is not None and typos is not None
        mistakes = tuple(m for m in notes if isinstance(m, TypedMistake))
        general = tuple(m for m in notes if isinstance(m, MistakeNote))
        spec = ShortAnswers(accepted, case, typos, mistakes)
        if not self._mistakes_wrong(spec, fields.get("mistakes"), join(prefix, "mistakes")):
            return None
        return ShortBody(question, spec, general)

    def _numerical(self, fields: dict[str, Node], prefix: str) -> ShortBody | None:
        before = len(self.problems)
        question = self._text_of(fields, prefix, "question")
        answers = (
            self._num_answers(fields["answers"], join(prefix, "answers"))
            if "answers" in fields
            else None
        )
        units = self._units(fields["units"], join(prefix, "units")) if "units" in fields else ()
        penalty: Fraction | None = Fraction(0)
        if "unit_penalty" in fields:
            at = join(prefix, "unit_penalty")
            penalty = self._percent(fields["unit_penalty"], at, zero=True)
            if penalty and "units" not in fields:
                self.report(fields["unit_penalty"], at, "a unit penalty needs units")
        notes = self._typed_mistakes(fields.get("mistakes"), join(prefix, "mistakes"))
        for i, note in enumerate(notes or ()):
            for answer in note.answers if isinstance(note, TypedMistake) else ():
                if parse_spec(answer) is None:
                    at = join(prefix, f"mistakes[{i}].answers")
                    self.report(fields.get("mistakes"), at, _not_spec(answer))
        if len(self.problems) != before or None in (question, answers, units, penalty, notes):
            return None
        assert question and answers and units is not None and penalty is not None
        assert notes is not None
        known = tuple(
            # Each as `parse_spec` writes it, so "3:0" and "3" are one answer.
            TypedMistake(tuple(_canonical(a) for a in m.answers), m.note)
            for m in notes
            if isinstance(m, TypedMistake)
        )
        spec = NumericAnswers(answers, units, penalty, known)
        general = tuple(m for m in notes if isinstance(m, MistakeNote))
        return ShortBody(question, None, general, spec)

    def _num_answers(self, node: Node, path: str) -> tuple[NumAnswer, ...] | None:
        items = self.sequence(node, path, at_least=1, at_most=MAX_ACCEPTED, what="answer")
        if items is None:
            return None
        found: list[NumAnswer] = []
        for i, item in enumerate(items):
            at = f"{path}[{i}]"
            spec_node, credit = item, FULL_CREDIT
            if isinstance(item, MappingNode):
                keys = self.mapping(item, at, NUMERIC_KEYS)
                if keys is None or "answer" not in keys:
                    continue
                spec_node, at = keys["answer"], join(at, "answer")
                if "credit" in keys:
                    got = self._credit(keys["credit"], join(f"{path}[{i}]", "credit"))
                    if got is None:
                        continue
                    credit = got
            # Read as written: YAML 1.1 would make an unquoted 3:2 the number 182.
            written = spec_node.value if isinstance(spec_node, ScalarNode) else None
            answer = None if not isinstance(written, str) else parse_spec(written, credit)
            if answer is None:
                self.report(spec_node, at, _not_spec(written or describe(spec_node)))
                continue
            found.append(answer)
        if len(found) != len(items):
            return None
        if not any(a.credit == FULL_CREDIT for a in found):
            self.report(node, path, "no answer earns full credit: give one without a credit")
            return None
        return tuple(found)

    def _units(self, node: Node, path: str) -> tuple[Unit, ...] | None:
        items = self.sequence(node, path, at_least=1, at_most=MAX_ACCEPTED, what="unit")
        if items is None:
            return None
        units: list[Unit] = []
        for i, item in enumerate(items):
            at = f"{path}[{i}]"
            keys = self.mapping(item, at, UNIT_KEYS)
            if keys is None or "unit" not in keys:
                continue
            name = self.text(keys["unit"], join(at, "unit"), shape=Shape.LINE)
            multiplier = Fraction(1)
            if "multiplier" in keys:
                raw = keys["multiplier"]
                value = number(raw.value) if isinstance(raw, ScalarNode) else None
                if not value or value <= 0:
                    why = f"a multiplier is a number above 0, got {describe(raw)}"
                    self.report(raw, join(at, "multiplier"), why)
                    continue
                multiplier = value
            if i == 0 and multiplier != 1:
                why = "the first unit is the answers' own: its multiplier is 1"
                self.report(keys["multiplier"], join(at, "multiplier"), why)
                continue
            if name and any(u.name.casefold() == name.casefold() for u in units):
                self.report(item, at, f"unit '{shown(name)}' is given twice")
                continue
            if name:
                units.append(Unit(name, multiplier))
        return tuple(units) if len(units) == len(items) else None

    def _percent(self, node: Node, path: str, *, zero: bool = False) -> Fraction | None:
        if isinstance(node, ScalarNode) and node.tag in NUMBER_TAGS:
            value = number(node.value.replace("_", ""))
            if value is not None and (value >= 0 if zero else value > 0) and value <= 100:
                return value
        self.report(node, path, f"expected a percentage from 0 to 100, got {describe(node)}")
        return None

    def _typos(self, node: Node, path: str) -> int | None:
        if isinstance(node, ScalarNode) and node.tag == INT_TAG:
            value = int(node.value.replace("_", ""), 0)
            if 0 <= value <= MAX_TYPOS:
                return value
        self.report(node, path, f"typos is a number of edits from 0 to {MAX_TYPOS}")
        return None

    def _accepted(self, node: Node, path: str) -> tuple[Accepted, ...] | None:
        items = self.sequence(node, path, at_least=1, at_most=MAX_ACCEPTED, what="answer")
        if items is None:
            return None
        found: list[Accepted] = []
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            at = f"{path}[{i}]"
            one = self._one_accepted(item, at)
            if one is None:
                continue
            key = normalise(one.text).casefold()
            if key in seen:
                self.report(item, at, f"answer {i + 1} repeats answer {seen[key] + 1}")
                continue
            seen[key] = i
            found.append(one)
        if len(found) != len(items):
            return None
        if not any(a.credit == FULL_CREDIT for a in found):
            self.report(node, path, "no answer earns full credit: give one without a credit")
            return None
        return tuple(found)

    def _one_accepted(self, item: Node, at: str) -> Accepted | None:
        text_node: Node = item
        credit = FULL_CREDIT
        if isinstance(item, MappingNode):
            keys = self.mapping(item, at, ACCEPTED_KEYS)
            if keys is None or "text" not in keys:
                return None
            text_node, at_text = keys["text"], join(at, "text")
            if "credit" in keys:
                got = self._credit(keys["credit"], join(at, "credit"))
                if got is None:
                    return None
                credit = got
        else:
            at_text = at
        text = self.text(text_node, at_text, shape=Shape.LINE)
        if text is None:
            return None
        if len(normalise(text)) > MAX_TYPED or not normalise(text).strip("*"):
            why = f"an answer is 1 to {MAX_TYPED} characters, and not only '*'"
            self.report(text_node, at_text, why)
            return None
        return Accepted(text, credit)

    def _credit(self, node: Node, path: str) -> Fraction | None:
        if isinstance(node, ScalarNode) and node.tag in NUMBER_TAGS:
            try:
                value = Fraction(node.value.replace("_", ""))
            except (ValueError, ZeroDivisionError):
                value = Fraction(-1)
            if 0 < value <= FULL_CREDIT:
                return value
        why = f"a credit is a percentage above 0, up to 100, got {describe(node)}"
        self.report(node, path, why)
        return None

    def _typed_mistakes(
        self, node: Node | None, path: str
    ) -> tuple[TypedMistake | MistakeNote, ...] | None:
        """`- answers: [..] note: ..` for known wrong answers; a plain note is the catch-all."""
        if node is None:
            return ()
        items = self.sequence(node, path, at_most=limits.MAX_MISTAKES, what="mistake note")
        if items is None:
            return None
        found: list[TypedMistake | MistakeNote] = []
        for i, item in enumerate(items):
            at = f"{path}[{i}]"
            if isinstance(item, ScalarNode):
                text = self.text(item, at, limit=limits.MAX_SHORT_TEXT)
                if text:
                    found.append(MistakeNote(text))
                continue
            if not isinstance(item, MappingNode):
                why = f"expected a note (text) or answers: and note:, got {describe(item)}"
                self.report(item, at, why)
                continue
            keys = self.mapping(item, at, TYPED_MISTAKE_KEYS)
            if keys is None or len(keys) < len(TYPED_MISTAKE_KEYS):
                continue
            note = self.text(keys["note"], join(at, "note"), limit=limits.MAX_SHORT_TEXT)
            answers_at = join(at, "answers")
            answer_nodes = self.sequence(
                keys["answers"], answers_at, at_least=1, at_most=MAX_ACCEPTED, what="answer"
            )
            answers = [
                self.text(a, f"{answers_at}[{j}]", shape=Shape.LINE)
                for j, a in enumerate(answer_nodes or [])
            ]
            if note and answer_nodes is not None and None not in answers:
                found.append(TypedMistake(tuple(a for a in answers if a), note))
        return tuple(found) if len(found) == len(items) else None

    def _mistakes_wrong(self, spec: ShortAnswers, node: Node | None, path: str) -> bool:
        """A known wrong answer that an accepted one matches would never bring its note."""
        for i, mistake in enumerate(spec.mistakes):
            for answer in mistake.answers:
                if has_wildcard(answer):
                    continue
                got = match(ShortAnswers(spec.accepted, spec.case_sensitive), answer)
                if got.accepted is not None:
                    why = (
                        f"'{shown(answer)}' is accepted (answer '{shown(got.accepted.text)}'), "
                        "so its note would never be shown"
                    )
                    self.report(node, f"{path}[{i}].answers", why)
                    return False
        return True


def _canonical(written: str) -> str:
    spec = parse_spec(written)
    return written if spec is None else spec.spec


def _not_spec(written: str) -> str:
    return (
        f"'{shown(written)}' is not a numerical answer: write a value (3.5), a value and its "
        "tolerance (3.5:0.1) or a range (3..4), quoted"
    )
