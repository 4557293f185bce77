"""A `cloze` task's parts, checked and built from its `question`, written in Moodle's
embedded-answer syntax (`cloze_syntax`): what each part may hold, and what fits Discord (a select
of at most 25 options per choice part, one modal of at most 5 inputs for the typed parts)."""

from __future__ import annotations

from dataclasses import dataclass

from yaml.nodes import Node

from bot.content.cloze_syntax import ClozeSyntaxError, parse
from bot.content.nodes import NodeChecker, join, shown
from bot.quiz import numeric
from bot.quiz.cloze import MAX_PARTS, MAX_TYPED_PARTS, ClozePart, PartKind, typed_parts
from bot.quiz.typed import MAX_TYPED
from bot.rendering import MAX_SELECT_OPTIONS

MAX_OPTION_TEXT = 100
"""A choice part's option is a select option's label: Discord allows 100 characters."""


@dataclass(frozen=True, slots=True)
class ClozeBody:
    prompt: str
    """The question with each part's place marked `{#n}`."""
    parts: tuple[ClozePart, ...]


class ClozeParts(NodeChecker):
    """The checks of a cloze task's own keys; `schema.BankChecker` calls `_cloze`."""

    def _cloze(self, fields: dict[str, Node], prefix: str) -> ClozeBody | None:
        question = self._text_of(fields, prefix, "question")
        if not question:
            return None
        node, path = fields["question"], join(prefix, "question")
        try:
            prompt, parts = parse(question)
        except ClozeSyntaxError as error:
            self.report(node, path, str(error))
            return None
        problems = [*_count_problems(parts)]
        for n, part in enumerate(parts, 1):
            problems += [f"part {n}: {why}" for why in _part_problems(part)]
        for why in problems:
            self.report(node, path, why)
        return None if problems else ClozeBody(prompt, parts)


def _count_problems(parts: tuple[ClozePart, ...]) -> list[str]:
    found = []
    if len(parts) > MAX_PARTS:
        found.append(f"{len(parts)} parts; a cloze task has at most {MAX_PARTS}")
    typed = typed_parts(parts)
    if len(typed) > MAX_TYPED_PARTS:
        found.append(
            f"{len(typed)} typed parts (SHORTANSWER or NUMERICAL); they share one Discord "
            f"modal, which holds at most {MAX_TYPED_PARTS}"
        )
    return found


def _part_problems(part: ClozePart) -> list[str]:
    found = []
    if part.weight < 1:
        found.append(f"weight {part.weight}: a part's weight is 1 or more")
    if not any(a.credit == 100 for a in part.answers):
        found.append("no answer earns full credit (mark one with '=')")
    if any(not 0 <= a.credit <= 100 for a in part.answers):
        found.append("a credit is outside 0% to 100%")
    if part.choice:
        if not 2 <= len(part.answers) <= MAX_SELECT_OPTIONS:
            found.append(
                f"{len(part.answers)} options; a choice part has 2 to {MAX_SELECT_OPTIONS}"
            )
        texts = [a.text for a in part.answers]
        if len(set(texts)) != len(texts):
            found.append("two options read the same")
        for text in texts:
            if len(text) > MAX_OPTION_TEXT:
                found.append(f"option '{shown(text)}' is over {MAX_OPTION_TEXT} characters")
    elif part.kind is PartKind.NUMERICAL:
        for a in part.answers:
            if a.text != "*" and (numeric.parse_spec(a.text) is None or ".." in a.text):
                # Moodle's cloze takes a value and a tolerance only: a range would not export.
                found.append(f"'{shown(a.text)}' is not a number (write 3.14 or 3.14:0.01)")
    else:
        for a in part.answers:
            if len(a.text) > MAX_TYPED:
                found.append(f"answer '{shown(a.text)}' is over {MAX_TYPED} characters")
    return found
