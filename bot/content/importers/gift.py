"""GIFT, Moodle's text format: import into drafts, export our tasks. Grammar and writer sit
together because they must agree character for character (content/README.md, "Importing GIFT").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import PurePath
from typing import Final

from bot.content.importers import drafts, html_text
from bot.content.importers.drafts import Draft, ImportResult, LeftOut, Note, ReportLine, Step
from bot.quiz.numeric import NumAnswer, NumericAnswers, parse_spec
from bot.quiz.tasks import FULL_CREDIT, OPTION_LABELS, Kind, Task
from bot.quiz.typed import Accepted, ShortAnswers, TypedMistake, merged

DEFAULT_FORMAT: Final = "moodle"
TRUE_FALSE: Final = ("True", "False")
FILL_INSTRUCTION: Final = "Choose what goes in the blank [1]."
NEUTRAL_INSTRUCTION_COMMENT: Final = (
    "No text came before the blank's line: the instruction is a neutral placeholder."
)
LITERAL_INDEX_COMMENT: Final = "A literal index such as x[0] in the code is written x[ 0 ] here."
BLANK: Final = "\ue000"  # the answer block while a missing-word text is converted
BLANK_LINE: Final = "_____"  # the answer block in a true/false statement with text after it

_SPECIAL: Final = "~=#{}:\\"
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_ESCAPE = re.compile(r"([\\~=#{}:])")
_FORMAT = re.compile(r"\s*\[(markdown|html|plain|moodle)\]", re.IGNORECASE)
_COMMENT_META = re.compile(
    r"//\s*(hint(?:\s+[1-9])?|difficulty|note|show count|typos|case sensitive)\s*:\s?(.*)",
    re.IGNORECASE,
)
_CATEGORY = re.compile(r"\s*\$CATEGORY:", re.IGNORECASE)
_WEIGHT = re.compile(r"\s*%(-?\d+(?:\.\d+)?)%")
_FENCE = re.compile(r"\s*```")
_LITERAL_INDEX = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True, slots=True)
class _Token:
    """A token, found only unescaped: `pattern` matches an escape pair or (group 1) the token."""

    text: str
    pattern: re.Pattern[str]


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
    r"""GIFT's escapes undone; any other backslash is kept (LaTeX, regexes, Markdown)."""
    if "\\" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        char = match.group(1)
        return "\n" if char == "n" else (char if char in _SPECIAL else match.group(0))

    return _UNESCAPE.sub(one, text)


def escape(text: str) -> str:
    r"""Every GIFT special character escaped; line breaks are `protect_lines`' job."""
    return _ESCAPE.sub(r"\\\1", text)


def protect_lines(question: str) -> str:
    r"""A line break as `\n` where a real one would end the question or start a comment."""
    lines = question.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        stripped = line.strip()
        out.append(("\\n" if not stripped or stripped.startswith("//") else "\n") + line)
    return "".join(out)


@dataclass(slots=True)
class _Block:
    """A question's lines without comments, their numbers, and its `// key:` comments."""

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
                key = " ".join(found.group(1).lower().split())  # "hint  2" is "hint 2"
                value = unescape(found.group(2)).strip()
                block.meta.setdefault(key, []).append(value)
        else:
            block.lines.append(line)
            block.numbers.append(number)
    if block.lines:
        yield block


def _format_of(text: str, default: str) -> tuple[str, str]:
    """The text's own `[format]` marker (or `default`) and the text after it."""
    match = _FORMAT.match(text)
    return (match.group(1).lower(), text[match.end() :]) if match else (default, text)


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


def _malformed(line: int, what: str, *, at: int | None = None) -> LeftOut:
    """`at`: the line at fault, when the question spans lines and it is another one."""
    if at is None or at == line:
        return LeftOut(ReportLine(line, f"left out: the question has {what}"))
    return LeftOut(ReportLine(at, f"left out: the question at line {line} has {what}"))


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
    weight: Fraction | None


@dataclass(slots=True)
class _Parts:
    """What a question gives a draft, in our words."""

    options: list[str]
    answer: int
    notes: list[tuple[int, str]]
    right_feedback: str
    general: str


def _question(block: _Block, topic: str | None) -> _Question:
    """The question cut at its one answer block; a stray brace is never guessed at."""
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
        raise LeftOut(drafts.left_out(block.line, "description"))
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
            weight = Fraction(found.group(1))
            body = body[found.end() :]
        text, *feedback = _split(_HASH, body, 1)
        right = mark.group(1) == "="
        answers.append(_Answer(right, text, feedback[0] if feedback else None, weight))
    return answers


