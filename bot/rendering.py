"""The text of every message, embed and component the bot shows for a task.

Pure strings, no discord import: the Discord layer builds its embeds, buttons and selects from
these functions. Two things keep every message within Discord's limits:

- the content loader checks every bank against the same functions (`render_problems`), so what
  a member must read in full (the post with every option, the hint, the mistake notes, the
  worked solution) is never cut;
- every message the bot sends or edits passes `fit_message` on its way out, which cuts
  whatever else would not fit (a quoted pick, a summary's last lines, one embed too many for
  the 6,000-character total) with a visible "…", least important parts first.

Where each string goes (the contract the loader validates):

- task post: embed title `task_title`, embed description `task_description`;
- choice tasks and single-blank fill tasks: one button per option, `option_button_label`;
- multi-blank fill tasks: one select per blank, options labelled `option_select_label`,
  above them an embed description with `filled_code` (the member's picks so far);
- hint: an embed field value, `hint_text`;
- wrong answer: an embed field value, `notes_text` of the notes that apply;
- solution: an embed description, `solution_text`, under the title `solution_title`.

Bank text is Discord Markdown. Where Discord shows text as typed (button and select labels,
autocomplete choice names, thread names, modal titles), it goes through `plain_text` first
(`option_button_label`, `plain_label`, `plain_task_title`); where it is quoted inside a
sentence's own Markdown, it is rendered and escaped (`picked_text`, `bold`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from bot.quiz.tasks import Kind, Option, Task

BUTTON_LABEL: Final = 80
SELECT_OPTION_LABEL: Final = 100
SELECT_OPTION_DESCRIPTION: Final = 100
EMBED_TITLE: Final = 256
EMBED_DESCRIPTION: Final = 4096
EMBED_FIELD_NAME: Final = 256
EMBED_FIELD_VALUE: Final = 1024
EMBED_FOOTER: Final = 2048
EMBED_AUTHOR: Final = 256
EMBED_FIELDS: Final = 25
EMBED_TOTAL: Final = 6000
"""Over every embed of one message: titles, descriptions, field names and values, footers,
author names."""
EMBEDS: Final = 10
MESSAGE_CONTENT: Final = 2000
LAYOUT_TEXT: Final = 4000
"""Over every text display of one components-v2 message (the five-blank picker)."""
QUOTED_PICK: Final = 100
"""A member's pick quoted inside a reply's first line, which must always show in full."""
MAX_BUTTON_OPTIONS: Final = 20
"""Four rows of five option buttons; the fifth row holds Hint and Answer."""
MAX_SELECT_OPTIONS: Final = 25

ELLIPSIS: Final = "…"
FENCE: Final = "```"
CLOSE_FENCE: Final = "\n```"
KIND_TITLES: Final = {Kind.CHOICE: "Multiple choice", Kind.FILL: "Fill in the blank"}



_DRAWS_NOTHING: Final = frozenset(
    (
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    )
)
"""Invisible characters that are neither format characters (Cf) nor spaces: Hangul fillers,
the combining grapheme joiner, variation selectors, the blank Braille pattern."""


def draws_nothing(char: str) -> bool:
    """Whether `char` shows nothing by itself: a format character (zero-width space, joiner,
    direction mark), a space, or a filler. The one definition behind "invisible text" in the
    content check and "a name with nothing visible" on the leaderboard."""
    category = unicodedata.category(char)
    return category == "Cf" or category[0] == "Z" or ord(char) in _DRAWS_NOTHING

def discord_len(text: str) -> int:
    """Length as Discord counts it.

    Discord measures in UTF-16 code units (JavaScript string length), so an emoji outside the
    BMP counts twice; counting code points would let such text slip past the limits.
    """
    return len(text.encode("utf-16-le")) // 2


def truncate(text: str, limit: int) -> str:
    """`text` if it fits in `limit`, else cut and ended with "…" so that it fits exactly."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if 2 * len(text) <= limit:
        return text  # a code point is at most two UTF-16 units: it fits, whatever it holds
    units = text.encode("utf-16-le")
    if len(units) // 2 <= limit:
        return text
    budget = limit - discord_len(ELLIPSIS)
    # One cut in UTF-16; a surrogate pair split by it is dropped whole by "ignore".
    kept = units[: 2 * budget].decode("utf-16-le", errors="ignore")
    return kept.rstrip() + ELLIPSIS


