"""Practice pages ("… - Interactive Practice"), as copied from the browser, into our bank format.
A page has no grammar, so every section's reading lives here (content/README.md shows what
becomes what); a guessed answer is `confirmed: false`, any line not understood reported.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.content.importers import drafts
from bot.content.importers.drafts import Draft, ImportResult, Note, ReportLine, Step
from bot.quiz.tasks import BLANK_PATTERN, OPTION_LABELS

# `(?<!\s)` and `\s++`: tried from every space of a long run, the search was quadratic.
_TITLE_SUFFIX = re.compile(r"(?<!\s)\s++[-–—]\s++(?:Interactive\s++)?Practice\s*$", re.I)
_HEADER = re.compile(r"^Practice(?:\s+[-–—]\s+\d+\s+Tasks?)?$", re.I)
_FILL_START = re.compile(r"^(\d+)\s*fill in (?:the )?blanks?$", re.I)
_NUMBERED = re.compile(r"^(\d+)\.\s+(\S.*)$")
_STEP = re.compile(r"^Step\s*(\d+)\s*(?:[:.)\-–]\s*(.*))?$", re.I)
_FINAL = re.compile(r"^Final Answer\s*:?\s*(.*)$", re.I)
_QUICK = re.compile(r"^Quick Check\s*:?\s*(.*)$", re.I)
_CHOICE_OPTION = re.compile(r"^([A-Z])\.\s+(\S.*)$")
_BULLET = re.compile(r"^\s*[•·*\-]\s+(\S.*)$")
_ANSWER = re.compile(r"(?:->|→)\s*Option\s+([A-Z])\b")
_LABEL_REF = re.compile(r"\b[Oo]ptions?\s+\(?([A-Z])\)?(?:\s*(?:,|or|and)\s*\(?([A-Z])\)?)*")
_LEFT = re.compile(r"^\d+\s+left$", re.I)
_QUESTION_LINES = 3  # a question's lines after its numbered first one, before its difficulty
_WORD = re.compile(r"[a-z0-9]+")

# Section markers, on unindented lines; the group is the text on the marker's line.
_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("fill-options", re.compile(r"^Drag options to blanks\b.*()$", re.I)),
    ("attempts", re.compile(r"^Attempts\s*:?\s*(.*)$", re.I)),
    ("hint", re.compile(r"^(?:💡\s*)?Hint\b\s*:?\s*(.*)$", re.I)),
    ("mistakes", re.compile(r"^Common Mistakes\s*:?\s*()$", re.I)),
    ("solution", re.compile(r"^Solution\s*:?\s*()$", re.I)),
    ("explanation", re.compile(r"^Explanation\s*:?\s*(.*)$", re.I)),
)
# Title words that say nothing about the subject, skipped when choosing the id prefix.
_DULL = frozenset(
    {"about", "basics", "from", "interactive", "into", "intro", "introduction", "over"}
    | {"practice", "their", "this", "using", "versus", "what", "when", "which", "with", "your"}
)

Lines = list[tuple[int, str]]  # (line number, text), in page order


def looks_like(text: str) -> bool:
    head = text[:200_000]
    # `[^\S\n]*`, not `\s*`, which ran on over every blank line after each line start.
    if re.search(r"^[^\S\n]*\d+\s*fill in (?:the )?blanks?\s*$", head, re.M | re.I):
        return True
    if re.search(r"^Drag options to blanks", head, re.M | re.I):
        return True
    return bool(_ANSWER.search(head)) and bool(re.search(r"^Common Mistakes", head, re.M))


def parse(text: str, *, source: str, topic: str | None = None) -> ImportResult:
    """The page's tasks, and a report line for all guessed or not understood; `topic` wins."""
    del source  # the caller renders report lines with the file name
    return _Page(text.splitlines()).result(topic)


@dataclass(slots=True)
class _Section:
    line: int
    inline: str
    body: Lines = field(default_factory=list)