def _kind_left_out(answers: list[_Answer]) -> str | None:
    """The kind of a question we leave out; None for multiple choice with one right answer."""
    wrong = [a for a in answers if not a.right]
    if not wrong:
        return "matching" if all(_find(_ARROW, a.text) >= 0 for a in answers) else "short answer"
    # With an '=', Moodle takes one answer: a partly right '~' is a single-pick multi task
    # (`_partial_credit`), a second '=' alone credit we do not give (a block of '~%n%' alone is
    # a multi task: `_several_right`).
    if _partial_credit(answers):
        return None
    return _ONE_OF_SEVERAL if sum(a.right for a in answers) > 1 else None


_ONE_OF_SEVERAL: Final = "single-answer (several '=')"


def _partial_credit(answers: list[_Answer]) -> bool:
    """Moodle's single answer with partial credit: an '=' beside a '~%n%' of n above 0."""
    wrong = (a for a in answers if not a.right)
    return any(a.right for a in answers) and any(a.weight and a.weight > 0 for a in wrong)


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
        raise LeftOut(drafts.left_out(q.line, "essay"))
    notes = [n for n in meta.get("note", []) if n]
    if inside.lstrip().startswith("#"):
        draft = _numerical_draft(q, inside.lstrip()[1:], general, notes)
        _apply_meta(draft, meta)
        return draft
    missing_word = bool(q.after.strip())
    parts = _true_false(q.fmt, inside, general)
    if parts is not None:
        draft = _choice_draft(q, parts, _question_text(q, missing_word), notes)
    else:
        answers = _answers(inside, q.line)
        if all(a.right and _find(_ARROW, a.text) >= 0 for a in answers):
            draft = _matching_draft(q, answers, general, _question_text(q, False), notes)
            _apply_meta(draft, meta)
            return draft
        if all(a.right for a in answers) and not any(_find(_ARROW, a.text) >= 0 for a in answers):
            draft = _short_draft(q, answers, general, _question_text(q, missing_word), notes)
            _apply_meta(draft, meta)
            return draft
        several = _several_right(answers)
        kind = None if several else _kind_left_out(answers)
        if kind:
            raise LeftOut(drafts.left_out(q.line, kind))
        if not (several or any(a.right for a in answers)):
            raise _malformed(q.line, "no right answer ('=')")
        if len(answers) > len(OPTION_LABELS):
            raise _malformed(q.line, f"{len(answers)} answers (at most {len(OPTION_LABELS)})")
        if several or _partial_credit(answers):
            draft = _multi_draft(q, answers, general, _question_text(q, missing_word), notes)
        elif missing_word:
            parts = _choice_parts(q.fmt, answers, general, markup=False)
            draft = _fill_draft(q, parts, notes)
        else:
            parts = _choice_parts(q.fmt, answers, general, markup=True)
            draft = _choice_draft(q, parts, _question_text(q, False), notes)
    _apply_meta(draft, meta)
    return draft


def _typed_draft(
    q: _Question, kind: str, question: str, best: str, right_feedback: str, general: str
) -> Draft:
    """What a short and a numerical draft share: no options; the solution from the general
    feedback, else the best answer as the final one."""
    draft = Draft(drafts.task_id(q.title, question), kind, [], [], topic=q.topic)
    draft.question, draft.source_line = question, q.line
    _set_solution(draft, _Parts([best], 0, [], right_feedback, general))
    return draft


def _short_draft(
    q: _Question, answers: list[_Answer], general: str, question: str, notes: list[str]
) -> Draft:
    """A short-answer question: `=` answers, `%n%` a partial credit; an answer worth 0% with
    feedback is a known mistake, its feedback the note."""
    accepted: list[Accepted] = []
    mistakes: list[TypedMistake] = []
    praise: list[str] = []
    for answer in answers:
        text = _part(answer.text, q.fmt, markup=False).strip()
        feedback = _part(answer.feedback, q.fmt) if answer.feedback else ""
        weight = FULL_CREDIT if answer.weight is None else answer.weight
        if weight > 0:
            accepted.append(Accepted(text, min(weight, FULL_CREDIT)))
            if weight == FULL_CREDIT and feedback:
                praise.append(feedback)
        elif feedback:
            mistakes.append(TypedMistake((text,), feedback))
    if not any(a.credit == FULL_CREDIT for a in accepted):
        raise _malformed(q.line, "no short answer with full credit ('=' without a weight)")
    short = ShortAnswers(tuple(accepted), mistakes=merged(mistakes))
    draft = _typed_draft(q, "short", question, short.best.text, _join(*praise), general)
    draft.short, draft.mistakes = short, [Note(n) for n in notes]
    return draft