def fit_text(text: str, limit: int) -> str:
    """`truncate` for Markdown: a cut that leaves a code block open closes it again, so the
    "…" and whatever follows the text do not render as code (or as raw backticks)."""
    cut = truncate(text, limit)
    if cut == text or cut.count(FENCE) % 2 == 0:
        return cut
    room = limit - discord_len(CLOSE_FENCE)
    if room < 1:
        return cut
    cut = truncate(text, room)
    return cut + CLOSE_FENCE if cut.count(FENCE) % 2 else cut


def quoted(text: str, limit: int = QUOTED_PICK) -> str:
    """Task text quoted inside a sentence (e.g. the option a member picked): one line, cut to
    `limit`, so the sentence around it always shows in full."""
    return truncate(_one_line(text), limit)


def _one_line(text: str) -> str:
    # Component labels are single-line; a newline inside one renders as a stray gap.
    return " ".join(text.split())


# -- Markdown as plain text --------------------------------------------------------------------
#
# Bank text is Discord Markdown, but button labels, select options, autocomplete choices and
# modal titles show text as typed: `a\*b` would read "a\*b" there. `plain_text` renders the
# Markdown the way Discord would, keeping what a reader sees and dropping the marks. The rules
# follow Discord's parser (simple-markdown) closely enough for bank text; a construct it does
# not know stays as written, which is what Discord shows for it too.

_CODE_BLOCK = re.compile(r"```(?:[A-Za-z0-9_+\-.#]*\n)?\n*([\s\S]*?)\n*```")
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,3}[ \t]+|-#[ \t]+|>>>[ \t]+|>[ \t]+)", re.MULTILINE)
_BULLET = re.compile(r"^([ \t]*)[-*][ \t]+(?=\S)", re.MULTILINE)
_INLINE: Final = (
    ("escape", re.compile(r"\\([^0-9A-Za-z\s])")),
    ("emoji", re.compile(r"<a?(:\w+:)\d+>")),
    ("keep", re.compile(r"<(https?://[^\s>]+)>")),
    (
        "link",
        re.compile(
            r"\[((?:\\[\s\S]|[^\[\]\\\n])*)\]\(\s*<?(?:https?://[^\s)>]*)>?"
            r"(?:\s+\"[^\"\n]*\")?\s*\)"
        ),
    ),
    ("code", re.compile(r"(`+)([\s\S]*?[^`])\1(?!`)")),
    ("inner", re.compile(r"\*\*((?:\\[\s\S]|[^\\])+?)\*\*(?!\*)")),
    ("inner", re.compile(r"__((?:\\[\s\S]|[^\\])+?)__(?!_)")),
    (
        "inner",
        re.compile(r"\*(?=\S)((?:\*\*|\\[\s\S]|\s+(?:\\[\s\S]|[^\s*\\]|\*\*)|[^\s*\\])+?)\*(?!\*)"),
    ),
    ("inner", re.compile(r"\b_((?:__|\\[\s\S]|[^\\_])+?)_\b")),
    ("inner", re.compile(r"~~([\s\S]+?)~~(?!_)")),
    ("inner", re.compile(r"\|\|([\s\S]+?)\|\|")),
)
_PLAIN_RUN = re.compile(r"[^\\<\[`*_~|]+")
_ESCAPE_ONLY = re.compile(r"\\([^0-9A-Za-z\s])")
_MAX_NESTING = 16
"""Deeper nesting than any real text has is read as written (escapes still resolved), so
hostile text cannot exhaust the stack."""
PLAIN_SOURCE = 1_000
"""How much of a text the plain-text labels read: they show at most 100 characters, and
Markdown only ever removes characters, so the rest never shows (a mark opened in the first
characters and closed past this stays visible; no real option is that long). Reading more
would cost time in proportion to the square of hostile text's length."""


def plain_text(markdown: str) -> str:
    """Discord Markdown as the plain text a reader sees: escapes resolved, emphasis,
    strike-through, spoiler, code, heading, subtext and quote marks dropped, a masked link
    as its text, a list item with a bullet. Code keeps its content as written."""
    parts: list[str] = []
    start = 0
    for block in _CODE_BLOCK.finditer(markdown):
        parts.append(_plain_prose(markdown[start : block.start()]))
        parts.append(block[1])
        start = block.end()
    parts.append(_plain_prose(markdown[start:]))
    return "".join(parts)


