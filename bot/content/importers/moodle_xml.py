"""Moodle XML: a question bank's export read into drafts, and written from our tasks, together
so a round trip keeps every field (content/README.md, "Moodle XML"). Parsed with defusedxml:
entities (an entity bomb) and malformed XML refuse the file with one report line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import PurePath
from xml.etree import ElementTree as ET

from defusedxml import DefusedXmlException, EntitiesForbidden
from defusedxml.ElementTree import DefusedXMLParser

from bot.content import cloze_syntax
from bot.content.importers import drafts
from bot.content.importers.drafts import Draft, ImportResult, LeftOut, Note, ReportLine, Step
from bot.content.importers.html_text import to_markdown
from bot.quiz.cloze import MARKER, ClozePart, PartAnswer, PartKind
from bot.quiz.numeric import NumAnswer, NumericAnswers, Unit, number, parse_spec, shown
from bot.quiz.tasks import (
    BLANK_PATTERN,
    FULL_CREDIT,
    MAX_HINTS,
    OPTION_LABELS,
    Kind,
    Solution,
    Task,
)
from bot.quiz.typed import Accepted, ShortAnswers, TypedMistake, merged

FORMAT_NAME = "Moodle XML"
TRUE_FALSE = ("True", "False")

FILL_TAG = "quizbot-fill"  # an exported one-blank fill task comes back as one
DIFFICULTY_TAG = "quizbot-difficulty-"  # + easy, medium or hard: Moodle has no difficulty
SHOW_COUNT_TAG = "quizbot-show-count"  # a multi task's show_count: Moodle has no such setting
TYPOS_TAG = "quizbot-typos-"  # a short task's typos (quizbot-typos-1): Moodle has none

_KIND_NAMES = {
    "essay": "essay",
    "description": "description",
    "calculated": "calculated",
    "calculatedsimple": "simple calculated",
    "calculatedmulti": "calculated multichoice",
    "ddwtos": "drag and drop into text",
    "gapselect": "select missing words",
    "ddimageortext": "drag and drop onto image",
    "ddmarker": "drag and drop markers",
    "ordering": "ordering",
    "randomsamatch": "random short-answer matching",
    "random": "random",
}  # the question types we leave out, in Moodle's words

_BANK_COMMENT = "quizbot bank: "  # where an export of ours names its bank
_BANK_TITLE = re.compile(r"<!-- quizbot bank: (?P<bank>[^\n]+?) -->")
_RIGHT = 100.0
# Moodle's default <incorrectfeedback>: not a note anyone wrote.
_DEFAULT_INCORRECT = {"your answer is incorrect.", "your answer is incorrect"}
_NO_FEEDBACK_COMMENT = "The source has no feedback: the solution gives only the answer."


def looks_like(text: str) -> bool:
    """Whether `text` is a Moodle XML file: a `<quiz>` root near the start."""
    return re.search(r"<quiz[\s>/]", text[:4096]) is not None


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """The questions as drafts, and what was left out or changed; `topic` wins over categories."""
    name = PurePath(source).stem or "moodle-xml"
    title = _BANK_TITLE.search(text[:4096])
    bank = title["bank"] if title else name
    report: list[ReportLine] = []
    made: list[Draft] = []
    categories: list[str] = []
    try:
        root, lines = _read(text)
    except LeftOut as refused:
        report.append(refused.report)
        return ImportResult([], report, bank=bank, topic=topic or name, source=_source(source))
    category: str | None = None
    for question in root:
        line = lines.get(id(question))
        if question.tag != "question":
            report.append(ReportLine(line, _not_a_question(question)))
            continue
        if question.get("type") == "category":
            category = drafts.category_topic(question.findtext("category/text") or "")
            if category:
                categories.append(category)
            continue
        try:
            draft = _draft(question, line, report)
        except LeftOut as out:
            report.append(out.report)
            continue
        draft.topic = category
        made.append(draft)
    bank_topic = topic or (categories[0] if categories else name)
    for draft in made:
        if topic or draft.topic == bank_topic:
            draft.topic = None
    drafts.unique_ids(made)
    return ImportResult(made, report, bank=bank, topic=bank_topic, source=_source(source))


def _not_a_question(element: ET.Element) -> str:
    """The report line of an element under <quiz> that is not a <question>: never dropped unsaid."""
    inside = sum(1 for e in element.iter("question"))
    held = f" and the {inside} question(s) in it" if inside else ""
    return (
        f"left out: a <{element.tag}> element{held} (Moodle XML puts each <question> directly "
        "in <quiz>)"
    )


def _source(source: str) -> str:
    return f"{FORMAT_NAME}: {PurePath(source).name}"


def _refused(line: int | None, message: str) -> LeftOut:
    """The whole file is refused: one report line says why."""
    return LeftOut(ReportLine(line, message))


class _LineBuilder(ET.TreeBuilder):
    """The tree, and each `<question>`'s line by element id (unique while the tree lives)."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: DefusedXMLParser | None = None
        self.lines: dict[int, int] = {}
        self.depth = 0

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        element = super().start(tag, attrs)
        self.depth += 1
        if self.depth == 2 and self.parser is not None:
            self.lines[id(element)] = self.parser.parser.CurrentLineNumber
        return element

    def end(self, tag: str) -> ET.Element:
        self.depth -= 1
        return super().end(tag)


