"""Text that would render wrong or mislead once shown in Discord, whatever field it is in.

Every text of a bank passes `text_problem`, so a rule holds for every field at once: no control
character or lone surrogate, not invisible, and what its `Shape` allows. `look_alike` is the
form in which two options that read the same to a member are equal.
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

    PROSE = "prose"  # Markdown of several lines: question, hint, solution, notes
    LINE = "line"  # one line, no Markdown blocks: a title, a topic
    OPTION = "option"  # a button label, or a token put into the code block
    CODE = "code"  # a fill template, inside a code block a ``` would end
    WORD = "word"  # a code block's language, right after the opening ```


LANGUAGE: Final = re.compile(r"[A-Za-z0-9_+#.-]{1,32}")  # what Discord reads as a language

_CONTROLS: Final = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")  # Cc and lone Cs
_CONTROLS_IN_LINES: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # less \n, \t


_BACKTICKS: Final = re.compile(r"`{3,}")
_CONTROL_NAMES: Final = {0: "NUL", 0x7F: "DEL", 0x0D: "carriage return"}


def _code_point(char: str) -> str:
    name = _CONTROL_NAMES.get(ord(char)) or unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def _control_problem(text: str, lines: bool) -> str | None:
    # One regex: a per-character lookup would add seconds to a 10,000-task start-up.
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
    """What is wrong with the code blocks of a Markdown text, or None: Discord pairs each ```
    with the next, so a longer run, an open fence or an empty block garbles the rest."""
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


_NOT_A_LANGUAGE: Final = (
    "must be a language name: 1 to 32 letters, digits and _ + # . - (e.g. python, c++, c#)"
)


def _shape_problem(text: str, shape: Shape) -> str | None:
    if shape is Shape.PROSE:
        return fence_problem(text)
    if shape is Shape.WORD:
        return None if LANGUAGE.fullmatch(text) else _NOT_A_LANGUAGE
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
    controls = _control_problem(text, lines=shape is not Shape.LINE)
    return controls or _invisible_problem(text) or _shape_problem(text, shape)


def topic_problem(topic: str) -> str | None:
    """Why `topic` cannot be a topic (a command option's value: one line, `MAX_TOPIC`), or None."""
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
    """The form in which texts that read the same are equal (case kept where `case` counts)."""
    shown = (" " if c.isspace() else c for c in text if c.isspace() or not draws_nothing(c))
    visible = "".join(shown)
    folded = unicodedata.normalize("NFKC", " ".join(visible.split()))
    return folded if case else unicodedata.normalize("NFKC", folded.casefold())