@dataclass(slots=True)
class _Block:
    """One task's lines, split into its head and its named sections."""

    kind: str
    start: int
    first: str  # the text on its first line, where a choice task's question starts
    head: Lines = field(default_factory=list)
    sections: dict[str, _Section] = field(default_factory=dict)
    options: Lines = field(default_factory=list)  # a choice task's, wherever they stand

    def body(self, name: str) -> Lines:
        section = self.sections.get(name)
        return section.body if section else []


class _Page:
    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = [line.rstrip() for line in lines]
        self.report: list[ReportLine] = []

    def note(self, line: int | None, message: str) -> None:
        self.report.append(ReportLine(line, message))

    def not_understood(self, line: int, text: str) -> None:
        shown = text.strip()
        shown = shown if len(shown) <= 60 else shown[:57] + "…"
        self.note(line, f"not understood, skipped: {shown!r}")

    def result(self, topic: str | None) -> ImportResult:
        numbered = list(enumerate(self.lines, start=1))
        title_at = next((n for n, text in numbered if text.strip()), None)
        full_title = self.lines[title_at - 1].strip() if title_at else ""
        bank = _TITLE_SUFFIX.sub("", full_title) or "Imported practice page"
        if title_at is None:
            return ImportResult([], [ReportLine(None, "the page is empty")], bank, topic or bank)
        starts = [(n, kind) for n, _ in numbered[title_at:] if (kind := self._start_kind(n))]
        first_task = starts[0][0] if starts else len(self.lines) + 1
        for n, text in numbered[title_at : first_task - 1]:
            if text.strip() and not _HEADER.match(text.strip()):
                self.not_understood(n, text)
        blocks = []
        for i, (n, kind) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else len(self.lines) + 1
            body = [(m, t) for m, t in numbered[n : end - 1] if not _HEADER.match(t)]
            blocks.append(self._split(kind, n, body))
            self._attempts(blocks[-1])
        tags = [tag for block in blocks if (tag := _topic_tag(block.head))]
        bank_topic = topic or (Counter(t for _, t in tags).most_common(1)[0][0] if tags else None)
        if not bank_topic:
            bank_topic = bank
            self.note(None, f"the page names no topic: using the title {bank!r}; pass --topic")
        prefix = _id_prefix(bank, bank_topic)
        counts = Counter[str]()
        made = []
        for block in blocks:
            draft = self._fill(block) if block.kind == "fill" else self._choice(block)
            if draft is None:
                continue
            counts[draft.kind] += 1
            short = "fill" if draft.kind == "fill" else "mc"
            draft.id = f"{prefix}-{short}-{counts[draft.kind]}"
            tag = _topic_tag(block.head)
            if topic is None and tag and tag[1] != bank_topic:
                draft.topic = tag[1]
            made.append(draft)
        drafts.unique_ids(made)
        if not starts:
            self.note(None, "no tasks found: no 'Nfill in blank' or numbered question lines")
        report = sorted(self.report, key=lambda r: r.line or 0)
        return ImportResult(made, report, bank, bank_topic, full_title or None)

    def _start_kind(self, n: int) -> str | None:
        text = self.lines[n - 1]
        if _FILL_START.match(text.strip()):
            return "fill"
        m = _NUMBERED.match(text)
        if not m or _STEP.match(m[2]) or _FINAL.match(m[2]) or _QUICK.match(m[2]):
            return None
        # The question may run on over a few lines: read into the task before, it is lost.
        seen = 0
        for line in itertools.islice(self.lines, n, None):  # no copy: a page has many numbers
            following = line.strip()
            if not following:
                continue
            if following.casefold() in drafts.DIFFICULTIES or re.match(r"^A\.\s+\S", following):
                return "choice"
            seen += 1
            if seen > _QUESTION_LINES or _marker(line) or _NUMBERED.match(following):
                return None
            if _FILL_START.match(following) or _CHOICE_OPTION.match(following):
                return None
        return None

    def _split(self, kind: str, start: int, lines: Lines) -> _Block:
        first = self.lines[start - 1].strip()
        m = _NUMBERED.match(first) if kind == "choice" else _FILL_START.match(first)
        assert m is not None
        block = _Block(kind, start, m[2] if kind == "choice" else "")
        current: Lines = block.head
        labelled = 0  # lines in block.options that read "X. text", counted as they come
        for n, text in lines:
            marker = _marker(text)
            if marker is not None and (kind == "fill" or marker[0] != "fill-options"):
                name, inline = marker
                if name in block.sections:
                    self.note(n, f"a second {name!r} section in this task: read as one")
                    block.sections[name].body.append((n, inline))
                else:
                    block.sections[name] = _Section(n, inline)
                current = block.sections[name].body
            elif kind == "choice" and _is_next_option(text, labelled):
                block.options.append((n, text))
                labelled += 1
                current = block.options
            else:
                current.append((n, text))
                if current is block.options and _CHOICE_OPTION.match(text):
                    labelled += 1
        return block

    def _fill(self, block: _Block) -> Draft | None:
        paragraphs = _paragraphs(block.head)
        difficulty = self._difficulty(block, paragraphs)
        if not paragraphs:
            self.note(block.start, "left out: a fill task without instruction or code")
            return None
        instruction = " ".join(t.strip() for _, t in paragraphs.pop(0))
        if _topic_tag(block.head):
            paragraphs.pop(0)
        code_lines = [line for p in paragraphs for line in p]
        code = ""
        if code_lines:
            first, last = code_lines[0][0], code_lines[-1][0]
            code = textwrap.dedent("\n".join(self.lines[first - 1 : last])).strip("\n") + "\n"
        blanks = sorted({int(n) for n in BLANK_PATTERN.findall(code)} - {0})
        if not blanks:
            self.note(block.start, "left out: the fill task's code has no blanks [1] … [n]")
            return None
        options = self._fill_options(block)
        if len(options) < 2:
            self.note(block.start, "left out: the fill task has fewer than 2 options")
            return None
        notes, explanation, explanation_line = self._fill_mistakes(block)
        comments: list[str] = []
        answers, confirmed = self._fill_answers(block, options, len(blanks), explanation)
        if answers is None:
            return None
        if not confirmed:
            named = ", ".join(options[OPTION_LABELS.index(a)] for a in dict.fromkeys(answers))
            why = "several blanks" if len(blanks) > 1 else "several options named"
            self.note(
                explanation_line,
                f"guessed: answers {answers} ({why}); a person must confirm which option "
                "fills which blank",
            )
            comments.append(f"answers guessed from the explanation ({named}).")
        unbalanced = _unbalanced(code)
        if unbalanced:
            self.note(code_lines[0][0], f"the code {unbalanced}; kept as on the page")
            comments.append(f"The code {unbalanced}, as on the page.")
        steps, final, quick = self._solution(block)
        return Draft(
            id="",
            kind="fill",
            options=options,
            answers=answers,
            instruction=instruction,
            code=code,
            difficulty=difficulty,
            hints=_hints(block),
            steps=steps,
            final_answer=final,
            quick_check=quick,
            explanation=explanation,
            mistakes=[_tie(text, options, answers) for text in notes],
            confirmed=confirmed,
            source_line=block.start,
            comment=_comment(comments),
        )

    def _fill_options(self, block: _Block) -> list[str]:
        options: list[str] = []
        for n, text in block.body("fill-options"):
            line = text.strip()
            if not line:
                continue
            label = OPTION_LABELS[len(options)] if len(options) < len(OPTION_LABELS) else ""
            if label and line.startswith(label) and len(line) > 1:
                rest = line[1:]
                dotted = re.match(r"^\.\s+(\S.*)$", rest)
                options.append((dotted[1] if dotted else rest).strip())
            else:
                self.not_understood(n, text)
        return options

    def _fill_mistakes(self, block: _Block) -> tuple[list[str], str | None, int | None]:
        """The notes, and the explanation (its own section, else the last paragraph) and line."""
        lines = block.body("mistakes")
        bullets = [(n, m[1]) for n, t in lines if (m := _BULLET.match(t))]
        plain = [(n, t) for n, t in lines if not _BULLET.match(t)]
        paragraphs = [(p[0][0], " ".join(t.strip() for _, t in p)) for p in _paragraphs(plain)]
        notes = [text for _, text in bullets]
        explained = block.sections.get("explanation")
        if explained is not None:
            notes += [text for _, text in paragraphs]
            return notes, self._explanation(block), explained.line
        if not paragraphs:
            return notes, None, None
        if len(paragraphs) == 1 and not bullets and "mistakes" in block.sections:
            self.note(
                paragraphs[0][0],
                "one paragraph after 'Common Mistakes': read as the explanation; no mistake note",
            )
        notes += [text for _, text in paragraphs[:-1]]
        return notes, paragraphs[-1][1], paragraphs[-1][0]

    def _fill_answers(
        self, block: _Block, options: list[str], blanks: int, explanation: str | None
    ) -> tuple[list[str] | None, bool]:
        named = _named(explanation or "", options)
        if not named:
            why = "no explanation" if not explanation else "an explanation that names no option"
            self.note(block.start, f"left out: the fill task has {why}, so its answer is unknown")
            return None, False
        if blanks == 1 and len(named) == 1:
            return [OPTION_LABELS[named[0]]], True
        if blanks == 1:
            return [OPTION_LABELS[named[0]]], False
        code_like = [i for i in named if not re.fullmatch(r"[A-Za-z]+", options[i])]
        candidates = code_like or named
        guess = [candidates[min(b, len(candidates) - 1)] for b in range(blanks)]
        return [OPTION_LABELS[i] for i in guess], False

    def _choice(self, block: _Block) -> Draft | None:
        question_lines = [block.first]
        difficulty: str | None = None
        for n, text in block.head:
            line = text.strip()
            if not line:
                continue
            if difficulty is None and line.casefold() in drafts.DIFFICULTIES:
                difficulty = line.casefold()
            elif difficulty is None:
                question_lines.append(line)
            else:
                self.not_understood(n, text)
        if difficulty is None:
            self.note(block.start, "no difficulty (easy, medium or hard): medium")
            difficulty = "medium"
        options = self._matched(block.options, _CHOICE_OPTION, 2)
        if len(options) < 2:
            self.note(block.start, "left out: the question has fewer than 2 options 'A. …'")
            return None
        if len(options) > len(OPTION_LABELS):  # and each mistake note is matched to every one
            self.note(block.start, f"left out: the question has {len(options)} options (A–Z)")
            return None
        steps, final, quick = self._solution(block)
        answer = self._choice_answer(block, options, final)
        if answer is None:
            return None
        notes = self._matched(block.body("mistakes"), _BULLET, 1)
        mistakes = [_tie(text, options, [answer]) for text in notes]
        comments: list[str] = []
        if mistakes and not any(n.options for n in mistakes):
            comments.append(
                "The mistake notes name no option, so they are general; tie a note to the "
                "options it describes: {note: …, options: [B]}."
            )
        return Draft(
            id="",
            kind="choice",
            options=options,
            answers=[answer],
            question=" ".join(question_lines),
            difficulty=difficulty,
            hints=_hints(block),
            steps=steps,
            final_answer=final,
            quick_check=quick,
            explanation=self._explanation(block),
            mistakes=mistakes,
            source_line=block.start,
            comment=_comment(comments),
        )

    def _choice_answer(self, block: _Block, options: list[str], final: str | None) -> str | None:
        found = _ANSWER.search(final or "")
        where = self._final_line(block)
        if found is None:
            self.note(block.start, "left out: no '-> Option X' gives the question's answer")
            return None
        label = found[1]
        if label not in OPTION_LABELS[: len(options)]:
            self.note(where, f"left out: the answer Option {label} is not among the options")
            return None
        said = (final or "")[: found.start()].strip()
        if said and said != options[OPTION_LABELS.index(label)]:
            self.note(where, f"the final answer's words are not option {label}'s text; check it")
        return label

    def _final_line(self, block: _Block) -> int:
        for n, text in block.body("solution"):
            numbered = _NUMBERED.match(text.strip())
            if _FINAL.match(numbered[2] if numbered else text.strip()):
                return n
        return block.start

    def _matched(self, lines: Lines, pattern: re.Pattern[str], group: int) -> list[str]:
        """The `group` of each line `pattern` matches; any other non-blank line is reported."""
        found = []
        for n, text in lines:
            if m := pattern.match(text):
                found.append(m[group].strip())
            elif text.strip():
                self.not_understood(n, text)
        return found

    def _attempts(self, block: _Block) -> None:
        """ "Attempts: 3 left" says nothing about the task; anything else there is reported."""
        section = block.sections.get("attempts")
        for n, text in [(section.line, section.inline), *section.body] if section else []:
            if text.strip() and not _LEFT.match(text.strip()):
                self.not_understood(n, text)

    def _explanation(self, block: _Block) -> str | None:
        section = block.sections.get("explanation")
        return None if section is None else _section_text(section) or None

    def _difficulty(self, block: _Block, paragraphs: list[Lines]) -> str:
        if paragraphs and len(paragraphs[0]) == 1:
            word = paragraphs[0][0][1].strip().casefold()
            if word in drafts.DIFFICULTIES:
                paragraphs.pop(0)
                return word
        self.note(block.start, "no difficulty (easy, medium or hard): medium")
        return "medium"

    def _solution(self, block: _Block) -> tuple[list[Step], str | None, str | None]:
        items: list[tuple[int, str, str, list[str]]] = []  # line, what, title/inline, body
        for n, text in block.body("solution"):
            line = text.strip()
            if not line:
                if items:
                    items[-1][3].append("")
                continue
            item = _item(line) if not text[:1].isspace() else None
            if item is not None:
                items.append((n, item[0], item[1], []))
            elif items:
                items[-1][3].append(text)
            else:
                self.not_understood(n, text)
        steps: list[Step] = []
        final = quick = None
        for n, what, inline, body in items:
            content = _text([inline, *body]) if what != "step" else _text(body)
            if what == "final":
                final = content or None
            elif what == "quick":
                quick = content or None
            elif not inline or not content:
                self.note(n, "a step without a title or text: left out of the solution")
            else:
                steps.append(Step(inline, content))
        return steps, final, quick


