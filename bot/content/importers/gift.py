"""GIFT, Moodle's text format for quiz questions: import into drafts, export our tasks.

One module for the whole format, longer than most: its grammar (escapes, markers, answer
blocks) and its writer must agree character for character, which is easier to keep true when
they sit together.

Written on the format's public documentation (docs.moodle.org, "GIFT format");
content/README.md ("Importing GIFT") tells authors what becomes what. In short:

- Questions are separated by blank lines and may span lines; lines starting with `//` are
  comments (a `//` later in a line is text, so `a // b` in code survives). Three comments are
  read back because our export writes them: `// hint: …`, `// difficulty: easy|medium|hard`
  and `// note: …` (a general mistake note) in a question's block. Without them the hint is a
  neutral one (GIFT has none; the task's YAML comment says so) and the difficulty "medium".
- `$CATEGORY: $course$/top/Sub` sets the topic of the questions after it ("Sub", the last part;
  `//` is a `/` inside a name). A `topic` given to `parse` wins over every category.
- `::title::` becomes the id: a title that already is a valid id is kept as it is, any other is
  slugged, and without a title the question text is; ids are then made unique in the bank.
- `[markdown]`, `[html]`, `[plain]`, `[moodle]` (the default) give a text's format; answers and
  feedback take the question's unless they carry their own. Markdown is kept, HTML converted by
  `html_text` (never shown as tags), plain and Moodle text escaped so Discord shows it as
  written. Code (a fill task's template and options) is taken as plain text.
- `\\~ \\= \\# \\{ \\} \\: \\\\` are the character itself, `\\n` a line break.
- Multiple choice with one `=` is a choice task: each wrong answer's `#feedback` becomes a
  mistake note tied to it (one note per distinct text, tied to every option that gives it); the
  right answer's feedback and the `####` general feedback make the solution. True/false is a
  choice task with the options True and False; in `{FALSE#wrong#right}` the first feedback is
  tied to the wrong option and the second joins the solution. Missing word (the answer block
  with text after it) is a fill task with one blank: see `_split_missing_word`. Every other
  kind is left out with a report line.

Export writes the reverse: a choice task as `::id:: [markdown]question {=right ~wrong#note …
####solution}` (options True and False as a true/false question), a fill task with one blank as
a missing-word question whose code is a fenced block around the answer block, and any other
fill task as a `// left out:` comment line. The solution is written in the bot's layout
("**Step 1: …**", "**Final answer:** …", "**Quick check:** …", then the explanation) and read
back into those parts, so import(export(tasks)) gives every field back (see `export`), a fill
task's `language` too (the code fence's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Final

from bot.content.importers import html_text
from bot.content.importers.drafts import (
    DIFFICULTIES,
    NEUTRAL_HINT,
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
from bot.content.schema import ID_PATTERN, MAX_ID_LENGTH
from bot.quiz.tasks import OPTION_LABELS, Kind, Task

DEFAULT_FORMAT: Final = "moodle"
TRUE_FALSE: Final = ("True", "False")
FILL_HINT: Final = "Read the text around the blank and try each option in it."
FILL_INSTRUCTION: Final = "Choose what goes in the blank [1]."
NEUTRAL_HINT_COMMENT: Final = (
    "GIFT has no hints: this one is a neutral placeholder; write a better one."
)
NEUTRAL_INSTRUCTION_COMMENT: Final = (
    "No text came before the blank's line: the instruction is a neutral placeholder."
)
LITERAL_INDEX_COMMENT: Final = "A literal index such as x[0] in the code is written x[ 0 ] here."
BLANK: Final = "\ue000"
"""Stands for the answer block while a missing-word text is converted."""
BLANK_LINE: Final = "_____"
"""Where the answer block was, in a true/false statement with text after the block."""

_SPECIAL: Final = "~=#{}:\\"
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPE = re.compile(r"([\\~=#{}:])")
_FORMAT = re.compile(r"\s*\[(markdown|html|plain|moodle)\]", re.IGNORECASE)
_COMMENT_META = re.compile(r"//\s*(hint|difficulty|note)\s*:\s?(.*)", re.IGNORECASE)
_CATEGORY = re.compile(r"\s*\$CATEGORY:", re.IGNORECASE)
_WEIGHT = re.compile(r"\s*%(-?\d+(?:\.\d+)?)%")
_FENCE = re.compile(r"\s*```")
_LITERAL_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class _Token:
    """A token of the syntax, found only where it is not escaped."""

    text: str
    pattern: re.Pattern[str]
    """Matches an escape pair (group 1 unset) or the token itself (group 1 set)."""


def _token(text: str) -> _Token:
    return _Token(text, re.compile(r"\\.|(" + re.escape(text) + ")", re.DOTALL))


_OPEN = _token("{")
_CLOSE = _token("}")
_TITLE = _token("::")
_GENERAL = _token("####")
_HASH = _token("#")
_ARROW = _token("->")
_ANSWER_MARK = re.compile(r"\\.|([=~])", re.DOTALL)


def _find(token: _Token, text: str, start: int = 0) -> int:
    """Where the first unescaped `token` is in `text` from `start`, or -1."""
    if "\\" not in text:
        return text.find(token.text, start)
    for match in token.pattern.finditer(text, start):
        if match.group(1):
            return match.start()
    return -1


def _split(token: _Token, text: str, limit: int = -1) -> list[str]:
    """`text` split at unescaped `token`s (at most `limit` splits; -1: all)."""
    if "\\" not in text:
        return text.split(token.text, limit)
    parts: list[str] = []
    start = 0
    for match in token.pattern.finditer(text):
        if match.group(1) and (limit < 0 or len(parts) < limit):
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


def unescape(text: str) -> str:
    r"""GIFT's escapes: `\~ \= \# \{ \} \: \\` are the character, `\n` a line break; any other
    backslash is kept as written (LaTeX, regular expressions, Markdown escapes)."""
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        char = match.group(1)
        if char == "n":
            return "\n"
        return char if char in _SPECIAL else match.group(0)

    return _UNESCAPE.sub(one, text)


def escape(text: str) -> str:
    r"""`text` with every GIFT special character escaped (`\` too). Line breaks are kept:
    `protect_lines` makes them safe once the whole question is assembled."""
    return _ESCAPE.sub(r"\\\1", text)


def protect_lines(question: str) -> str:
    r"""A whole question safe as one GIFT block: a line break is written `\n` where a real one
    would end the question (before a blank line) or start a comment (before a line starting
    with `//`)."""
    lines = question.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        stripped = line.strip()
        out.append(("\\n" if not stripped or stripped.startswith("//") else "\n") + line)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Reading the file: blank-line-separated blocks
# ---------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Block:
    """One block: its lines without the comment lines, their line numbers, and the `// hint:`,
    `// difficulty:` and `// note:` comments found in it (each key: its values in order)."""

    lines: list[str]
    numbers: list[int]
    meta: dict[str, list[str]] = field(default_factory=dict)

    @property
    def line(self) -> int:
        return self.numbers[0]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _blocks(source: str) -> Iterator[_Block]:
    block = _Block([], [])
    for number, line in enumerate(source.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            if block.lines:
                yield block
            block = _Block([], [])
        elif stripped.startswith("//"):
            found = _COMMENT_META.fullmatch(stripped)
            if found:
                key, value = found.group(1).lower(), unescape(found.group(2)).strip()
                block.meta.setdefault(key, []).append(value)
        else:
            block.lines.append(line)
            block.numbers.append(number)
    if block.lines:
        yield block


# ---------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------


def _format_of(text: str, default: str) -> tuple[str, str]:
    """The text's own `[format]` marker (or `default`) and the text after it."""
    match = _FORMAT.match(text)
    if match:
        return match.group(1).lower(), text[match.end() :]
    return default, text


def _convert(text: str, fmt: str, *, markup: bool) -> str:
    """Unescaped text in format `fmt` as Discord Markdown (`markup`) or as plain text."""
    if fmt == "markdown":
        return text.strip()
    if fmt == "plain":
        return (html_text.escape_markdown(text) if markup else text).strip()
    newlines = fmt == "moodle"  # Moodle's auto-format: line breaks count as typed
    if markup:
        return html_text.to_markdown(text, newlines=newlines)
    return html_text.to_text(text, newlines=newlines)


def _part(raw: str, fmt: str, *, markup: bool = True) -> str:
    """An answer or a feedback (still escaped), in its own format if it names one."""
    fmt, raw = _format_of(raw, fmt)
    return _convert(unescape(raw), fmt, markup=markup)


# ---------------------------------------------------------------------------------------------
# One question
# ---------------------------------------------------------------------------------------------


class _LeftOut(Exception):
    """The question is not imported; `report` says why."""

    def __init__(self, report: ReportLine) -> None:
        super().__init__(report.message)
        self.report = report


def _malformed(line: int, what: str, *, at: int | None = None) -> _LeftOut:
    """The question at `line` is left out for `what`; `at` is the line at fault, when the
    question spans lines and it is another one."""
    if at is None or at == line:
        return _LeftOut(ReportLine(line, f"left out: the question has {what}"))
    return _LeftOut(ReportLine(at, f"left out: the question at line {line} has {what}"))


@dataclass(slots=True)
class _Question:
    """A question cut at its answer block; every text still escaped."""

    line: int
    title: str | None
    fmt: str
    before: str
    inside: str
    after: str
    topic: str | None


@dataclass(slots=True)
class _Answer:
    right: bool
    text: str
    feedback: str | None
    weight: float | None


@dataclass(slots=True)
class _Parts:
    """What a question gives a draft, in our words."""

    options: list[str]
    answer: int
    notes: list[tuple[int, str]]
    """(option index, feedback) for each wrong option with feedback."""
    right_feedback: str
    general: str


def _question(block: _Block, topic: str | None) -> _Question:
    """The question cut at its one answer block. A brace the author did not escape is never
    guessed at: a `}` outside the block or a `{` inside it leaves the question out, naming the
    line, since reading past it would garble the options or the text."""
    text = block.text
    title: str | None = None
    stripped = text.lstrip()
    base = 0  # where `text` starts in the block, to name the line of what is found in it
    if stripped.startswith("::"):
        offset = len(text) - len(stripped) + 2
        end = _find(_TITLE, text, offset)
        if end < 0:
            raise _malformed(block.line, "a title '::…' that is never closed")
        title = unescape(text[offset:end]).strip()
        text = text[end + 2 :]
        base = end + 2
    fmt, rest = _format_of(text, DEFAULT_FORMAT)
    base += len(text) - len(rest)
    text = rest

    def line_at(index: int) -> int:
        return block.numbers[block.text.count("\n", 0, base + index)]

    start = _find(_OPEN, text)
    stray = _find(_CLOSE, text[:start] if start >= 0 else text)
    if stray >= 0:
        raise _malformed(block.line, _STRAY_CLOSE, at=line_at(stray))
    if start < 0:
        raise _LeftOut(left_out(block.line, "description"))
    end = _find(_CLOSE, text, start + 1)
    nested = _find(_OPEN, text[:end] if end >= 0 else text, start + 1)
    if nested >= 0:
        opens = line_at(start)
        where = "" if opens == line_at(nested) else f" (the block opens at line {opens})"
        what = f"a '{{' inside its answer block{where}; write \\{{ for a brace in an answer"
        raise _malformed(block.line, what, at=line_at(nested))
    if end < 0:
        raise _malformed(block.line, "an answer block '{' that is never closed", at=line_at(start))
    after = text[end + 1 :]
    second = _find(_OPEN, after)
    if second >= 0:
        raise _malformed(
            block.line,
            "more than one answer block '{…}' (a blank line ends a question)",
            at=line_at(end + 1 + second),
        )
    stray = _find(_CLOSE, after)
    if stray >= 0:
        raise _malformed(block.line, _STRAY_CLOSE, at=line_at(end + 1 + stray))
    return _Question(block.line, title, fmt, text[:start], text[start + 1 : end], after, topic)


_STRAY_CLOSE: Final = "a '}' that closes no answer block; write \\} for a brace in the text"


def _answers(raw: str, line: int) -> list[_Answer]:
    marks = [m for m in _ANSWER_MARK.finditer(raw) if m.group(1)]
    if not marks:
        raise _malformed(line, "an answer block with no '=' or '~' answer")
    if raw[: marks[0].start()].strip():
        raise _malformed(line, "text before the first '=' or '~' in its answer block")
    answers = []
    for i, mark in enumerate(marks):
        body = raw[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else None]
        weight = None
        found = _WEIGHT.match(body)
        if found:
            weight = float(found.group(1))
            body = body[found.end() :]
        text, *feedback = _split(_HASH, body, 1)
        right = mark.group(1) == "="
        answers.append(_Answer(right, text, feedback[0] if feedback else None, weight))
    return answers


def _kind_left_out(answers: list[_Answer]) -> str | None:
    """The kind of a question we leave out, or None for multiple choice with one right answer."""
    wrong = [a for a in answers if not a.right]
    if not wrong:
        if all(_find(_ARROW, a.text) >= 0 for a in answers):
            return "matching"
        return "short answer"
    if any(a.weight is not None and a.weight > 0 for a in wrong):
        return "multiple-answer"
    if sum(a.right for a in answers) > 1:
        return "multiple-answer"
    return None


def _true_false(fmt: str, inside: str, general: str) -> _Parts | None:
    value, *feedback = _split(_HASH, inside)
    word = value.strip().upper()
    if word not in ("T", "TRUE", "F", "FALSE"):
        return None
    right = 0 if word.startswith("T") else 1
    wrong_feedback = _part(feedback[0], fmt) if feedback else ""
    right_feedback = _part(feedback[1], fmt) if len(feedback) > 1 else ""
    notes = [(1 - right, wrong_feedback)] if wrong_feedback else []
    return _Parts(list(TRUE_FALSE), right, notes, right_feedback, general)


def _choice_parts(fmt: str, answers: list[_Answer], general: str, *, markup: bool) -> _Parts:
    options = [_part(a.text, fmt, markup=markup) for a in answers]
    right = next(i for i, a in enumerate(answers) if a.right)
    notes = []
    for i, answer in enumerate(answers):
        text = _part(answer.feedback, fmt) if answer.feedback else ""
        if text and not answer.right:
            notes.append((i, text))
    feedback = answers[right].feedback
    return _Parts(options, right, notes, _part(feedback, fmt) if feedback else "", general)


def _draft(q: _Question, meta: dict[str, list[str]]) -> Draft:
    inside, *rest = _split(_GENERAL, q.inside, 1)
    general = _part(rest[0], q.fmt) if rest else ""
    if not inside.strip():
        raise _LeftOut(left_out(q.line, "essay"))
    if inside.lstrip().startswith("#"):
        raise _LeftOut(left_out(q.line, "numerical"))
    notes = [n for n in meta.get("note", []) if n]
    missing_word = bool(q.after.strip())
    parts = _true_false(q.fmt, inside, general)
    if parts is not None:
        draft = _choice_draft(q, parts, _question_text(q, missing_word), notes)
    else:
        answers = _answers(inside, q.line)
        kind = _kind_left_out(answers)
        if kind:
            raise _LeftOut(left_out(q.line, kind))
        if not any(a.right for a in answers):
            raise _malformed(q.line, "no right answer ('=')")
        if len(answers) > len(OPTION_LABELS):
            raise _malformed(q.line, f"{len(answers)} answers (at most {len(OPTION_LABELS)})")
        if missing_word:
            parts = _choice_parts(q.fmt, answers, general, markup=False)
            draft = _fill_draft(q, parts, notes)
        else:
            parts = _choice_parts(q.fmt, answers, general, markup=True)
            draft = _choice_draft(q, parts, _question_text(q, False), notes)
    _apply_meta(draft, meta)
    return draft


def _question_text(q: _Question, missing_word: bool) -> str:
    if not missing_word:
        return _convert(unescape(q.before), q.fmt, markup=True)
    text = _convert(unescape(q.before + BLANK + q.after), q.fmt, markup=True)
    return text.replace(BLANK, BLANK_LINE)


def _notes(parts: _Parts, general_notes: list[str]) -> list[Note]:
    """The mistake notes: each wrong option's feedback tied to it, one note per distinct text
    tied to every option that gives it, then the general notes (`// note:` comments).

    A feedback that is a `- ` list (as our export writes two notes or more) is one note per
    item; a feedback that is exactly the general notes is the bot's fallback for an option
    without notes of its own (as our export writes it), not a tied note."""
    shown: list[tuple[str, list[str]]] = []
    for index, feedback in parts.notes:
        items = note_items(feedback)
        if general_notes and items == general_notes:
            continue
        shown.append((OPTION_LABELS[index], items))
    tied: dict[str, list[str]] = {}
    for text in merged_order([items for _, items in shown]):
        tied[text] = []
    for label, items in shown:
        for text in items:
            tied[text].append(label)
    tied_notes = [Note(text, tuple(labels)) for text, labels in tied.items()]
    return tied_notes + [Note(text) for text in general_notes]


def _choice_draft(q: _Question, parts: _Parts, question: str, general_notes: list[str]) -> Draft:
    draft = Draft(
        id=_id(q.title, question),
        kind="choice",
        options=parts.options,
        answers=[OPTION_LABELS[parts.answer]],
        question=question,
        topic=q.topic,
        hint=NEUTRAL_HINT,
        mistakes=_notes(parts, general_notes),
        source_line=q.line,
        comment=NEUTRAL_HINT_COMMENT,
    )
    _set_solution(draft, parts)
    return draft


def _fill_draft(q: _Question, parts: _Parts, general_notes: list[str]) -> Draft:
    instruction, code, language = _split_missing_word(q)
    comments = [NEUTRAL_HINT_COMMENT]
    task_id = _id(q.title, instruction or code)
    if not instruction:
        instruction = FILL_INSTRUCTION
        comments.append(NEUTRAL_INSTRUCTION_COMMENT)
    head, blank, tail = code.partition("[1]")
    if _LITERAL_INDEX.search(head) or _LITERAL_INDEX.search(tail):
        code = _protect_indexes(head) + blank + _protect_indexes(tail)
        comments.append(LITERAL_INDEX_COMMENT)
    draft = Draft(
        id=task_id,
        kind="fill",
        options=parts.options,
        answers=[OPTION_LABELS[parts.answer]],
        instruction=instruction,
        code=code,
        language=language,
        topic=q.topic,
        hint=FILL_HINT,
        mistakes=_notes(parts, general_notes),
        source_line=q.line,
        comment="\n".join(comments),
    )
    _set_solution(draft, parts)
    return draft


def _protect_indexes(code: str) -> str:
    """`x[0]` -> `x[ 0 ]`, which our check does not read as a blank."""
    return _LITERAL_INDEX.sub(r"[ \1 ]", code)


def _split_missing_word(q: _Question) -> tuple[str, str, str | None]:
    """(instruction, code, language) of a missing-word question; the instruction may be empty,
    the language is the code fence's (None without one).

    The code is the fenced block (```) that holds the answer block, without its fence lines, if
    there is one; else the lines from the answer block's line to the end. The instruction is
    the rest of the text. The code is plain text (with `[1]` where the answer block was), the
    instruction Markdown. `html_text` lays both conversions out in the same lines."""
    raw = unescape(q.before + BLANK + q.after)
    plain = _convert(raw, q.fmt, markup=False).split("\n")
    marked = _convert(raw, q.fmt, markup=True).split("\n")
    if len(marked) != len(plain):  # defensive: the two layouts should always match
        marked = plain
    at = next((i for i, line in enumerate(plain) if BLANK in line), None)
    if at is None:
        raise _malformed(q.line, "its answer block inside HTML that hides it (a comment, a tag)")
    fence: tuple[int, int] | None = None
    opened: int | None = None
    for i, line in enumerate(plain):
        if not _FENCE.match(line) or i == at:
            continue
        if opened is None:
            opened = i
        elif opened < at < i:
            fence = (opened, i)
            break
        else:
            opened = None
    language = None
    if fence:
        code = "\n".join(plain[fence[0] + 1 : fence[1]]).strip("\n").rstrip()
        around = ("\n".join(marked[: fence[0]]), "\n".join(marked[fence[1] + 1 :]))
        instruction = _join(*(part.strip() for part in around))
        info = plain[fence[0]].strip().removeprefix("```").split()
        language = info[0] if info else None  # the first word, as in Markdown
    else:
        code = "\n".join(plain[at:]).strip()
        instruction = "\n".join(marked[:at]).strip()
    return instruction, code.replace(BLANK, "[1]"), language


def _id(title: str | None, text: str) -> str:
    if title and ID_PATTERN.fullmatch(title) and len(title) <= MAX_ID_LENGTH:
        return title
    return slug(title or text)


def _apply_meta(draft: Draft, meta: dict[str, list[str]]) -> None:
    """The `// hint:` and `// difficulty:` comments of the question's block (the last wins)."""
    hint = meta.get("hint", [""])[-1]
    if hint:
        draft.hint = hint
        rest = [c for c in (draft.comment or "").split("\n") if c != NEUTRAL_HINT_COMMENT]
        draft.comment = "\n".join(rest) or None
    difficulty = meta.get("difficulty", [""])[-1].lower()
    if difficulty in DIFFICULTIES:
        draft.difficulty = difficulty


# ---------------------------------------------------------------------------------------------
# Solutions: the text the export writes, read back into its parts
# ---------------------------------------------------------------------------------------------

_FINAL: Final = "**Final answer:** "
_CHECK: Final = "**Quick check:** "
_EXPLAIN: Final = "**Explanation:** "
_MARKER = re.compile(
    r"(?:^|\n\n)(?:\*\*Step (\d+): (.+?)\*\*\n|"
    + "|".join(re.escape(m) for m in (_FINAL, _CHECK, _EXPLAIN))
    + ")"
)


def general_feedback(task: Task) -> str:
    """The task's solution as one Markdown text (GIFT's general feedback), laid out as the bot
    shows it; the explanation is labelled when something comes before it, so that reading it
    back (`_set_solution`) finds every part again."""
    solution = task.solution
    parts = [f"**Step {n}: {s.title}**\n{s.text}" for n, s in enumerate(solution.steps, start=1)]
    if solution.final_answer:
        parts.append(_FINAL + solution.final_answer)
    if solution.quick_check:
        parts.append(_CHECK + solution.quick_check)
    if solution.explanation:
        labelled = parts or _MARKER.match(solution.explanation)
        parts.append((_EXPLAIN if labelled else "") + solution.explanation)
    return "\n\n".join(parts)


def _set_solution(draft: Draft, parts: _Parts) -> None:
    """Steps, final answer, quick check and explanation from the general feedback (in the
    layout `general_feedback` writes; any other text is all explanation), with the right option's
    feedback before the explanation. Our format wants a solution: without any feedback, the
    final answer is what the bot would show anyway (the right option; `[1] = …` in a fill task)."""
    text = parts.general
    explanation = ""
    explained: list[str] = []  # joined once: joining at each part was quadratic
    if _MARKER.match(text):
        matches = list(_MARKER.finditer(text))
        for i, match in enumerate(matches):
            body = text[match.end() : matches[i + 1].start() if i + 1 < len(matches) else None]
            head = match.group(0).lstrip("\n")
            if match.group(1):
                draft.steps.append(Step(match.group(2), body))
            elif head == _FINAL and draft.final_answer is None:
                draft.final_answer = body
            elif head == _CHECK and draft.quick_check is None:
                draft.quick_check = body
            else:
                explained.append(body)
    else:
        explanation = text
    draft.explanation = _join(parts.right_feedback, explanation, *explained) or None
    if not (draft.steps or draft.final_answer or draft.quick_check or draft.explanation):
        right = parts.options[parts.answer]
        draft.final_answer = f"[1] = {right}" if draft.kind == "fill" else right


def _join(*texts: str) -> str:
    return "\n\n".join(t for t in texts if t)


# ---------------------------------------------------------------------------------------------
# The whole file
# ---------------------------------------------------------------------------------------------


def category_topic(path: str) -> str | None:
    """`$course$/top/Sub` -> "Sub": the last part of a category path (`//` is a `/` inside a
    name); None for a bare root (`$course$`, `$course$/top`)."""
    parts = [p.replace("\0", "/").strip() for p in path.replace("//", "\0").split("/")]
    parts = [p for p in parts if p]
    if not parts or parts[-1].startswith("$"):
        return None
    if parts[-1].casefold() == "top" and len(parts) <= 2:
        return None
    return parts[-1]


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """Every question of a GIFT file as a draft, or as a report line saying why not."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace(BLANK, "")  # our placeholder, never the author's text
    drafts: list[Draft] = []
    report: list[ReportLine] = []
    first_category: str | None = None
    category: str | None = None
    for block in _blocks(text):
        if _CATEGORY.match(block.lines[0]):
            category = category_topic(_CATEGORY.sub("", block.lines[0], count=1))
            first_category = first_category or category
            if len(block.lines) == 1:
                continue
            block = _Block(block.lines[1:], block.numbers[1:], block.meta)
        try:
            drafts.append(_draft(_question(block, topic or category), block.meta))
        except _LeftOut as left:
            report.append(left.report)
    unique_ids(drafts)
    bank = _bank_title(source)
    bank_topic = topic or first_category
    if not bank_topic:
        bank_topic = bank
        if drafts:
            message = f"no $CATEGORY: line, so every task's topic is {bank!r} (choose one)"
            report.append(ReportLine(None, message))
    for draft in drafts:
        if draft.topic == bank_topic:
            draft.topic = None
    return ImportResult(drafts, report, bank, bank_topic, source)


def _bank_title(source: str) -> str:
    name = PurePath(source).stem if source and source != "-" else ""
    return name or "GIFT import"


_LOOKS = re.compile(
    r"^[ \t]*(?:::.+?::|\$CATEGORY:)|(?<!\\)\{\s*(?:[=~]|T\s*\}|F\s*\}|TRUE\b|FALSE\b)",
    re.MULTILINE,
)


def looks_like(text: str) -> bool:
    """Whether `text` reads as GIFT: a `::title::` or `$CATEGORY:` line, or an answer block
    (`{=…`, `{~…`, `{T}`, `{FALSE…`). XML and HTML (a first character `<`) never do."""
    if text.lstrip("\ufeff \t\r\n").startswith("<"):
        return False
    return _LOOKS.search(text) is not None


# ---------------------------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------------------------


def cannot_export(task: Task) -> str | None:
    """Why `task` has no GIFT form that our import reads back as it is, or None. What the
    format cannot say is known here; `quizbot content export` also reads every export back
    and leaves out, with a line, any task that does not come back the same."""
    if task.kind is Kind.FILL and task.blanks != 1:
        return f"a fill task with {task.blanks} blanks has no GIFT form"
    for name, text in task_texts(task):
        for char, what in _NO_GIFT_FORM.items():
            if char in text:
                return f"its {name} holds {what}, which GIFT cannot carry"
    return None


_NO_GIFT_FORM: Final = {
    "\r": "a carriage return (U+000D; GIFT reads it as a line break)",
    BLANK: "U+E000 (the GIFT import's own placeholder)",
}


def export(tasks: Sequence[Task], *, bank: str, skip: Mapping[str, str] | None = None) -> str:
    """`tasks` as a GIFT file, every text `[markdown]` (our texts are Discord Markdown).

    - Each run of tasks with one topic starts with `$CATEGORY: $course$/top/<topic>`.
    - Above each question, `// hint:`, `// difficulty:` and one `// note:` per general mistake
      note: Moodle ignores comments, our import reads these back.
    - A choice task: `{=right ~wrong#feedback …####solution}`. A wrong option's feedback is
      what the bot shows whoever picks it: the notes tied to it, or else the general notes (two
      or more as a `- ` list). Options True and False (in that order) are written as a
      true/false question.
    - A fill task with one blank: a missing-word question, the instruction then the code in a
      fenced block with the answer block where the blank was.
    - A task GIFT cannot carry (`cannot_export`), or one `skip` names (id -> why), is a
      `// left out: <id>: <why>` comment line.
    """
    out = [f"// {_one_line(bank)}", "// Exported by quizbot; `quizbot content import` reads it."]
    topic: str | None = None
    for task in tasks:
        why = (skip or {}).get(task.id) or cannot_export(task)
        if why:
            out += ["", f"// left out: {task.id}: {' '.join(why.splitlines())}"]
            continue
        if task.topic != topic:
            topic = task.topic
            out += ["", f"$CATEGORY: $course$/top/{topic.replace('/', '//')}"]
        out += ["", *_export_task(task)]
    return "\n".join(out) + "\n"


def _one_line(text: str) -> str:
    """`text` escaped for a comment line, line breaks as `\\n`."""
    return escape(text).replace("\n", "\\n")


def _text(text: str) -> str:
    """An answer or feedback text: escaped, and marked `[markdown]` if it starts with something
    GIFT would read as a format marker or as a weight (`%50%`: `%` has no escape)."""
    shield = _FORMAT.match(text) or _WEIGHT.match(text)
    return ("[markdown]" if shield else "") + escape(text)


def _export_task(task: Task) -> list[str]:
    lines = [f"// hint: {_one_line(task.hint)}", f"// difficulty: {task.difficulty}"]
    lines += [f"// note: {_one_line(note)}" for note in task.general_notes]
    general = general_feedback(task)
    close = f"####{_text(general)}\n}}" if general else "}"
    head = f"::{task.id}:: [markdown]"
    if task.kind is Kind.CHOICE and tuple(o.text for o in task.options) == TRUE_FALSE:
        right = task.answers[0]
        feedback = _feedback(task, "B" if right == "A" else "A")
        word = "TRUE" if right == "A" else "FALSE"
        block = "{" + word + (f"#{_text(feedback)}" if feedback else "") + close
        return [*lines, protect_lines(f"{head}{escape(task.prompt)} {block}")]
    answers = []
    for option in task.options:
        if option.label in task.answers:
            answers.append(f"={_text(option.text)}")
        else:
            feedback = _feedback(task, option.label)
            answers.append(f"~{_text(option.text)}" + (f"#{_text(feedback)}" if feedback else ""))
    block = "{\n" + "\n".join(answers) + "\n" + close
    if task.kind is Kind.CHOICE:
        return [*lines, protect_lines(f"{head}{escape(task.prompt)} {block}")]
    before, _, after = task.prompt.partition("[1]")
    code = f"```{escape(task.language)}\n{escape(before)}{block}{escape(after)}\n```"
    return [*lines, protect_lines(f"{head}{escape(task.instruction or '')}\n{code}")]


def _feedback(task: Task, label: str) -> str:
    """A wrong option's feedback: what the bot shows whoever picks it (the notes tied to it, or
    else the general notes); two or more, or one that itself starts with `- `, as a `- ` list,
    continuation lines indented two spaces."""
    return note_list(task.notes_for(label) or task.general_notes)