def _read(text: str) -> tuple[ET.Element, dict[int, int]]:
    builder = _LineBuilder()
    parser = DefusedXMLParser(target=builder)
    builder.parser = parser
    try:
        parser.feed(text)
        root = parser.close()
    except EntitiesForbidden as error:
        raise _refused(parser.parser.CurrentLineNumber, _entities_refused(error)) from None
    except DefusedXmlException as error:
        line = parser.parser.CurrentLineNumber
        raise _refused(line, f"refused: the file uses a forbidden XML feature ({error})") from None
    except ET.ParseError as error:
        line, column = error.position
        reason = re.sub(r": line \d+, column \d+$", "", str(error))
        why = f"refused: not well-formed XML: {reason} (column {column + 1})"
        raise _refused(line, why) from None
    if root.tag != "quiz":
        raise _refused(1, f"refused: not Moodle XML: the root element is <{root.tag}>, not <quiz>")
    return root, builder.lines


def _entities_refused(error: EntitiesForbidden) -> str:
    if target := error.sysid or error.pubid:
        return (
            f"refused: the file declares an external entity ({error.name!r} -> {target}); "
            "Moodle XML never needs one"
        )
    return (
        f"refused: the file declares the XML entity {error.name!r}, as an entity bomb "
        '("billion laughs") does; Moodle XML never needs entities'
    )


@dataclass(slots=True)
class _Answer:
    text: str
    fraction: float
    feedback: str
    weight: Fraction = Fraction(0)
    """`fraction` exactly, as written (33.33333 is not a third)."""


@dataclass(slots=True)
class _Question:
    """One `<question>` being read, and what reading its texts found."""

    element: ET.Element
    line: int | None
    name: str = ""
    images: int = 0
    comments: list[str] = field(default_factory=list)

    def text(self, element: ET.Element | None) -> str:
        """A Moodle text field (`<x format="…"><text>…</text></x>`) as Discord markdown."""
        if element is None:
            return ""
        raw = element.findtext("text") or ""
        fmt = element.get("format", "html")
        if fmt in ("html", "moodle_auto_format"):
            self.images += len(re.findall(r"<img\b", raw, re.IGNORECASE))
        return _convert(raw, fmt)

    def field(self, tag: str) -> str:
        return self.text(self.element.find(tag))

    def out(self, why: str) -> LeftOut:
        return LeftOut(ReportLine(self.line, f"left out: question {self.name!r}: {why}"))

    def note(self, what: str) -> ReportLine:
        return ReportLine(self.line, f"question {self.name!r}: {what}")


def _draft(element: ET.Element, line: int | None, report: list[ReportLine]) -> Draft:
    kind = element.get("type", "")
    question = _Question(element, line, name=(element.findtext("name/text") or "").strip())
    if kind == "multichoice":
        answers = [_answer(question, a) for a in element.findall("answer")]
        if element.findtext("single", "true").strip().casefold() not in ("true", "1", "yes"):
            return _multi_draft(question, answers, report)
        if any(0 < a.fraction < _RIGHT for a in answers):  # one pick, partly right: weighted
            return _multi_draft(question, answers, report, single=True)
    elif kind == "truefalse":
        answers = _true_false(question)
    elif kind in ("shortanswer", "numerical"):
        return _typed_draft(question, kind, report)
    elif kind == "matching":
        return _matching_draft(question, report)
    elif kind in ("cloze", "multianswer"):  # Moodle writes "cloze" for its multianswer
        return _cloze_draft(question, report)
    else:
        raise LeftOut(drafts.left_out(line, _KIND_NAMES.get(kind, kind or "untyped")))
    text = question.field("questiontext")
    right = _right_option(question, answers, report)
    draft = Draft(
        id=drafts.task_id(question.name, text),
        kind="choice",
        options=[a.text for a in answers],
        answers=[OPTION_LABELS[right]],
        question=text,
        source_line=line,
    )
    tags = [(t.findtext("text") or "").strip() for t in element.findall("tags/tag")]
    _difficulty(draft, tags)
    if kind == "multichoice" and FILL_TAG in tags:
        _as_fill(draft, question)
    draft.mistakes = _notes(question, answers, right)
    _solution(draft, question, answers[right].feedback)
    _hint(draft, question, report)
    if n := question.images:
        report.append(question.note(f"{n} image(s) left out; the text says [image: …]"))
    draft.comment = "\n".join(question.comments) or None
    return draft


