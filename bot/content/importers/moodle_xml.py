"""Moodle XML: a Moodle question bank's export, read into our drafts and written from our tasks.

Reader and writer of the format together (longer than most modules), so a round trip keeps every
field the format carries.

Import (`parse`), question by question:

- `multichoice` with one right answer (`<single>true</single>`) and `truefalse` become choice
  tasks. The answer with `fraction="100"` is the right option; each wrong option's `<feedback>`
  becomes the mistake note tied to it (the same text on several options: one note tied to all of
  them; a `- ` list, as our export writes several notes, one note per item);
  `<incorrectfeedback>` becomes the general note(s); `<generalfeedback>` and the right
  option's feedback become the solution; the first `<hint>` becomes the hint; `<name>` becomes
  the id.
- A `category` question sets the topic of the questions after it (`$course$/top/Sub` -> "Sub").
- Every other kind, and a question that cannot be a choice task, becomes a report line.
- The file is parsed with defusedxml: a file that declares entities (an entity bomb) or
  refers to an external one is refused with one report line, as is XML that is not well formed.

Export (`export`): choice tasks and one-blank fill tasks as `multichoice` questions with Markdown
texts, so `parse(export(tasks))` gives the tasks back (content/README.md, "Moodle XML", says
exactly what survives); fill tasks with several blanks are left out with an XML comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from xml.etree import ElementTree as ET

from defusedxml import DefusedXmlException, EntitiesForbidden
from defusedxml.ElementTree import DefusedXMLParser

from bot.content.importers.drafts import (
    DIFFICULTIES,
    NEUTRAL_HINT,
    NEUTRAL_HINT_COMMENT,
    Draft,
    ImportResult,
    Note,
    ReportLine,
    Step,
    left_out,
    merged_order,
    note_items,
    note_list,
    slug,
    task_texts,
    unique_ids,
)
from bot.content.importers.html_text import to_markdown
from bot.content.schema import ID_PATTERN, MAX_ID_LENGTH
from bot.quiz.tasks import BLANK_PATTERN, OPTION_LABELS, Kind, Solution, Task

FORMAT_NAME = "Moodle XML"

FILL_TAG = "quizbot-fill"
"""Marks an exported one-blank fill task, so that it comes back as a fill task."""
DIFFICULTY_TAG = "quizbot-difficulty-"
"""Followed by easy, medium or hard: Moodle has no difficulty of its own."""

_KIND_NAMES = {
    "shortanswer": "short answer",
    "numerical": "numerical",
    "matching": "matching",
    "essay": "essay",
    "description": "description",
    "multianswer": "embedded answers (Cloze)",
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
}
"""Moodle's question types we leave out, in the words of Moodle's question type names."""

_BANK_COMMENT = "quizbot bank: "
_BANK_TITLE = re.compile(r"<!-- quizbot bank: (?P<bank>[^\n]+?) -->")
"""An export of ours names its bank in a comment; the import takes the title back from it."""
_RIGHT = 100.0
_DEFAULT_INCORRECT = {"your answer is incorrect.", "your answer is incorrect"}
"""Moodle fills <incorrectfeedback> with this by default: not a note anyone wrote."""
_NO_FEEDBACK_COMMENT = "The source has no feedback: the solution gives only the answer."


def looks_like(text: str) -> bool:
    """Whether `text` is a Moodle XML file: a `<quiz>` root near the start."""
    return re.search(r"<quiz[\s>/]", text[:4096]) is not None


# --- import -------------------------------------------------------------------------------------


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """The questions of a Moodle XML file as drafts, plus a report of what was left out or
    changed. `topic`, when given, is every task's topic (the file's categories are ignored);
    otherwise each task gets its category's topic and the bank the first category's. The bank's
    title is the one an export of ours wrote in a comment, else the file's name."""
    name = PurePath(source).stem or "moodle-xml"
    title = _BANK_TITLE.search(text[:4096])
    bank = title["bank"] if title else name
    report: list[ReportLine] = []
    drafts: list[Draft] = []
    categories: list[str] = []
    try:
        root, lines = _read(text)
    except _Refused as refused:
        report.append(ReportLine(refused.line, refused.message))
        return ImportResult([], report, bank=bank, topic=topic or name, source=_source(source))
    category: str | None = None
    for question in root:
        line = lines.get(id(question))
        if question.tag != "question":
            report.append(ReportLine(line, _not_a_question(question)))
            continue
        if question.get("type") == "category":
            category = _category_topic(question.findtext("category/text") or "")
            if category:
                categories.append(category)
            continue
        try:
            draft = _draft(question, line, report)
        except _LeftOut as out:
            report.append(out.report)
            continue
        draft.topic = category
        drafts.append(draft)
    bank_topic = topic or (categories[0] if categories else name)
    for draft in drafts:
        if topic or draft.topic == bank_topic:
            draft.topic = None
    unique_ids(drafts)
    return ImportResult(drafts, report, bank=bank, topic=bank_topic, source=_source(source))