def _numerical_draft(q: _Question, body: str, general: str, notes: list[str]) -> Draft:
    """`{#3:2}`, `{#1..5}`, `{#=3:0 =%50%3:1}`: each answer a value and tolerance, or a range;
    `~`, or `=%0%`, with feedback is a known mistake."""
    if any(m.group(1) for m in _ANSWER_MARK.finditer(body)):
        answers = _answers(body, q.line)
    else:
        text, *after = _split(_HASH, body, 1)
        answers = [_Answer(True, text, after[0] if after else None, None)]
    found: list[NumAnswer] = []
    mistakes: list[TypedMistake] = []
    praise: list[str] = []
    for answer in answers:
        written = unescape(answer.text).strip()
        weight = FULL_CREDIT if answer.weight is None and answer.right else answer.weight
        credit = min(weight or Fraction(0), FULL_CREDIT)
        spec = parse_spec(written, credit if credit > 0 else FULL_CREDIT)
        if spec is None:
            raise _malformed(q.line, f"a numerical answer that is no number: {written!r}")
        feedback = _part(answer.feedback, q.fmt) if answer.feedback else ""
        if credit > 0:
            found.append(spec)
            if credit == FULL_CREDIT and feedback:
                praise.append(feedback)
        elif feedback:
            mistakes.append(TypedMistake((spec.spec,), feedback))
    if not any(a.credit == FULL_CREDIT for a in found):
        raise _malformed(q.line, "no numerical answer with full credit")
    numeric = NumericAnswers(tuple(found), mistakes=merged(mistakes))
    question = _question_text(q, False)
    draft = _typed_draft(q, "numerical", question, numeric.answer_text(), _join(*praise), general)
    draft.numeric, draft.mistakes = numeric, [Note(n) for n in notes]
    return draft


def _matching_draft(
    q: _Question, answers: list[_Answer], general: str, question: str, notes: list[str]
) -> Draft:
    """`=stem -> answer` pairs; `= -> answer`, with no stem, is a distractor (Moodle's)."""
    pairs: list[tuple[str, str]] = []
    distractors: list[str] = []
    for answer in answers:
        stem, text = _split(_ARROW, answer.text, 1)
        stem, text = _part(stem, q.fmt).strip(), _part(text, q.fmt).strip()
        if not text:
            raise _malformed(q.line, "a matching pair with no answer after '->'")
        if stem:
            pairs.append((stem, text))
        else:
            distractors.append(text)
    draft = Draft(drafts.task_id(q.title, question), "matching", [], [], topic=q.topic)
    draft.question, draft.source_line = question, q.line
    draft.pairs, draft.distractors = tuple(pairs), tuple(distractors)
    draft.mistakes = [Note(n) for n in notes]
    _set_solution(draft, _Parts([""], 0, [], "", general))
    if not draft.final_answer and not (draft.steps or draft.quick_check or draft.explanation):
        draft.final_answer = "; ".join(f"{stem} → {text}" for stem, text in pairs)
    return draft


def _several_right(answers: list[_Answer]) -> bool:
    """Moodle's rule: a block with no '=' takes several answers; `%n%` weights say which."""
    return not any(a.right for a in answers) and any(a.weight and a.weight > 0 for a in answers)