def _answer(question: _Question, element: ET.Element) -> _Answer:
    raw = element.get("fraction", "0")
    try:
        weight = Fraction(raw.strip())
    except (ValueError, ZeroDivisionError):
        raise question.out(f"the fraction {raw!r} of an answer is not a number") from None
    feedback = question.text(element.find("feedback"))
    return _Answer(question.text(element), float(weight), feedback, weight)


def _multi_draft(
    question: _Question, answers: list[_Answer], report: list[ReportLine], *, single: bool = False
) -> Draft:
    """A multichoice question with `single` false: several right options, each answer's
    fraction its weight; a wrong one's feedback is a note tied to it, the right ones' explain.
    `single`: one pick, partly right answers too (a note ties their feedback to them)."""
    if not 2 <= len(answers) <= len(OPTION_LABELS):
        raise question.out(f"it has {len(answers)} answers (2 to {len(OPTION_LABELS)} fit)")
    weights = [a.weight for a in answers]
    if single and not drafts.single_weights_fit(weights):
        raise question.out('no answer is marked right (fraction="100"), or one is above it')
    if not single and not drafts.weights_add_up(weights):
        total = sum((w for w in weights if w > 0), Fraction(0))
        raise question.out(f"its right answers add up to {float(total):g}%, not 100%")
    element = question.element
    text = question.field("questiontext")
    draft = Draft(
        id=drafts.task_id(question.name, text),
        kind="multi",
        options=[a.text for a in answers],
        answers=[],
        question=text,
        source_line=question.line,
        single=single,
    )
    drafts.set_weights(draft, weights)
    tags = [(t.findtext("text") or "").strip() for t in element.findall("tags/tag")]
    _difficulty(draft, tags)
    draft.show_count = SHOW_COUNT_TAG in tags
    right = {i for i, w in enumerate(weights) if (drafts.is_full(w) if single else w > 0)}
    draft.mistakes = drafts.tied_notes(
        [
            (OPTION_LABELS[i], drafts.note_items(a.feedback))
            for i, a in enumerate(answers)
            if i not in right and a.feedback
        ]
    ) + _general_notes(question)
    praise = dict.fromkeys(answers[i].feedback for i in sorted(right))  # each text once
    _solution(draft, question, _join(*praise) or "")
    if _NO_FEEDBACK_COMMENT in question.comments:  # not just the first right option
        draft.final_answer = "; ".join(answers[i].text for i in sorted(right))
    _hint(draft, question, report)
    if n := question.images:
        report.append(question.note(f"{n} image(s) left out; the text says [image: …]"))
    draft.comment = "\n".join(question.comments) or None
    return draft


def _matching_draft(question: _Question, report: list[ReportLine]) -> Draft:
    """A matching question: each `<subquestion>` a stem and its answer (plain text, as Moodle
    keeps it); one with an empty stem is a distractor."""
    element = question.element
    pairs: list[tuple[str, str]] = []
    distractors: list[str] = []
    for sub in element.findall("subquestion"):
        stem = question.text(sub)
        answer = (sub.findtext("answer/text") or "").strip()
        if not answer:
            continue  # Moodle ignores a subquestion without an answer
        if stem:
            pairs.append((stem, answer))
        else:
            distractors.append(answer)
    text = question.field("questiontext")
    draft = Draft(
        id=drafts.task_id(question.name, text),
        kind="matching",
        options=[],
        answers=[],
        question=text,
        source_line=question.line,
    )
    draft.pairs, draft.distractors = tuple(pairs), tuple(distractors)
    tags = [(t.findtext("text") or "").strip() for t in element.findall("tags/tag")]
    _difficulty(draft, tags)
    draft.mistakes = _general_notes(question)
    text_of_pairs = "; ".join(f"{stem} → {answer}" for stem, answer in pairs)
    _solution(draft, question, "", answer=text_of_pairs)
    _hint(draft, question, report)
    if n := question.images:
        report.append(question.note(f"{n} image(s) left out; the text says [image: …]"))
    draft.comment = "\n".join(question.comments) or None
    return draft