def _plain_prose(text: str) -> str:
    if not text:
        return text
    text = _LINE_MARK.sub("", text)
    text = _BULLET.sub(r"\1• ", text)
    return _plain_inline(text, 0)


def _plain_inline(text: str, depth: int) -> str:
    if depth > _MAX_NESTING:
        return _ESCAPE_ONLY.sub(r"\1", text)
    out: list[str] = []
    i, end = 0, len(text)
    while i < end:
        run = _PLAIN_RUN.match(text, i)
        if run:
            out.append(run[0])
            i = run.end()
            continue
        for kind, rule in _INLINE:
            found = rule.match(text, i)
            if found is None:
                continue
            if kind in ("escape", "emoji", "keep"):
                out.append(found[1])
            elif kind == "code":
                out.append(_code_content(found[2]))
            else:  # a link's text, or what emphasis, strike-through or a spoiler marks
                out.append(_plain_inline(found[1], depth + 1))
            i = found.end()
            break
        else:  # a mark that opens nothing: Discord shows it as written
            out.append(text[i])
            i += 1
    return "".join(out)


def _code_content(code: str) -> str:
    # One space each side is padding (a span that starts or ends with a backtick needs it).
    if len(code) > 2 and code[0] == code[-1] == " " and code.strip():
        return code[1:-1]
    return code


def _option_plain(option: Option, kind: Kind) -> str:
    """An option as a label shows it: a fill option is a code token, shown as written (the
    post shows it as code); a choice option is prose, its Markdown rendered."""
    if kind is Kind.FILL:
        return option.text
    return plain_text(option.text[:PLAIN_SOURCE])


def _labelled(option: Option, limit: int, kind: Kind) -> str:
    prefix = f"{option.label} · "
    text = _one_line(_option_plain(option, kind))
    return prefix + truncate(text, limit - discord_len(prefix))


def option_button_label(option: Option, kind: Kind = Kind.CHOICE) -> str:
    """E.g. "A · split"; the text is shortened so the label fits a button, and shown as
    plain text (a button does not render Markdown)."""
    return _labelled(option, BUTTON_LABEL, kind)


def option_select_label(option: Option, kind: Kind = Kind.FILL) -> str:
    """The label of an option in a blank's select menu (multi-blank fill tasks, whose options
    are code tokens: shown as written)."""
    return _labelled(option, SELECT_OPTION_LABEL, kind)


def plain_label(text: str, limit: int) -> str:
    """Bank text (a topic, a title) in a plain-text place cut to `limit`: an autocomplete
    choice's name, a modal title, a select option's description. Text that renders to
    nothing visible is shown as written, since Discord refuses an empty name."""
    shown = _one_line(plain_text(text[: max(limit * 10, PLAIN_SOURCE)])) or _one_line(text)
    return truncate(shown or text, limit)


def escape_markdown(text: str) -> str:
    """Plain text that Discord Markdown shows exactly as it is: every character that could be
    read as a mark is escaped (a backslash before punctuation is always an escape); `_` only
    where it could open or close emphasis, so `snake_case` reads as written in the source too."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", text)


_MARKDOWN_PUNCTUATION = re.compile(r"[\\*`~|\[\]<]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def bold(markdown: str) -> str:
    """Bank text (a title, a topic) in bold inside a sentence: rendered to its plain text and
    escaped first, since its own marks could close the bold early ("****Py**thon**")."""
    return f"**{escape_markdown(_one_line(plain_text(markdown[:PLAIN_SOURCE])))}**"


def picked_text(task: Task, picks: Sequence[str], limit: int = QUOTED_PICK) -> str:
    """A member's picks in words, for a Markdown sentence ("**…** isn't it"): one line, cut
    to `limit`, as the plain text the buttons show, escaped so no mark in it can break the
    sentence's own. E.g. "B · a\\*b", "[1] to\\_device, [2] devices"."""
    kind = task.kind
    if kind is Kind.CHOICE or task.blanks == 1:
        words = f"{picks[0]} · {_one_line(_option_plain(task.option(picks[0]), kind))}"
    else:
        words = ", ".join(
            f"[{blank}] {_one_line(_option_plain(task.option(label), kind))}"
            for blank, label in enumerate(picks, start=1)
        )
    return escape_markdown(truncate(words, limit))


def blank_placeholder(blank: int) -> str:
    """The placeholder of the select menu for one blank."""
    return f"Blank [{blank}]"