def _multi_draft(
    q: _Question, answers: list[_Answer], general: str, question: str, general_notes: list[str]
) -> Draft:
    """A multiple-answer question: each answer's weight (none: 0%), each wrong one's feedback a
    note tied to it; the right ones' feedback explains. With an '=' (100%), the member picks
    one answer (`single`)."""
    single = any(a.right for a in answers)
    weights = [FULL_CREDIT if a.right else a.weight or Fraction(0) for a in answers]
    # A single pick's partly right answer is a miss: its feedback is a note tied to it.
    right = [i for i, w in enumerate(weights) if (w == FULL_CREDIT if single else w > 0)]
    feedback = {i: _part(a.feedback, q.fmt) for i, a in enumerate(answers) if a.feedback}
    notes = [(i, text) for i, text in feedback.items() if i not in right and text]
    praise = _join(*dict.fromkeys(feedback.get(i, "") for i in right))  # each text once
    options = [_part(a.text, q.fmt) for a in answers]
    parts = _Parts(options, right[0], notes, praise, general)
    draft = _new_draft(q, parts, general_notes, "multi", question)
    draft.question = question
    draft.single = single
    drafts.set_weights(draft, weights)
    if not (parts.general or praise):  # `_set_solution` named one right option only
        draft.final_answer = "; ".join(options[i] for i in right)
    return draft


def _question_text(q: _Question, missing_word: bool) -> str:
    if not missing_word:
        return _convert(unescape(q.before), q.fmt, markup=True)
    text = _convert(unescape(q.before + BLANK + q.after), q.fmt, markup=True)
    return text.replace(BLANK, BLANK_LINE)


def _notes(parts: _Parts, general_notes: list[str]) -> list[Note]:
    """Each wrong option's own feedback tied to it (not our export's general fallback), then the
    `// note:` comments."""
    shown: list[tuple[str, list[str]]] = []
    for index, feedback in parts.notes:
        items = drafts.note_items(feedback)
        if general_notes and items == general_notes:
            continue
        shown.append((OPTION_LABELS[index], items))
    return drafts.tied_notes(shown) + [Note(text) for text in general_notes]


def _choice_draft(q: _Question, parts: _Parts, question: str, general_notes: list[str]) -> Draft:
    draft = _new_draft(q, parts, general_notes, "choice", question)
    draft.question = question
    return draft


def _fill_draft(q: _Question, parts: _Parts, general_notes: list[str]) -> Draft:
    instruction, code, language = _split_missing_word(q)
    draft = _new_draft(q, parts, general_notes, "fill", instruction or code)
    comments = []
    if not instruction:
        instruction = FILL_INSTRUCTION
        comments.append(NEUTRAL_INSTRUCTION_COMMENT)
    head, blank, tail = code.partition("[1]")
    if _LITERAL_INDEX.search(head) or _LITERAL_INDEX.search(tail):
        code = _protect_indexes(head) + blank + _protect_indexes(tail)
        comments.append(LITERAL_INDEX_COMMENT)
    draft.instruction, draft.code, draft.language = instruction, code, language
    draft.comment = "\n".join(comments) or None
    return draft


def _new_draft(q: _Question, parts: _Parts, notes: list[str], kind: str, text: str) -> Draft:
    """What a choice and a fill draft share; the id comes from the title, else `text`."""
    options, answers = parts.options, [OPTION_LABELS[parts.answer]]
    mistakes = _notes(parts, notes)
    draft = Draft(drafts.task_id(q.title, text), kind, options, answers, topic=q.topic)
    draft.mistakes, draft.source_line = mistakes, q.line
    _set_solution(draft, parts)
    return draft


def _protect_indexes(code: str) -> str:
    """`x[0]` -> `x[ 0 ]`, which our check does not read as a blank."""
    return _LITERAL_INDEX.sub(r"[ \1 ]", code)


def _split_missing_word(q: _Question) -> tuple[str, str, str | None]:
    """(instruction, code, fence language): the code is the fence holding the answer block."""
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


def _apply_meta(draft: Draft, meta: dict[str, list[str]]) -> None:
    """The `// hint:` and `// difficulty:` comments of the question's block (the last wins);
    `// hint 1:`, `// hint 2:` … are a hint ladder, in their numbers' order. GIFT itself has
    no hints: without these comments a task has none."""
    numbered = (meta.get(f"hint {n}", [""])[-1] for n in range(1, 10))
    ladder = [hint for hint in numbered if hint]
    hint = meta.get("hint", [""])[-1]
    if ladder or hint:
        draft.hints = ladder or [hint]
    difficulty = meta.get("difficulty", [""])[-1].lower()
    if difficulty in drafts.DIFFICULTIES:
        draft.difficulty = difficulty
    if draft.kind == "multi":
        draft.show_count = meta.get("show count", [""])[-1].strip().lower() == "true"
    if draft.short is not None:  # Moodle's usecase and our typos: no GIFT form but these
        case = meta.get("case sensitive", [""])[-1].strip().lower() == "true"
        typos = meta.get("typos", [""])[-1].strip()
        count = int(typos) if typos in ("1", "2") else 0
        draft.short = replace(draft.short, case_sensitive=case, typos=count)


