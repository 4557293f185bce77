"""Text that would render wrong or mislead once shown in Discord, whatever field it is in.

Every text of a bank passes one check (`text_problem`, called by `nodes.NodeChecker.text`), so
a rule holds for every field at once rather than for the fields someone thought of:
- no control character (NUL, U+0001, DEL, C1 ...) and no lone surrogate: Discord drops or
  refuses them, and our own exports could not be read back; a line break and a tab only where
  the text may have several lines;
- not invisible: a text that shows nothing once the invisible characters (zero-width, format,
  fillers, spaces) are removed is an empty label, hint or question to the member;
- its `Shape`: a Markdown text's code blocks are whole (a fence inside a code block, such as an
  imported `<pre>` holding ```, ends it early and leaves the rest raw); a one-line text has no
  line break; an option and a code template hold no ``` at all; a code language is a word.

`look_alike` is the form two options are compared in: options that read the same to a member
(`ab` and `a\u200bb`, NFC and NFD, `Yes` and `yes`) are one option shown twice.
"""

from __future__ import annotations

import re
import unicodedata
from enum import Enum
from typing import Final

from bot.content.limits import MAX_TOPIC
from bot.rendering import FENCE, discord_len, draws_nothing


class Shape(Enum):
    """Where a text is shown, which decides what it may hold beyond every text's rules."""

    PROSE = "prose"
    """Discord Markdown of several lines (question, hint, solution, notes)."""
    LINE = "line"
    """One line, no Markdown blocks: a title, a topic, a name."""
    OPTION = "option"
    """An option: a line of a list and a button label, or a token put into the code block."""
    CODE = "code"
    """A fill template: shown inside a code block, which a ``` would end."""
    WORD = "word"
    """A code block's language: written right after the opening ```."""


LANGUAGE: Final = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")
"""What Discord reads as a code block's language (and what it reads as code after it)."""

_CONTROLS: Final = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
"""Control characters (Unicode's Cc) and lone surrogates (Cs)."""
_CONTROLS_IN_LINES: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
"""The same less the line break and the tab, which a text of several lines may hold."""


_BACKTICKS: Final = re.compile(r"`{3,}")
_CONTROL_NAMES: Final = {0: "NUL", 0x7F: "DEL", 0x0D: "carriage return"}


def _code_point(char: str) -> str:
    name = _CONTROL_NAMES.get(ord(char)) or unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def _control_problem(text: str, lines: bool) -> str | None:
    # One regular expression over the text: this runs on every text of every bank, and a
    # per-character category lookup would add seconds to a 10,000-task start-up.
    found = (_CONTROLS_IN_LINES if lines else _CONTROLS).search(text)
    if found is None:
        return None
    if found.group(0) == "\n":
        return "must be one line: remove the line break"
    return f"contains the control character {_code_point(found.group(0))}: remove it"


def _invisible_problem(text: str) -> str | None:
    if any(not (draws_nothing(char) or char.isspace() or _mark(char)) for char in text):
        return None
    shown = ", ".join(sorted({_code_point(c) for c in text if not c.isspace()})[:3])
    if not shown:
        return "shows nothing: it is blank"
    if any(_mark(c) for c in text):
        # Accents with no letter under them: a stray smudge on the label, not a text.
        return f"shows nothing: it holds only combining marks with no letter to go on ({shown})"
    return f"shows nothing: it holds only invisible characters ({shown})"


def _mark(char: str) -> bool:
    return unicodedata.category(char)[0] == "M"


def fence_problem(text: str) -> str | None:
    """What is wrong with the code blocks of a Markdown text, or None.

    Discord pairs each ``` with the next one. A run of more than three backticks, a ``` left
    open, or an empty block (what a fence inside a code block leaves: ```\\n```python) renders
    as raw backticks and turns the rest of the text into code, or code into text."""
    runs = list(_BACKTICKS.finditer(text))
    for run in runs:
        if len(run.group(0)) > len(FENCE):
            return f"{len(run.group(0))} backticks in a row: a code block opens and closes with ```"
    if len(runs) % 2:
        return "a code block is not closed: every ``` needs a closing ```"
    for opening, closing in zip(runs[::2], runs[1::2], strict=True):
        inside = text[opening.end() : closing.start()]
        first, newline, rest = inside.partition("\n")
        code = rest if newline and LANGUAGE.fullmatch(first) else inside
        if not code.strip():
            return (
                "a code block is empty: a ``` inside a code block ends it, so the code after "
                "it shows as text"
            )
    return None


def _shape_problem(text: str, shape: Shape) -> str | None:
    if shape is Shape.PROSE:
        return fence_problem(text)
    if shape is Shape.WORD:
        if LANGUAGE.fullmatch(text):
            return None
        return (
            "must be a language name: 1 to 32 letters, digits and _ + # . - (e.g. python, c++, c#)"
        )
    if shape is Shape.LINE and ("\u2028" in text or "\u2029" in text):
        return "must be one line: remove the line break"
    if FENCE in text:
        what = "a code block" if shape is Shape.CODE else "the list of options or the code"
        return f"must not contain ``` (it would break {what})"
    return None


def text_problem(text: str, shape: Shape = Shape.PROSE) -> str | None:
    """Why `text` would render wrong or mislead where `shape` says it is shown, or None."""
    if shape is Shape.WORD:  # its own charset says it all, a line break included
        return _shape_problem(text, shape)
    return (
        _control_problem(text, lines=shape is not Shape.LINE)
        or _invisible_problem(text)
        or _shape_problem(text, shape)
    )


def topic_problem(topic: str) -> str | None:
    """Why `topic` cannot be a topic, as a sentence about "the topic", or None. Members choose
    a topic as a command option's value: one line of at most `MAX_TOPIC` characters."""
    problem = text_problem(topic.strip(), Shape.LINE)
    if problem:
        return f"the topic {problem}"
    size = discord_len(topic.strip())
    if size > MAX_TOPIC:
        return (
            f"the topic is {size:,} characters; at most {MAX_TOPIC} fit a command choice, so "
            "a longer one could never be chosen"
        )
    return None


def look_alike(text: str, *, case: bool = False) -> str:
    """The form in which two texts that read the same to a member are equal: invisible
    characters removed, spaces collapsed, NFKC (which also makes NFC and NFD equal) and,
    unless `case` counts (code), case folded."""
    visible = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or not draws_nothing(char)
    )
    folded = unicodedata.normalize("NFKC", " ".join(visible.split()))
    if case:
        return folded
    return unicodedata.normalize("NFKC", folded.casefold())