def task_title(task: Task) -> str:
    """E.g. "Fill in the blank · MLOps"."""
    return f"{KIND_TITLES[task.kind]} · {task.topic}"


def plain_task_title(task: Task) -> str:
    """`task_title` for a plain-text place (an autocomplete choice): the topic's Markdown
    rendered, on one line."""
    topic = _one_line(plain_text(task.topic[:PLAIN_SOURCE]))
    return f"{KIND_TITLES[task.kind]} · {topic}"


def solution_title(task: Task) -> str:
    return f"Solution · {task_title(task)}"


def code_span(text: str) -> str:
    """`text` as inline code. A run of backticks inside would close a span of as many early,
    so the fence is one longer than the longest run, padded by a space."""
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(run) for run in re.findall("`+", text)) + 1)
    return f"{fence} {text} {fence}"


def _option_lines(task: Task) -> str:
    # Fill options are code tokens: inline code keeps `//` or `__init__` from turning into
    # Markdown; choice options are prose and keep the author's Markdown.
    show = code_span if task.kind is Kind.FILL else str
    return "\n".join(f"**{o.label}.** {show(o.text)}" for o in task.options)


def code_block(task: Task, code: str) -> str:
    return f"```{task.language}\n{code}\n```"


def task_description(task: Task) -> str:
    """The question (or instruction and code template) followed by every option in full."""
    if task.kind is Kind.CHOICE:
        head = task.prompt
    else:
        head = f"{task.instruction}\n{code_block(task, task.prompt)}"
    return f"{head}\n\n{_option_lines(task)}"


def filled_code(task: Task, picks: Mapping[int, str]) -> str:
    """The code block with the picked options in place; unpicked blanks stay `[n]`."""
    if task.kind is not Kind.FILL:
        raise ValueError(f"{task.id} is a {task.kind} task; only fill tasks have code")
    return code_block(task, task.filled(picks))


def hint_text(task: Task) -> str:
    return task.hint


def notes_text(notes: Iterable[str]) -> str:
    return "\n".join(f"• {note}" for note in notes)


def solution_text(task: Task) -> str:
    """The worked solution: whichever of steps, solved code, final answer, quick check and
    explanation the task has; the final answer falls back to the answer in words."""
    solution = task.solution
    parts = [
        f"**Step {n}: {step.title}**\n{step.text}" for n, step in enumerate(solution.steps, start=1)
    ]
    if task.kind is Kind.FILL:
        parts.append(code_block(task, task.solved_template()))
    parts.append(f"**Final answer:** {task.final_answer()}")
    if solution.quick_check:
        parts.append(f"**Quick check:** {solution.quick_check}")
    if solution.explanation:
        parts.append(solution.explanation)
    return "\n\n".join(parts)


# -- one message, fitted -----------------------------------------------------------------------

JSONEmbed = dict[str, Any]
"""An embed in Discord's JSON shape (what discord.py's `Embed.to_dict()` gives)."""


def fit_message(
    content: str | None, embeds: Sequence[Mapping[str, Any]] = ()
) -> tuple[str | None, list[JSONEmbed]]:
    """`content` and `embeds` cut to Discord's limits; every send and edit goes through this.

    Each text is first cut to its own limit. Content keeps its beginning, where every reply
    puts its outcome line. Then, while the embeds together are over 6,000 characters, text is
    cut least important first: descriptions, field values, footers, author names, field
    names, titles; within each, later embeds and fields first (a reply leads with what
    matters). A description may go entirely; anything else keeps at least its "…", so the
    result is always valid. The input is left unchanged.
    """
    if content:
        content = fit_text(content, MESSAGE_CONTENT)
    fitted = [_fit_embed(embed) for embed in embeds[:EMBEDS]]
    over = embeds_size(fitted) - EMBED_TOTAL
    for holder, key, least in _least_important_first(fitted):
        if over <= 0:
            break
        size = discord_len(holder[key])
        keep = max(least, size - over)
        if keep >= size:
            continue
        if keep:
            holder[key] = fit_text(holder[key], keep)
        else:
            del holder[key]
        over -= size - discord_len(holder.get(key, ""))
    return content, fitted