_FINAL: Final = "**Final answer:** "
_CHECK: Final = "**Quick check:** "
_EXPLAIN: Final = "**Explanation:** "
_MARKER = re.compile(
    r"(?:^|\n\n)(?:\*\*Step (\d+): (.+?)\*\*\n|"
    + "|".join(re.escape(m) for m in (_FINAL, _CHECK, _EXPLAIN))
    + ")"
)


def general_feedback(task: Task) -> str:
    """The solution as GIFT's general feedback, each part marked so `_set_solution` finds it."""
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
    """The solution's parts from the general feedback (unmarked text is explanation); without
    any feedback, the final answer is the right option, as the bot would show anyway."""
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


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """Every question of a GIFT file as a draft, or as a report line saying why not."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace(BLANK, "")  # our placeholder, never the author's text
    made: list[Draft] = []
    report: list[ReportLine] = []
    first_category: str | None = None
    category: str | None = None
    for block in _blocks(text):
        if _CATEGORY.match(block.lines[0]):
            category = drafts.category_topic(_CATEGORY.sub("", block.lines[0], count=1))
            first_category = first_category or category
            if len(block.lines) == 1:
                continue
            block = _Block(block.lines[1:], block.numbers[1:], block.meta)
        try:
            made.append(_draft(_question(block, topic or category), block.meta))
        except LeftOut as left:
            report.append(left.report)
    drafts.unique_ids(made)
    bank = (PurePath(source).stem if source and source != "-" else "") or "GIFT import"
    bank_topic = topic or first_category
    if not bank_topic:
        bank_topic = bank
        if made:
            message = f"no $CATEGORY: line, so every task's topic is {bank!r} (choose one)"
            report.append(ReportLine(None, message))
    for draft in made:
        if draft.topic == bank_topic:
            draft.topic = None
    return ImportResult(made, report, bank, bank_topic, source)


_LOOKS = re.compile(
    r"^[ \t]*(?:::.+?::|\$CATEGORY:)|(?<!\\)\{\s*(?:[=~]|T\s*\}|F\s*\}|TRUE\b|FALSE\b)",
    re.MULTILINE,
)


def looks_like(text: str) -> bool:
    """A `::title::` or `$CATEGORY:` line, or an answer block; never XML or HTML."""
    xml_or_html = text.lstrip("\ufeff \t\r\n").startswith("<")
    return not xml_or_html and _LOOKS.search(text) is not None


def cannot_export(task: Task) -> str | None:
    """Why `task` has no GIFT form our import reads back as it is, or None."""
    if task.kind is Kind.FILL and task.blanks != 1:
        return f"a fill task with {task.blanks} blanks has no GIFT form"
    if task.kind is Kind.CLOZE:
        return "a cloze task has no GIFT form (Moodle XML carries it)"
    if task.numeric is not None and task.numeric.units:
        return "its units have no GIFT form (Moodle XML carries them)"
    if task.kind is Kind.MATCHING:
        if any(not n.general for n in task.mistakes):
            return "its notes on a stem's wrong answers have no GIFT form (Moodle XML's neither)"
        if any("->" in text for text in (*task.stems, *(o.text for o in task.options))):
            return "a stem or answer holds '->', which GIFT cannot carry in a matching question"
    for name, text in drafts.task_texts(task):
        for char, what in _NO_GIFT_FORM.items():
            if char in text:
                return f"its {name} holds {what}, which GIFT cannot carry"
    return None


_NO_GIFT_FORM: Final = {
    "\r": "a carriage return (U+000D; GIFT reads it as a line break)",
    BLANK: "U+E000 (the GIFT import's own placeholder)",
}


def export(tasks: Sequence[Task], *, bank: str, skip: Mapping[str, str] | None = None) -> str:
    """`tasks` as GIFT; one it cannot carry, or `skip` names (id -> why), is a comment line."""
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
    """Escaped, and marked `[markdown]` if it starts like a format or a weight (`%`: no escape)."""
    shield = _FORMAT.match(text) or _WEIGHT.match(text)
    return ("[markdown]" if shield else "") + escape(text)


def _export_task(task: Task) -> list[str]:
    hints = (
        [f"// hint: {_one_line(task.hints[0])}"]
        if len(task.hints) == 1
        else [f"// hint {n}: {_one_line(hint)}" for n, hint in enumerate(task.hints, start=1)]
    )
    lines = [*hints, f"// difficulty: {task.difficulty}"]
    if task.show_count:
        lines.append("// show count: true")
    lines += [f"// note: {_one_line(note)}" for note in task.general_notes]
    general = general_feedback(task)
    close = f"####{_text(general)}\n}}" if general else "}"
    head = f"::{task.id}:: [markdown]"
    if task.kind is Kind.CHOICE and tuple(o.text for o in task.options) == TRUE_FALSE:
        true = task.answers[0] == "A"
        block = "{" + ("TRUE" if true else "FALSE") + _feedback(task, "B" if true else "A") + close
        return [*lines, protect_lines(f"{head}{escape(task.prompt)} {block}")]
    if task.short is not None or task.numeric is not None:
        typed = "{" + ("#" if task.numeric else "") + "\n" + "\n".join(_typed_answers(task))
        meta = []
        if task.short and task.short.typos:
            meta.append(f"// typos: {task.short.typos}")
        if task.short and task.short.case_sensitive:
            meta.append("// case sensitive: true")
        block = f"{typed}\n{close}"
        return [*lines, *meta, protect_lines(f"{head}{escape(task.prompt)} {block}")]
    if task.kind is Kind.MULTI:
        answers = [_weighted(task, o.label, o.text) for o in task.options]
    elif task.kind is Kind.MATCHING:
        paired = [task.answer_text(n) for n in range(1, task.blanks + 1)]
        pairs = zip(task.stems, paired, strict=True)
        answers = [f"={_text(stem)} -> {_text(text)}" for stem, text in pairs]
        answers += [f"= -> {_text(o.text)}" for o in task.options if o.text not in paired]
    else:
        answers = [
            f"={_text(o.text)}"
            if o.label in task.answers
            else f"~{_text(o.text)}{_feedback(task, o.label)}"
            for o in task.options
        ]
    block = "{\n" + "\n".join(answers) + "\n" + close
    if task.kind in (Kind.CHOICE, Kind.MULTI, Kind.MATCHING):
        return [*lines, protect_lines(f"{head}{escape(task.prompt)} {block}")]
    before, _, after = task.prompt.partition("[1]")
    code = f"```{escape(task.language)}\n{escape(before)}{block}{escape(after)}\n```"
    return [*lines, protect_lines(f"{head}{escape(task.instruction or '')}\n{code}")]


def _typed_answers(task: Task) -> list[str]:
    """`=Paris`, `=%50%Paname`, `=%0%Lyon#note`; numerical specs are written unescaped, as
    Moodle's own `{#3:2}`."""
    lines: list[str] = []
    if task.short is not None:
        for a in task.short.accepted:
            lines.append(f"={_credit_mark(a.credit)}{_text(a.text)}")
        for m in task.short.mistakes:
            lines += [f"=%0%{_text(text)}#{_text(m.note)}" for text in m.answers]
    elif task.numeric is not None:
        for n in task.numeric.answers:
            lines.append(f"={_credit_mark(n.credit)}{n.spec}")
        for m in task.numeric.mistakes:
            lines += [f"=%0%{spec}#{_text(m.note)}" for spec in m.answers]
    return lines


def _credit_mark(credit: Fraction) -> str:
    return "" if credit == FULL_CREDIT else f"%{drafts.percent_text(credit)}%"


def _weighted(task: Task, label: str, text: str) -> str:
    """A multi task's option: `~%50%text`, a wrong one with its feedback (no weight: 0%); a
    single-pick task's full-credit one `=text`."""
    weight = task.weight(label)
    if task.single and drafts.is_full(weight):  # Moodle's single answer: `=` is 100%
        return f"={_text(text)}"
    mark = f"%{drafts.percent_text(weight)}%" if weight else ""
    feedback = "" if weight > 0 and not task.single else _feedback(task, label)
    return f"~{mark}{_text(text)}{feedback}"


def _feedback(task: Task, label: str) -> str:
    """`#` and a wrong option's feedback, what the bot shows whoever picks it; "" for none."""
    feedback = drafts.note_list(task.notes_for(label) or task.general_notes)
    return f"#{_text(feedback)}" if feedback else ""