def _comment(lines: Sequence[str]) -> str | None:
    """Comment lines for the YAML, wrapped to fit the bank's line length."""
    wrapped = [part for line in lines for part in textwrap.wrap(line, 90)]
    return "\n".join(wrapped) or None


def _marker(text: str) -> tuple[str, str] | None:
    if not text or text[:1].isspace():
        return None
    for name, pattern in _MARKERS:
        m = pattern.match(text.strip())
        if m:
            return name, m[1].strip()
    return None


def _is_next_option(text: str, expected: int) -> bool:
    """An unindented "X. text" line, X the label after `expected` options."""
    m = _CHOICE_OPTION.match(text)
    return m is not None and expected < len(OPTION_LABELS) and m[1] == OPTION_LABELS[expected]


def _item(line: str) -> tuple[str, str] | None:
    """A solution item's kind and its text on the heading line, or None for a text line."""
    numbered = _NUMBERED.match(line)
    rest = numbered[2] if numbered else line
    if m := _STEP.match(rest):
        return "step", (m[2] or "").strip()
    if m := _FINAL.match(rest):
        return "final", m[1].strip()
    if m := _QUICK.match(rest):
        return "quick", m[1].strip()
    return ("step", rest.strip()) if numbered else None


def _paragraphs(lines: Lines) -> list[Lines]:
    paragraphs: list[Lines] = [[]]
    for n, text in lines:
        if text.strip():
            paragraphs[-1].append((n, text))
        elif paragraphs[-1]:
            paragraphs.append([])
    return [p for p in paragraphs if p]