def _cloze_draft(question: _Question, report: list[ReportLine]) -> Draft:
    """An embedded-answers question: the text around its parts as Markdown, the parts in
    Moodle's syntax, as the bank keeps them; one we exported from a fill task is one again."""
    element = question.element
    raw = element.findtext("questiontext/text") or ""
    fmt = element.find("questiontext")
    fmt_name = "html" if fmt is None else fmt.get("format", "html")
    try:
        marked, parts = cloze_syntax.parse(raw)
    except cloze_syntax.ClozeSyntaxError as error:
        raise question.out(str(error)) from None
    if fmt_name in ("html", "moodle_auto_format"):
        question.images += len(re.findall(r"<img\b", raw, re.IGNORECASE))
        parts = tuple(_plain_part(part, fmt_name) for part in parts)
    text = _convert(marked, fmt_name)
    if [int(n) for n in MARKER.findall(text)] != list(range(1, len(parts) + 1)):
        raise question.out("its text around the embedded answers could not be read")
    draft = Draft(drafts.task_id(question.name, text), "cloze", [], [], source_line=question.line)
    draft.question = cloze_syntax.write(text, parts)
    tags = [(t.findtext("text") or "").strip() for t in element.findall("tags/tag")]
    _difficulty(draft, tags)
    general = _general_notes(question)
    draft.mistakes = general
    if FILL_TAG in tags and not _cloze_as_fill(draft, text, parts, general):
        question.comments.append(
            f"Tagged {FILL_TAG}, but the parts are not one set of options with one right each "
            "in an instruction followed by code: imported as a cloze task."
        )
    answer = ", ".join(f"[{n}] {p.best_text()}" for n, p in enumerate(parts, 1))
    _solution(draft, question, "", answer=answer)
    _hint(draft, question, report)
    if n := question.images:
        report.append(question.note(f"{n} image(s) left out; the text says [image: …]"))
    draft.comment = "\n".join(question.comments) or None
    return draft


def _plain_part(part: ClozePart, fmt: str) -> ClozePart:
    """A part of an HTML text: its answers' entities read, its feedback as Markdown."""
    answers = tuple(
        PartAnswer(html.unescape(a.text), a.credit, _feedback(a.feedback, fmt))
        for a in part.answers
    )
    return ClozePart(part.kind, answers, part.weight, part.style, part.case_sensitive)


def _feedback(text: str, fmt: str) -> str:
    return _convert(text, fmt) if text else ""


def _cloze_as_fill(
    draft: Draft, text: str, parts: Sequence[ClozePart], general: list[Note]
) -> bool:
    """An exported fill task: MULTICHOICE parts with the same options, one right each, in the
    code of an instruction followed by a fence; each option's feedback is its note."""
    options = [a.text for a in parts[0].answers]
    rights: list[str] = []
    for part in parts:
        right = [i for i, a in enumerate(part.answers) if a.credit == FULL_CREDIT]
        plain = part.choice and part.weight == 1 and not part.style
        if not plain or [a.text for a in part.answers] != options or len(right) != 1:
            return False
        if any(a.credit not in (0, FULL_CREDIT) for a in part.answers):
            return False
        rights.append(OPTION_LABELS[right[0]])
    match = _FENCED.match(text) if text.endswith("\n```") else None
    if not match or MARKER.search(match["instruction"]) or BLANK_PATTERN.search(match["code"]):
        return False
    feedback = [
        next((p.answers[i].feedback for p in parts if p.answers[i].feedback), "")
        for i in range(len(options))
    ]
    draft.kind, draft.question = "fill", None
    draft.instruction = match["instruction"].strip()
    draft.code = MARKER.sub(lambda m: f"[{m[1]}]", match["code"])
    info = match["language"].split()
    draft.language = info[0] if info else None
    draft.options, draft.answers = options, rights
    draft.mistakes = drafts.tied_notes(
        [(OPTION_LABELS[i], drafts.note_items(f)) for i, f in enumerate(feedback) if f]
    ) + general
    return True