def _fit_embed(embed: Mapping[str, Any]) -> JSONEmbed:
    out = dict(embed)
    if out.get("title"):
        out["title"] = truncate(out["title"], EMBED_TITLE)
    if out.get("description"):
        out["description"] = fit_text(out["description"], EMBED_DESCRIPTION)
    if "fields" in out:
        out["fields"] = [
            {
                **f,
                "name": truncate(f["name"], EMBED_FIELD_NAME),
                "value": fit_text(f["value"], EMBED_FIELD_VALUE),
            }
            for f in out["fields"][:EMBED_FIELDS]
        ]
    for part, key, limit in (("footer", "text", EMBED_FOOTER), ("author", "name", EMBED_AUTHOR)):
        if (out.get(part) or {}).get(key):
            out[part] = {**out[part], key: truncate(out[part][key], limit)}
    return out


def _embed_texts(embed: JSONEmbed) -> Iterator[str]:
    yield embed.get("title") or ""
    yield embed.get("description") or ""
    for f in embed.get("fields") or ():
        yield f.get("name") or ""
        yield f.get("value") or ""
    yield (embed.get("footer") or {}).get("text") or ""
    yield (embed.get("author") or {}).get("name") or ""


def _embed_size(embed: JSONEmbed) -> int:
    return sum(discord_len(text) for text in _embed_texts(embed))


def embeds_size(embeds: Iterable[JSONEmbed]) -> int:
    """What embeds count toward the 6,000 characters of one message."""
    return sum(_embed_size(embed) for embed in embeds)


def _least_important_first(embeds: list[JSONEmbed]) -> Iterator[tuple[dict[str, Any], str, int]]:
    """(holder, key, shortest allowed) of every text the 6,000 total may cut, in cutting order."""
    last_first = embeds[::-1]
    for embed in last_first:
        if embed.get("description"):
            yield embed, "description", 0
    for embed in last_first:
        for f in (embed.get("fields") or [])[::-1]:
            yield f, "value", 1
    for part, key in (("footer", "text"), ("author", "name")):
        for embed in last_first:
            if (embed.get(part) or {}).get(key):
                yield embed[part], key, 1
    for embed in last_first:
        for f in (embed.get("fields") or [])[::-1]:
            yield f, "name", 1
    for embed in last_first:
        if embed.get("title"):
            yield embed, "title", 1


def _longest_picks(task: Task) -> dict[int, str]:
    # The filled code is longest when every blank holds the longest option.
    longest = max(task.options, key=lambda o: discord_len(o.text))
    return dict.fromkeys(range(1, task.blanks + 1), longest.label)


def _prompt_field(task: Task) -> str:
    return "question" if task.kind is Kind.CHOICE else "code"


def _too_long(field: str, what: str, text: str, limit: int) -> list[tuple[str, str]]:
    size = discord_len(text)
    if size <= limit:
        return []
    return [(field, f"{what} is {size:,} characters as rendered; Discord allows {limit:,}")]


def _option_count_problems(task: Task) -> list[tuple[str, str]]:
    if task.multi_blank:
        limit, shown = MAX_SELECT_OPTIONS, "a select menu per blank"
    else:
        limit, shown = MAX_BUTTON_OPTIONS, "one button per option"
    if len(task.options) <= limit:
        return []
    return [("options", f"{len(task.options)} options, but the bot shows {shown}: at most {limit}")]


def render_problems(task: Task) -> list[tuple[str, str]]:
    """(field, message) for every rendered string over its Discord limit, and too many options.

    Fields name the bank key the text comes from, so the loader can point at its line.
    Option labels are truncated rather than checked: the description shows options in full.
    """
    problems = [
        *_too_long("topic", "the task title", task_title(task), EMBED_TITLE),
        *_too_long("topic", "the solution title", solution_title(task), EMBED_TITLE),
        *_too_long(
            _prompt_field(task),
            "the task as posted (text, code and all options)",
            task_description(task),
            EMBED_DESCRIPTION,
        ),
        *_too_long("hint", "the hint", hint_text(task), EMBED_FIELD_VALUE),
        # Several wrong blanks can bring several notes at once; all of them must still fit.
        *_too_long(
            "mistakes",
            "the mistake notes together",
            notes_text(n.text for n in task.mistakes),
            EMBED_FIELD_VALUE,
        ),
        *_too_long("solution", "the solution", solution_text(task), EMBED_DESCRIPTION),
        *_option_count_problems(task),
    ]
    if task.multi_blank:
        problems += _too_long(
            "code",
            "the code with the longest option in every blank",
            filled_code(task, _longest_picks(task)),
            EMBED_DESCRIPTION,
        )
    return problems