def _text(lines: Sequence[str]) -> str:
    """Lines as one text: the common indent removed, blank lines at either end dropped."""
    return textwrap.dedent("\n".join(line for line in lines)).strip()


def _section_text(section: _Section) -> str:
    return _text([section.inline, *(t for _, t in section.body)])


def _hints(block: _Block) -> list[str]:
    """The page's hint, if it shows one: none is written in its place."""
    section = block.sections.get("hint")
    text = _section_text(section) if section else ""
    return [text] if text else []


def _topic_tag(head: Lines) -> tuple[int, str] | None:
    """A fill task's topic tag: the short single line between the instruction and the code."""
    paragraphs = _paragraphs(head)
    if paragraphs and paragraphs[0][0][1].strip().casefold() in drafts.DIFFICULTIES:
        paragraphs = paragraphs[1:]
    if len(paragraphs) < 3 or len(paragraphs[1]) != 1:
        return None
    n, text = paragraphs[1][0]
    tag = text.strip()
    if len(tag) > 40 or BLANK_PATTERN.search(tag) or re.search(r"[=(){}\[\];:<>\"'`]", tag):
        return None
    return n, tag


_QUICK_TRIES = 8  # mentions tried one by one before the search that is never quadratic


def _first_mention(text: str, option: str) -> int | None:
    """Where `text` first names `option` as a whole token (the text's ends count as spaces)."""
    if not option:
        return None
    start = text.find(option)
    for _ in range(_QUICK_TRIES):
        if start < 0:
            return None
        end = start + len(option)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if _free(before, option[0]) and _free(after, option[-1]):
            return start
        start = text.find(option, start + 1)
    if start < 0:
        return None
    # Many overlapping mentions ("aaaa…" naming "aaa"): one regex that scans for the option
    # once and checks both neighbours in constant time, where `find` from each was quadratic.
    head, tail = re.escape(option[0]), re.escape(option[-1])
    whole = re.compile(rf"{re.escape(option)}(?![\w{tail}])(?<![\w{head}](?s:.){{{len(option)}}})")
    while found := whole.search(text, start):
        start = found.start()
        if not (start == 0 and option[0] == " ") and not (
            found.end() == len(text) and option[-1] == " "
        ):
            return start
        start += 1  # the ends count as spaces: not free next to an option's own space
    return None