def _typed_draft(question: _Question, kind: str, report: list[ReportLine]) -> Draft:
    """A shortanswer (`usecase`) or numerical (`tolerance`, `units`, `unitpenalty`) question.
    An answer worth 0% with feedback is a known mistake; numerical `*` is the catch-all."""
    element = question.element
    accepted: list[Accepted] = []
    values: list[NumAnswer] = []
    mistakes: list[TypedMistake] = []
    general: list[Note] = []
    praise: list[str] = []
    for answer in element.findall("answer"):
        raw = answer.get("fraction", "0").strip()
        try:
            credit = min(Fraction(raw), FULL_CREDIT)
        except (ValueError, ZeroDivisionError):
            raise question.out(f"the fraction {raw!r} of an answer is not a number") from None
        text = (answer.findtext("text") or "").strip()
        feedback = question.text(answer.find("feedback"))
        if kind == "numerical" and text == "*":  # any other answer
            general += [Note(t) for t in drafts.note_items(feedback)] if feedback else []
            continue
        spec: NumAnswer | None = None
        if kind == "numerical":
            tolerance = (answer.findtext("tolerance") or "0").strip()
            spec = parse_spec(f"{text}:{tolerance}", credit if credit > 0 else FULL_CREDIT)
            if spec is None:
                raise question.out(f"the numerical answer {text!r} is not a number")
        if credit > 0:
            if spec is not None:
                values.append(spec)
            else:
                accepted.append(Accepted(text, credit))
            if credit == FULL_CREDIT and feedback:
                praise.append(feedback)
        elif feedback:
            mistakes.append(TypedMistake((spec.spec if spec else text,), feedback))
    if FULL_CREDIT not in [a.credit for a in accepted] + [v.credit for v in values]:
        raise question.out("no answer earns full credit")
    tags = [(t.findtext("text") or "").strip() for t in element.findall("tags/tag")]
    text = question.field("questiontext")
    draft = Draft(drafts.task_id(question.name, text), "short", [], [], question=text)
    draft.source_line = question.line
    if kind == "shortanswer":
        case = (element.findtext("usecase") or "0").strip() == "1"
        typos = next((int(t[len(TYPOS_TAG) :]) for t in tags if t in _TYPO_TAGS), 0)
        draft.short = ShortAnswers(tuple(accepted), case, typos, merged(mistakes))
        best = draft.short.best.text
    else:
        draft.kind = "numerical"
        draft.numeric = NumericAnswers(tuple(values), *_units(question), mistakes=merged(mistakes))
        best = draft.numeric.answer_text()
    _difficulty(draft, tags)
    draft.mistakes = general + _general_notes(question)
    draft.options, draft.answers = [best], ["A"]  # what `_solution` names without feedback
    _solution(draft, question, _join(*praise) or "")
    draft.options, draft.answers = [], []
    _hint(draft, question, report)
    if n := question.images:
        report.append(question.note(f"{n} image(s) left out; the text says [image: …]"))
    draft.comment = "\n".join(question.comments) or None
    return draft


_TYPO_TAGS = frozenset(f"{TYPOS_TAG}{n}" for n in (1, 2))


def _units(question: _Question) -> tuple[tuple[Unit, ...], Fraction]:
    """Moodle's units, the first the answers' own (multiplier 1), and the unit penalty in
    percent when units are graded (`unitgradingtype` 1 or 2: we take it of the answer)."""
    units: list[Unit] = []
    for unit in question.element.findall("units/unit"):
        name = (unit.findtext("unit_name") or "").strip()
        multiplier = number((unit.findtext("multiplier") or "1").strip())
        if not name or not multiplier or multiplier <= 0:
            raise question.out(f"the unit {name!r} has no usable multiplier")
        units.append(Unit(name, multiplier))
    if units and units[0].multiplier != 1:
        first = units[0].multiplier
        units = [Unit(u.name, u.multiplier / first) for u in units]
    graded = (question.element.findtext("unitgradingtype") or "0").strip() in ("1", "2")
    penalty = number((question.element.findtext("unitpenalty") or "0").strip()) or Fraction(0)
    return tuple(units), (min(penalty * 100, FULL_CREDIT) if graded and units else Fraction(0))


def _true_false(question: _Question) -> list[_Answer]:
    answers = (_answer(question, element) for element in question.element.findall("answer"))
    by_text = {answer.text.casefold(): answer for answer in answers}
    if set(by_text) != {"true", "false"}:
        raise question.out("a true/false question needs one 'true' and one 'false' answer")
    return [
        _Answer(n, by_text[n.lower()].fraction, by_text[n.lower()].feedback) for n in TRUE_FALSE
    ]


def _right_option(question: _Question, answers: list[_Answer], report: list[ReportLine]) -> int:
    if len(answers) < 2:
        raise question.out("it has fewer than two answers")
    if len(answers) > len(OPTION_LABELS):
        raise question.out(f"it has {len(answers)} answers (at most {len(OPTION_LABELS)})")
    right = [i for i, a in enumerate(answers) if a.fraction >= _RIGHT]
    if not right:
        raise question.out('no answer is marked right (fraction="100")')
    if len(right) > 1:
        labels = ", ".join(OPTION_LABELS[i] for i in right)
        raise question.out(f"answers {labels} are all marked right; a choice task has one")
    for i, answer in enumerate(answers):
        if 0 < answer.fraction < _RIGHT:
            report.append(
                question.note(
                    f"option {OPTION_LABELS[i]} gave {answer.fraction:g}% credit; "
                    "it now counts as wrong"
                )
            )
    return right[0]


def _difficulty(draft: Draft, tags: list[str]) -> None:
    for tag in tags:
        level = tag.removeprefix(DIFFICULTY_TAG)
        if tag.startswith(DIFFICULTY_TAG) and level in drafts.DIFFICULTIES:
            draft.difficulty = level