def _not_a_question(element: ET.Element) -> str:
    """The report line of an element under <quiz> that is not a <question>: whatever it holds is
    not read, and is not dropped unsaid."""
    inside = sum(1 for e in element.iter("question"))
    held = f" and the {inside} question(s) in it" if inside else ""
    return (
        f"left out: a <{element.tag}> element{held} (Moodle XML puts each <question> directly "
        "in <quiz>)"
    )


def _source(source: str) -> str:
    return f"{FORMAT_NAME}: {PurePath(source).name}"


class _Refused(Exception):
    """The whole file is refused: one report line says why."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


class _LeftOut(Exception):
    """One question is left out: its report line."""

    def __init__(self, report: ReportLine) -> None:
        super().__init__(report.message)
        self.report = report


class _LineBuilder(ET.TreeBuilder):
    """The element tree, plus the line each child of the root (each `<question>`) starts on,
    keyed by element id: the tree keeps every element alive, so the ids stay unique."""

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
        raise _Refused(parser.parser.CurrentLineNumber, _entities_refused(error)) from None
    except DefusedXmlException as error:
        line = parser.parser.CurrentLineNumber
        raise _Refused(line, f"refused: the file uses a forbidden XML feature ({error})") from None
    except ET.ParseError as error:
        line, column = error.position
        reason = re.sub(r": line \d+, column \d+$", "", str(error))
        raise _Refused(
            line, f"refused: not well-formed XML: {reason} (column {column + 1})"
        ) from None
    if root.tag != "quiz":
        raise _Refused(1, f"refused: not Moodle XML: the root element is <{root.tag}>, not <quiz>")
    return root, builder.lines


def _entities_refused(error: EntitiesForbidden) -> str:
    if error.sysid or error.pubid:
        target = error.sysid or error.pubid
        return (
            f"refused: the file declares an external entity ({error.name!r} -> {target}); "
            "Moodle XML never needs one"
        )
    return (
        f"refused: the file declares the XML entity {error.name!r}, as an entity bomb "
        '("billion laughs") does; Moodle XML never needs entities'
    )


def _category_topic(path: str) -> str | None:
    """The last part of a category path; '//' is a '/' inside a name. `$course$/top` alone
    (Moodle's root category) names no topic."""
    parts = [p.replace("\0", "/").strip() for p in path.replace("//", "\0").split("/")]
    parts = [p for p in parts if p]
    if parts and parts[0].startswith("$") and parts[0].endswith("$"):
        parts = parts[1:]
    if parts and parts[0].casefold() == "top":
        parts = parts[1:]
    return parts[-1] if parts else None


@dataclass(slots=True)
class _Answer:
    text: str
    fraction: float
    feedback: str


@dataclass(slots=True)
class _Question:
    """One `<question>` being read: its texts as Discord markdown, and what reading them found."""

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

    def out(self, why: str) -> _LeftOut:
        return _LeftOut(ReportLine(self.line, f"left out: question {self.name!r}: {why}"))

    def note(self, what: str) -> ReportLine:
        return ReportLine(self.line, f"question {self.name!r}: {what}")


def _draft(element: ET.Element, line: int | None, report: list[ReportLine]) -> Draft:
    kind = element.get("type", "")
    question = _Question(element, line, name=(element.findtext("name/text") or "").strip())
    if kind == "multichoice":
        if not _is_true(element.findtext("single", "true")):
            raise _LeftOut(left_out(line, "multiple-answer"))
        answers = [_answer(question, a) for a in element.findall("answer")]
    elif kind == "truefalse":
        answers = _true_false(question)
    else:
        raise _LeftOut(left_out(line, _KIND_NAMES.get(kind, kind or "untyped")))
    text = question.field("questiontext")
    right = _right_option(question, answers, report)
    draft = Draft(
        id=_task_id(question.name, text),
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
    if question.images:
        report.append(
            question.note(f"{question.images} image(s) left out; the text says [image: …]")
        )
    draft.comment = "\n".join(question.comments) or None
    return draft


def _is_true(value: str | None) -> bool:
    return (value or "").strip().casefold() in ("true", "1", "yes")


def _answer(question: _Question, element: ET.Element) -> _Answer:
    raw = element.get("fraction", "0")
    try:
        fraction = float(raw)
    except ValueError:
        raise question.out(f"the fraction {raw!r} of an answer is not a number") from None
    return _Answer(question.text(element), fraction, question.text(element.find("feedback")))


def _true_false(question: _Question) -> list[_Answer]:
    by_text = {}
    for element in question.element.findall("answer"):
        answer = _answer(question, element)
        by_text[answer.text.casefold()] = answer
    if set(by_text) != {"true", "false"}:
        raise question.out("a true/false question needs one 'true' and one 'false' answer")
    return [
        _Answer("True", by_text["true"].fraction, by_text["true"].feedback),
        _Answer("False", by_text["false"].fraction, by_text["false"].feedback),
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


def _task_id(name: str, question_text: str) -> str:
    """The question's name when it already is a valid task id (an export of ours), else a slug
    of the name, or of the question text when the question has no name."""
    if ID_PATTERN.fullmatch(name) and len(name) <= MAX_ID_LENGTH:
        return name
    return slug(name or question_text)


def _difficulty(draft: Draft, tags: list[str]) -> None:
    for tag in tags:
        level = tag.removeprefix(DIFFICULTY_TAG)
        if tag.startswith(DIFFICULTY_TAG) and level in DIFFICULTIES:
            draft.difficulty = level


_FENCED = re.compile(
    r"\A(?P<instruction>.+?)\n\n```(?P<language>[^`\n]*)\n(?P<code>.*)\n```\Z", re.S
)


def _as_fill(draft: Draft, question: _Question) -> None:
    """An exported one-blank fill task: the instruction, then the code in a fence."""
    question_text = draft.question or ""
    # Without the closing fence at the very end there is no match, and the lazy search for
    # one would try every "\n\n```" against the rest of the text (quadratic).
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
    """Each wrong option's feedback, tied to it (one note for a text several options share),
    then `<incorrectfeedback>` as general notes. A feedback that is a `- ` list (as our export
    writes two notes or more) is one note per item."""
    shown = [
        (OPTION_LABELS[i], note_items(answer.feedback))
        for i, answer in enumerate(answers)
        if i != right and answer.feedback
    ]
    tied: dict[str, list[str]] = {text: [] for text in merged_order([i for _, i in shown])}
    for label, items in shown:
        for text in items:
            tied[text].append(label)
    notes = [Note(text, tuple(labels)) for text, labels in tied.items()]
    general = question.field("incorrectfeedback")
    if general and general.casefold() not in _DEFAULT_INCORRECT:
        notes += [Note(text) for text in note_items(general)]
    return notes


_SOLUTION_MARK = re.compile(
    r"^\*\*(?:Step\s+\d+:\s*(?P<step>[^\n]+?)\*\*[ \t]*$|(?P<key>Final answer|Quick check):\*\*)",
    re.MULTILINE | re.IGNORECASE,
)


def _solution(draft: Draft, question: _Question, right_feedback: str) -> None:
    """The solution from `<generalfeedback>`: the parts `_solution_markdown` marks (steps,
    final answer, quick check) where marked, the rest (and the right option's feedback) as the
    explanation; only the answer when the source gives neither."""
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
        draft.final_answer = draft.options[OPTION_LABELS.index(draft.answers[0])]
        question.comments.append(_NO_FEEDBACK_COMMENT)


def _join(*texts: str | None) -> str | None:
    return "\n\n".join(t for t in texts if t) or None


def _hint(draft: Draft, question: _Question, report: list[ReportLine]) -> None:
    hints = [h for h in (question.text(e) for e in question.element.findall("hint")) if h]
    if len(hints) > 1:
        report.append(question.note(f"only the first of its {len(hints)} hints is kept"))
    if hints:
        draft.hint = hints[0]
    else:
        draft.hint = NEUTRAL_HINT
        question.comments.append(NEUTRAL_HINT_COMMENT)


# --- text formats -------------------------------------------------------------------------------


def _convert(raw: str, fmt: str) -> str:
    """A text in one of Moodle's formats as Discord markdown: Markdown and plain text stay as
    they are; HTML (also Moodle's auto-format, whose newlines are line breaks) is converted."""
    if fmt in ("markdown", "plain_text"):
        return raw.strip()
    if fmt == "moodle_auto_format":
        raw = raw.replace("\r\n", "\n").replace("\n", "<br>")
    return _html_to_markdown(raw)


@dataclass(slots=True)
class _Mark:
    """An open inline tag's Markdown marker, written at the tag's first visible text."""

    tag: str
    marker: str
    written: bool = False


def _html_to_markdown(html: str) -> str:
    return to_markdown(html)


# --- export -------------------------------------------------------------------------------------


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, not even as a character reference."""


def cannot_export(task: Task) -> str | None:
    """Why `task` has no Moodle XML form that our import reads back as it is, or None. What
    the format cannot say is known here; `quizbot content export` also reads every export back
    and leaves out, with a line, any task that does not come back the same."""
    if task.kind is Kind.FILL and task.blanks != 1:
        return (
            f"a fill task with {task.blanks} blanks has no Moodle XML form (a multichoice "
            "question has one answer)"
        )
    for name, text in task_texts(task):
        found = _NOT_XML.search(text)
        if found:
            return f"its {name} holds U+{ord(found[0]):04X}, which XML 1.0 cannot carry"
    return None


def export(tasks: Sequence[Task], *, bank: str, skip: Mapping[str, str] | None = None) -> str:
    """`tasks` as a Moodle XML file: a category per topic, then one `multichoice` question per
    choice task and per one-blank fill task; a task Moodle XML cannot carry (`cannot_export`),
    or one `skip` names (id -> why), is an XML comment saying why."""
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


def _question(task: Task) -> ET.Element:
    question = ET.Element("question", type="multichoice")
    ET.SubElement(ET.SubElement(question, "name"), "text").text = task.id
    if task.kind is Kind.CHOICE:
        text = task.prompt
    else:
        text = f"{task.instruction}\n\n```{task.language}\n{task.prompt}\n```"
    _text(question, "questiontext", text)
    _text(question, "generalfeedback", _solution_markdown(task.solution))
    ET.SubElement(question, "single").text = "true"
    ET.SubElement(question, "shuffleanswers").text = "false"
    ET.SubElement(question, "answernumbering").text = "ABCD"
    if task.general_notes:
        _text(question, "incorrectfeedback", note_list(task.general_notes))
    for option in task.options:
        fraction = "100" if option.label == task.answers[0] else "0"
        answer = ET.SubElement(question, "answer", fraction=fraction, format="markdown")
        ET.SubElement(answer, "text").text = option.text
        notes = task.notes_for(option.label)
        _text(answer, "feedback", note_list(notes) if notes else "")
    _text(question, "hint", task.hint)
    tags = ET.SubElement(question, "tags")
    names = [DIFFICULTY_TAG + task.difficulty.value]
    if task.kind is Kind.FILL:
        names.append(FILL_TAG)
    for name in names:
        ET.SubElement(ET.SubElement(tags, "tag"), "text").text = name
    return question


def _text(parent: ET.Element, tag: str, text: str) -> None:
    ET.SubElement(ET.SubElement(parent, tag, format="markdown"), "text").text = text


def _solution_markdown(solution: Solution) -> str:
    """The solution as one text, each part marked so that `_solution` reads it back: the
    explanation first (it has no mark), then "**Step n: title**", "**Final answer:** …",
    "**Quick check:** …"."""
    parts = [solution.explanation] if solution.explanation else []
    parts += [f"**Step {n}: {s.title}**\n{s.text}" for n, s in enumerate(solution.steps, 1)]
    if solution.final_answer:
        parts.append(f"**Final answer:** {solution.final_answer}")
    if solution.quick_check:
        parts.append(f"**Quick check:** {solution.quick_check}")
    return "\n\n".join(parts)