def _free(neighbour: str, edge: str) -> bool:
    return not (neighbour.isalnum() or neighbour == "_" or neighbour == edge)


def _named(text: str, options: Sequence[str]) -> list[int]:
    """Indexes of the options `text` names, by text or label ("option B"), first mention first."""
    first: dict[int, int] = {}
    for i, option in enumerate(options):
        spot = _first_mention(text, option)
        if spot is not None:
            first[i] = spot
    for m in _LABEL_REF.finditer(text):
        for label in re.findall(r"\b([A-Z])\b", m[0]):
            i = OPTION_LABELS.index(label)
            if i < len(options):
                first.setdefault(i, m.start())
    return sorted(first, key=lambda i: (first[i], i))


def _tie(text: str, options: Sequence[str], answers: Sequence[str]) -> Note:
    """The note tied to the wrong options it names; general when it names none."""
    named = _named(text, options)
    labels = sorted(OPTION_LABELS[i] for i in named if OPTION_LABELS[i] not in answers)
    return Note(text, tuple(labels))


def _unbalanced(code: str) -> str | None:
    """What is wrong with the code's brackets, blanks [n] aside, or None."""
    plain = BLANK_PATTERN.sub("", code)
    for opening, closing in ("()", "[]", "{}"):
        diff = plain.count(opening) - plain.count(closing)
        if diff:
            more, less = (opening, closing) if diff > 0 else (closing, opening)
            times = "once" if abs(diff) == 1 else f"{abs(diff)} times"
            return f"has {more!r} {times} more than {less!r}"
    return None


def _id_prefix(title: str, topic: str) -> str:
    """`<topic>-<the title's most repeated word of 4+ letters, not the topic's nor filler>`."""
    topic_words = set(_WORD.findall(topic.casefold()))
    words = [
        w
        for w in _WORD.findall(title.casefold())
        if len(w) > 3 and w not in _DULL and w not in topic_words
    ]
    if not words:
        return drafts.slug(topic, limit=40)
    counts = Counter(words)
    at: dict[str, int] = {}
    for i, word in enumerate(words):
        at.setdefault(word, i)
    key = max(words, key=lambda w: (counts[w], -at[w]))  # counted once: a long title is linear
    return drafts.slug(f"{topic} {key}", limit=40)