_FENCED = re.compile(
    r"\A(?P<instruction>.+?)\n\n```(?P<language>[^`\n]*)\n(?P<code>.*)\n```\Z", re.S
)


def _as_fill(draft: Draft, question: _Question) -> None:
    """An exported one-blank fill task: the instruction, then the code in a fence."""
    question_text = draft.question or ""
    # Without a closing fence at the end, the lazy search would be quadratic.
    match = _FENCED.match(question_text) if question_text.endswith("\n```") else None
    if not match or BLANK_PATTERN.findall(match["code"]) != ["1"]:
        question.comments.append(
            f"Tagged {FILL_TAG}, but the question is not an instruction followed by code with "
            "one blank [1]: imported as a choice task."
        )
        return
    draft.kind = "fill"
    draft.question = None
    draft.instruction = match["instruction"].strip()
    draft.code = match["code"]
    info = match["language"].split()
    draft.language = info[0] if info else None  # the first word, as in Markdown


def _notes(question: _Question, answers: list[_Answer], right: int) -> list[Note]:
    """Each wrong option's feedback tied to it, then `<incorrectfeedback>` as general notes."""
    notes = drafts.tied_notes(
        [
            (OPTION_LABELS[i], drafts.note_items(answer.feedback))
            for i, answer in enumerate(answers)
            if i != right and answer.feedback
        ]
    )
    return notes + _general_notes(question)


def _general_notes(question: _Question) -> list[Note]:
    """`<incorrectfeedback>`, unless it is Moodle's default, as the task's general notes."""
    general = question.field("incorrectfeedback")
    if general and general.casefold() not in _DEFAULT_INCORRECT:
        return [Note(text) for text in drafts.note_items(general)]
    return []


_SOLUTION_MARK = re.compile(
    r"^\*\*(?:Step\s+\d+:\s*(?P<step>[^\n]+?)\*\*[ \t]*$|(?P<key>Final answer|Quick check):\*\*)",
    re.MULTILINE | re.IGNORECASE,
)


def _solution(
    draft: Draft, question: _Question, right_feedback: str, *, answer: str | None = None
) -> None:
    """The solution from `<generalfeedback>` as `_solution_markdown` marks it (the rest, and the
    right option's feedback, explain); only the answer when the source gives neither."""
    text = question.field("generalfeedback")
    marks = list(_SOLUTION_MARK.finditer(text))
    explanation = text[: marks[0].start()].strip() if marks else text
    finals: list[str] = []  # joined once: joining at each mark was quadratic
    checks: list[str] = []
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        body = text[mark.end() : end].strip()
        if mark["step"]:
            draft.steps.append(Step(mark["step"].strip(), body))
        elif mark["key"].casefold() == "final answer":
            finals.append(body)
        else:
            checks.append(body)
    draft.final_answer = _join(draft.final_answer, *finals)
    draft.quick_check = _join(draft.quick_check, *checks)
    draft.explanation = _join(right_feedback, explanation)
    if not (draft.steps or draft.final_answer or draft.quick_check or draft.explanation):
        draft.final_answer = answer or draft.options[OPTION_LABELS.index(draft.answers[0])]
        question.comments.append(_NO_FEEDBACK_COMMENT)


def _join(*texts: str | None) -> str | None:
    return "\n\n".join(t for t in texts if t) or None


def _hint(draft: Draft, question: _Question, report: list[ReportLine]) -> None:
    """Moodle's hints, in order, are the task's hint ladder; none, no hint."""
    hints = [h for h in (question.text(e) for e in question.element.findall("hint")) if h]
    if len(hints) > MAX_HINTS:
        kept = f"only the first {MAX_HINTS} of its {len(hints)} hints are kept"
        report.append(question.note(kept))
    draft.hints = hints[:MAX_HINTS]


def _convert(raw: str, fmt: str) -> str:
    """A text in one of Moodle's formats as Discord markdown (auto-format's newlines count)."""
    if fmt in ("markdown", "plain_text"):
        return raw.strip()
    if fmt == "moodle_auto_format":
        raw = raw.replace("\r\n", "\n").replace("\n", "<br>")
    return to_markdown(raw)


# Characters XML 1.0 cannot hold, not even as a character reference.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def cannot_export(task: Task) -> str | None:
    """Why `task` has no Moodle XML form our import reads back as it is, or None."""
    if task.kind is Kind.MATCHING and any(not n.general for n in task.mistakes):
        return "its notes on a stem's wrong answers have no Moodle XML form"
    for name, text in drafts.task_texts(task):
        found = _NOT_XML.search(text)
        if found:
            return f"its {name} holds U+{ord(found[0]):04X}, which XML 1.0 cannot carry"
    return None


