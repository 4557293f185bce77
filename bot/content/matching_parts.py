"""A `matching` task's parts, checked and built from their nodes: the pairs (a stem, its answer
and the notes on wrong answers for it) and the distractors. The options are the answers and
distractors in alphabetical order, so their order gives no pair away; stems may share an answer,
as in Moodle, and it is one option."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from yaml.nodes import Node

from bot.content import limits
from bot.content.nodes import NodeChecker, join, shown
from bot.content.safety import Shape, look_alike
from bot.quiz.tasks import MAX_STEMS, OPTION_LABELS, MistakeNote, Option, pair_key
from bot.rendering import MAX_SELECT_OPTIONS, plain_text

PAIR_KEYS: Final = {"stem": True, "answer": True, "mistakes": False}
PAIR_MISTAKE_KEYS: Final = {"answers": True, "note": True}
MIN_PAIRS: Final = 2
MAX_ANSWERS: Final = MAX_SELECT_OPTIONS
"""The answers and distractors together: one select menu per stem lists them all."""


@dataclass(frozen=True, slots=True)
class MatchingBody:
    question: str
    stems: tuple[str, ...]
    options: tuple[Option, ...]
    answers: tuple[str, ...]
    """Each stem's option label, in stem order."""
    mistakes: tuple[MistakeNote, ...]


@dataclass(frozen=True, slots=True)
class _Pair:
    stem: str
    answer: str
    notes: tuple[tuple[tuple[str, ...], str, Node], ...]
    """(wrong answers, note, node) as written."""


def matching_options(
    answers: list[str], distractors: list[str]
) -> tuple[tuple[Option, ...], tuple[str, ...]]:
    """The options (every answer, a shared one once, and distractor, alphabetically) and each
    pair's label."""
    texts = [*dict.fromkeys(answers), *distractors]
    ordered = sorted(texts, key=lambda t: (look_alike(plain_text(t)), t))
    options = tuple(Option(OPTION_LABELS[i], t) for i, t in enumerate(ordered))
    label_of = {o.text: o.label for o in options}
    return options, tuple(label_of[a] for a in answers)


class MatchingParts(NodeChecker):
    """The checks of a matching task's own keys; `schema.BankChecker` calls `_matching`."""

    def _matching(self, fields: dict[str, Node], prefix: str) -> MatchingBody | None:
        before = len(self.problems)
        question = self._text_of(fields, prefix, "question")
        path = join(prefix, "pairs")
        items = (
            self.sequence(fields["pairs"], path, at_least=MIN_PAIRS, at_most=MAX_STEMS, what="pair")
            if "pairs" in fields
            else None
        )
        pairs = [self._pair(item, f"{path}[{i}]") for i, item in enumerate(items or ())]
        distractors = self._distractors(fields.get("distractors"), join(prefix, "distractors"))
        if len(self.problems) != before or not question or items is None:
            return None
        if distractors is None or None in pairs:
            return None
        found = [p for p in pairs if p is not None]
        if not self._distinct(found, distractors, fields, prefix):
            return None
        options, answers = matching_options([p.answer for p in found], list(distractors))
        label_of = {o.text: o.label for o in options}
        mistakes = self._pair_notes(found, label_of, path)
        if mistakes is None:
            return None
        stems = tuple(p.stem for p in found)
        return MatchingBody(question, stems, options, answers, mistakes)

    def _pair(self, node: Node, path: str) -> _Pair | None:
        fields = self.mapping(node, path, PAIR_KEYS)
        if fields is None or "stem" not in fields or "answer" not in fields:
            return None
        stem = self.text(fields["stem"], join(path, "stem"), shape=Shape.OPTION)
        answer = self.text(fields["answer"], join(path, "answer"), shape=Shape.OPTION)
        notes: list[tuple[tuple[str, ...], str, Node]] = []
        if "mistakes" in fields:
            at = join(path, "mistakes")
            listed = self.sequence(fields["mistakes"], at, at_least=1, at_most=MAX_ANSWERS)
            for i, item in enumerate(listed or ()):
                note = self._pair_mistake(item, f"{at}[{i}]")
                if note is None:
                    return None
                notes.append((*note, item))
            if listed is None:
                return None
        return _Pair(stem, answer, tuple(notes)) if stem and answer else None

    def _pair_mistake(self, node: Node, path: str) -> tuple[tuple[str, ...], str] | None:
        fields = self.mapping(node, path, PAIR_MISTAKE_KEYS)
        if fields is None or len(fields) < len(PAIR_MISTAKE_KEYS):
            return None
        at = join(path, "answers")
        items = self.sequence(fields["answers"], at, at_least=1, at_most=MAX_ANSWERS)
        wrong = [
            self.text(item, f"{at}[{i}]", shape=Shape.OPTION) for i, item in enumerate(items or ())
        ]
        note = self.text(fields["note"], join(path, "note"), limit=limits.MAX_SHORT_TEXT)
        if items is None or None in wrong or not note:
            return None
        return tuple(w for w in wrong if w), note

    def _distractors(self, node: Node | None, path: str) -> tuple[str, ...] | None:
        if node is None:
            return ()
        items = self.sequence(node, path, at_most=MAX_ANSWERS, what="distractor")
        texts = [
            self.text(item, f"{path}[{i}]", shape=Shape.OPTION)
            for i, item in enumerate(items or ())
        ]
        if items is None or None in texts:
            return None
        return tuple(t for t in texts if t)

    def _distinct(
        self, pairs: list[_Pair], distractors: tuple[str, ...], fields: dict[str, Node], prefix: str
    ) -> bool:
        """Whether the stems read differently, and the options (a shared answer once) too."""
        stems: set[str] = set()
        for i, pair in enumerate(pairs):
            key = look_alike(plain_text(pair.stem))
            if key in stems:
                why = f"stem '{shown(pair.stem)}' is given twice"
                self.report(fields["pairs"], join(prefix, f"pairs[{i}].stem"), why)
                return False
            stems.add(key)
        texts = [*dict.fromkeys(p.answer for p in pairs), *distractors]
        if len(texts) > MAX_ANSWERS:
            why = (
                f"{len(texts)} answers and distractors, but each stem's select menu shows at "
                f"most {MAX_ANSWERS}"
            )
            node = fields.get("distractors", fields["pairs"])
            self.report(node, join(prefix, "distractors"), why)
            return False
        seen: set[str] = set()
        for text in texts:  # a shared answer, written the same, is in `texts` once
            key = look_alike(plain_text(text))
            if key in seen:
                why = (
                    f"answer '{shown(text)}' is given twice: distractors differ from every "
                    "answer, and stems sharing an answer write it the same way"
                )
                self.report(fields["pairs"], join(prefix, "pairs"), why)
                return False
            seen.add(key)
        return True

    def _pair_notes(
        self, pairs: list[_Pair], label_of: dict[str, str], path: str
    ) -> tuple[MistakeNote, ...] | None:
        notes: list[MistakeNote] = []
        for stem, pair in enumerate(pairs, start=1):
            for wrong, note, node in pair.notes:
                at = join(f"{path}[{stem - 1}]", "mistakes")
                tied = []
                for text in wrong:
                    if text not in label_of or text == pair.answer:
                        why = (
                            f"'{shown(text)}' is not a wrong answer of this stem: name another "
                            "pair's answer or a distractor, as written"
                        )
                        self.report(node, at, why)
                        return None
                    tied.append(pair_key(stem, label_of[text]))
                notes.append(MistakeNote(note, tuple(tied)))
        return tuple(notes)