def export(tasks: Sequence[Task], *, bank: str, skip: Mapping[str, str] | None = None) -> str:
    """`tasks` as Moodle XML; one it cannot carry, or `skip` names (id -> why), is a comment."""
    quiz = ET.Element("quiz")
    quiz.append(ET.Comment(_comment(_NOT_XML.sub("\ufffd", f"{_BANK_COMMENT}{bank}"))))
    topic: str | None = None
    for task in tasks:
        why = (skip or {}).get(task.id) or cannot_export(task)
        if why:
            quiz.append(ET.Comment(_comment(f"left out: {task.id}: {why}")))
            continue
        if task.topic != topic:
            topic = task.topic
            category = ET.SubElement(quiz, "question", type="category")
            ET.SubElement(ET.SubElement(category, "category"), "text").text = (
                "$course$/top/" + topic.replace("/", "//")
            )
        quiz.append(_question(task))
    ET.indent(quiz)
    # A raw carriage return would be read back as a line break (XML normalises line ends).
    body = ET.tostring(quiz, "unicode", short_empty_elements=False).replace("\r", "&#13;")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


def _comment(text: str) -> str:
    # "--" may not appear inside an XML comment.
    return " " + re.sub(r"-(?=-)", "- ", text) + " "


def _typed_question(task: Task) -> ET.Element:
    """A short task as `shortanswer`, a numerical one as `numerical`; known mistakes are
    answers worth 0% with their feedback."""
    kind = "shortanswer" if task.short else "numerical"
    question = ET.Element("question", type=kind)
    ET.SubElement(ET.SubElement(question, "name"), "text").text = task.id
    _text(question, "questiontext", task.prompt)
    _text(question, "generalfeedback", _solution_markdown(task.solution))
    if task.general_notes:
        _text(question, "incorrectfeedback", drafts.note_list(task.general_notes))

    def answer(fraction: Fraction, text: str, note: str = "", tolerance: str | None = None) -> None:
        element = ET.SubElement(
            question, "answer", fraction=drafts.percent_text(fraction), format="moodle_auto_format"
        )
        ET.SubElement(element, "text").text = text
        if tolerance is not None:
            ET.SubElement(element, "tolerance").text = tolerance
        _text(element, "feedback", note)

    tags = [DIFFICULTY_TAG + task.difficulty.value]
    if task.short is not None:
        ET.SubElement(question, "usecase").text = "1" if task.short.case_sensitive else "0"
        for a in task.short.accepted:
            answer(a.credit, a.text)
        for m in task.short.mistakes:
            for text in m.answers:
                answer(Fraction(0), text, m.note)
        if task.short.typos:
            tags.append(f"{TYPOS_TAG}{task.short.typos}")
    elif task.numeric is not None:
        for n in task.numeric.answers:
            answer(n.credit, shown(n.middle), tolerance=shown((n.high - n.low) / 2))
        for m in task.numeric.mistakes:
            for written in m.answers:
                spec = parse_spec(written)
                if spec is not None:
                    half = shown((spec.high - spec.low) / 2)
                    answer(Fraction(0), shown(spec.middle), m.note, tolerance=half)
        penalty = task.numeric.unit_penalty
        ET.SubElement(question, "unitgradingtype").text = "1" if penalty else "0"
        ET.SubElement(question, "unitpenalty").text = str(float(penalty / 100))
        ET.SubElement(question, "showunits").text = "3"
        ET.SubElement(question, "unitsleft").text = "0"
        if task.numeric.units:
            units = ET.SubElement(question, "units")
            for u in task.numeric.units:
                unit = ET.SubElement(units, "unit")
                ET.SubElement(unit, "multiplier").text = shown(u.multiplier)
                ET.SubElement(unit, "unit_name").text = u.name
    for hint in task.hints:
        _text(question, "hint", hint)
    tags_element = ET.SubElement(question, "tags")
    for name in tags:
        ET.SubElement(ET.SubElement(tags_element, "tag"), "text").text = name
    return question


def _matching_question(task: Task) -> ET.Element:
    """A matching task as `matching`: a `<subquestion>` per stem, one with no stem per
    distractor; the answers are plain text, as Moodle keeps them."""
    question = ET.Element("question", type="matching")
    ET.SubElement(ET.SubElement(question, "name"), "text").text = task.id
    _text(question, "questiontext", task.prompt)
    _text(question, "generalfeedback", _solution_markdown(task.solution))
    ET.SubElement(question, "shuffleanswers").text = "true"
    if task.general_notes:
        _text(question, "incorrectfeedback", drafts.note_list(task.general_notes))
    paired = [task.answer_text(n) for n in range(1, task.blanks + 1)]
    extra = [o.text for o in task.options if o.text not in paired]
    for stem, answer in [*zip(task.stems, paired, strict=True), *(("", a) for a in extra)]:
        sub = ET.SubElement(question, "subquestion", format="markdown")
        ET.SubElement(sub, "text").text = stem
        ET.SubElement(ET.SubElement(sub, "answer"), "text").text = answer
    for hint in task.hints:
        _text(question, "hint", hint)
    tags = ET.SubElement(question, "tags")
    ET.SubElement(ET.SubElement(tags, "tag"), "text").text = DIFFICULTY_TAG + task.difficulty.value
    return question


def _cloze_question(task: Task) -> ET.Element:
    """A cloze task as Moodle's `cloze`, its parts in the text; a fill task with several
    blanks too, a MULTICHOICE part per blank (tagged, so it comes back as a fill task)."""
    question = ET.Element("question", type="cloze")
    ET.SubElement(ET.SubElement(question, "name"), "text").text = task.id
    if task.kind is Kind.CLOZE:
        text = cloze_syntax.write(task.prompt, task.parts)
    else:
        code = BLANK_PATTERN.sub(
            lambda m: cloze_syntax.write_part(_blank_part(task, int(m[1]))), task.prompt
        )
        text = f"{task.instruction}\n\n```{task.language}\n{code}\n```"
    _text(question, "questiontext", text)
    _text(question, "generalfeedback", _solution_markdown(task.solution))
    if task.general_notes:
        _text(question, "incorrectfeedback", drafts.note_list(task.general_notes))
    for hint in task.hints:
        _text(question, "hint", hint)
    tags = ET.SubElement(question, "tags")
    names = [DIFFICULTY_TAG + task.difficulty.value]
    names += [FILL_TAG] if task.kind is Kind.FILL else []
    for name in names:
        ET.SubElement(ET.SubElement(tags, "tag"), "text").text = name
    return question


def _blank_part(task: Task, blank: int) -> ClozePart:
    """A fill task's blank as a MULTICHOICE part: every option, each with its notes."""
    right = task.answers[blank - 1]
    answers = tuple(
        PartAnswer(
            o.text,
            FULL_CREDIT if o.label == right else Fraction(0),
            drafts.note_list(task.notes_for(o.label)) if task.notes_for(o.label) else "",
        )
        for o in task.options
    )
    return ClozePart(PartKind.CHOICE, answers)


def _question(task: Task) -> ET.Element:
    if task.kind is Kind.CLOZE or (task.kind is Kind.FILL and task.blanks > 1):
        return _cloze_question(task)
    if task.typed:
        return _typed_question(task)
    if task.kind is Kind.MATCHING:
        return _matching_question(task)
    question = ET.Element("question", type="multichoice")
    ET.SubElement(ET.SubElement(question, "name"), "text").text = task.id
    if task.kind in (Kind.CHOICE, Kind.MULTI):
        text = task.prompt
    else:
        text = f"{task.instruction}\n\n```{task.language}\n{task.prompt}\n```"
    _text(question, "questiontext", text)
    _text(question, "generalfeedback", _solution_markdown(task.solution))
    several = task.kind is Kind.MULTI and not task.single
    ET.SubElement(question, "single").text = "false" if several else "true"
    ET.SubElement(question, "shuffleanswers").text = "false"
    ET.SubElement(question, "answernumbering").text = "ABCD"
    if task.general_notes:
        _text(question, "incorrectfeedback", drafts.note_list(task.general_notes))
    for option in task.options:
        if task.kind is Kind.MULTI:
            fraction = drafts.percent_text(task.weight(option.label))
        else:
            fraction = "100" if option.label == task.answers[0] else "0"
        answer = ET.SubElement(question, "answer", fraction=fraction, format="markdown")
        ET.SubElement(answer, "text").text = option.text
        notes = task.notes_for(option.label)
        _text(answer, "feedback", drafts.note_list(notes) if notes else "")
    for hint in task.hints:
        _text(question, "hint", hint)
    tags = ET.SubElement(question, "tags")
    names = [DIFFICULTY_TAG + task.difficulty.value]
    if task.kind is Kind.FILL:
        names.append(FILL_TAG)
    if task.show_count:
        names.append(SHOW_COUNT_TAG)
    for name in names:
        ET.SubElement(ET.SubElement(tags, "tag"), "text").text = name
    return question


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(ET.SubElement(parent, tag, format="markdown"), "text").text = text


def _solution_markdown(solution: Solution) -> str:
    """The solution as one text, each part marked for `_solution` (the explanation first)."""
    parts = [solution.explanation] if solution.explanation else []
    parts += [f"**Step {n}: {s.title}**\n{s.text}" for n, s in enumerate(solution.steps, 1)]
    if solution.final_answer:
        parts.append(f"**Final answer:** {solution.final_answer}")
    if solution.quick_check:
        parts.append(f"**Quick check:** {solution.quick_check}")
    return "\n\n".join(parts)
