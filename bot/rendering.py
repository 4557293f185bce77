"""The text of everything the bot shows for a task, as plain strings for the Discord layer,
in the current locale (`bot.i18n`). The content loader checks every bank against these
(`render_problems`), so what a member must read is never cut; every message sent passes
`fit_message`, which cuts the rest with a "…". Where Discord shows text as typed (labels,
choice names), Markdown goes through `plain_text`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from bot.i18n import DISPLAY_NAMES, ENGLISH, N_, SHIPPED_LOCALES, _, ngettext, speaking
from bot.quiz import cloze
from bot.quiz.tasks import Kind, Option, Task

BUTTON_LABEL: Final = 80
SELECT_OPTION_LABEL: Final = 100
SELECT_PLACEHOLDER: Final = 150
EMBED_TITLE: Final = 256
EMBED_DESCRIPTION: Final = 4096
EMBED_FIELD_NAME: Final = 256
EMBED_FIELD_VALUE: Final = 1024
EMBED_FOOTER: Final = 2048
EMBED_AUTHOR: Final = 256
EMBED_FIELDS: Final = 25
EMBED_TOTAL: Final = 6000
"""Over every embed of one message."""
EMBEDS: Final = 10
MESSAGE_CONTENT: Final = 2000
LAYOUT_TEXT: Final = 4000
"""Over every text display of one components-v2 message (the picker)."""
QUOTED_PICK: Final = 100
"""A pick quoted in a reply's first line, which must always show in full."""
MAX_BUTTON_OPTIONS: Final = 20
"""Four rows of five option buttons; the fifth row holds Hint and Answer."""
MAX_SELECT_OPTIONS: Final = 25

ELLIPSIS: Final = "…"
FENCE: Final = "```"
CLOSE_FENCE: Final = "\n```"
# Texts in the current locale: translated where they are used, `_(KIND_TITLES[kind])`.
KIND_TITLES: Final = {
    Kind.CHOICE: N_("Multiple choice"),
    Kind.FILL: N_("Fill in the blank"),
    Kind.MULTI: N_("Several answers"),
    Kind.SHORT: N_("Short answer"),
    Kind.NUMERICAL: N_("Numerical answer"),
    Kind.MATCHING: N_("Matching"),
    Kind.CLOZE: N_("Fill in the parts"),
}
MATCH_INSTRUCTION: Final = N_("Match each item to its answer: press **Answer**.")
TYPE_INSTRUCTION: Final = N_("Type your answer: press **Answer**.")
CLOZE_INSTRUCTION: Final = N_("Answer every part: press **Answer**.")

_DRAWS_NOTHING: Final = frozenset(
    (
        *(0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x2800, 0x3164, 0xFFA0),
        *range(0x180B, 0x1810),
        *range(0xFE00, 0xFE10),
        *range(0xE0100, 0xE01F0),
    )
)
"""Invisible, yet neither format characters nor spaces: fillers, selectors, blank Braille."""


def draws_nothing(char: str) -> bool:
    """Whether `char` shows nothing by itself: for the content check and leaderboard names."""
    category = unicodedata.category(char)
    return category == "Cf" or category[0] == "Z" or ord(char) in _DRAWS_NOTHING


def discord_len(text: str) -> int:
    """Length in UTF-16 code units, as Discord counts (an emoji outside the BMP counts two)."""
    return len(text.encode("utf-16-le")) // 2


def truncate(text: str, limit: int) -> str:
    """`text`, or cut to end with "…" and fit `limit` exactly."""
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
    """`truncate` for Markdown: a cut that leaves a code block open closes it again."""
    cut = truncate(text, limit)
    if cut == text or cut.count(FENCE) % 2 == 0:
        return cut
    room = limit - discord_len(CLOSE_FENCE)
    if room < 1:
        return cut
    cut = truncate(text, room)
    return cut + CLOSE_FENCE if cut.count(FENCE) % 2 else cut


def quoted(text: str, limit: int = QUOTED_PICK) -> str:
    """Task text quoted in a sentence: one line, cut so the sentence always shows in full."""
    return truncate(_one_line(text), limit)


def _one_line(text: str) -> str:
    # Component labels are single-line; a newline inside one renders as a stray gap.
    return " ".join(text.split())


# -- Markdown as plain text: the rules follow Discord's parser (simple-markdown) closely enough
# for bank text; a construct it does not know stays as written, as Discord shows it too.

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
"""Deeper nesting is read as written, so hostile text cannot exhaust the stack."""
PLAIN_SOURCE = 1_000
"""How much text plain labels read (they show 100 characters; more costs quadratic time)."""


def plain_text(markdown: str) -> str:
    """Discord Markdown as the plain text a reader sees: marks dropped, code as written."""
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
    """An option as a label shows it: a fill option (code) as written, a choice's rendered."""
    if kind is Kind.FILL:
        return option.text
    return plain_text(option.text[:PLAIN_SOURCE])


def _labelled(option: Option, limit: int, kind: Kind) -> str:
    prefix = f"{option.label} · "
    text = _one_line(_option_plain(option, kind))
    return prefix + truncate(text, limit - discord_len(prefix))


def option_button_label(option: Option, kind: Kind = Kind.CHOICE) -> str:
    """E.g. "A · split": plain text, cut to fit a button."""
    return _labelled(option, BUTTON_LABEL, kind)


def option_select_label(option: Option, kind: Kind = Kind.FILL) -> str:
    """An option in a blank's select menu."""
    return _labelled(option, SELECT_OPTION_LABEL, kind)


def plain_label(text: str, limit: int) -> str:
    """Bank text in a plain-text place, cut to `limit`; as written if it renders to nothing."""
    shown = _one_line(plain_text(text[: max(limit * 10, PLAIN_SOURCE)])) or _one_line(text)
    return truncate(shown or text, limit)


def escape_markdown(text: str) -> str:
    """Plain text that Discord shows as it is: every possible mark escaped (`_` only where it
    could open or close emphasis, so `snake_case` stays readable in the source)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", text)


_MARKDOWN_PUNCTUATION = re.compile(r"[\\*`~|\[\]<]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def bold(markdown: str) -> str:
    """Bank text in bold, plain and escaped: its own marks could close the bold early."""
    return f"**{escape_markdown(_one_line(plain_text(markdown[:PLAIN_SOURCE])))}**"


def picked_text(task: Task, picks: Sequence[str], limit: int = QUOTED_PICK) -> str:
    """A member's picks in words for a Markdown sentence, as the buttons show them: one line,
    cut to `limit`, escaped. E.g. "B · a\\*b", "[1] to\\_device, [2] devices"."""
    kind = task.kind
    if task.typed:  # the member's own text, as graded (one line, never a mention)
        words = _one_line(",".join(picks))
    elif kind is Kind.MULTI:
        words = ", ".join(f"{p} · {_one_line(_option_plain(task.option(p), kind))}" for p in picks)
    elif kind is Kind.CHOICE or task.blanks == 1:
        words = f"{picks[0]} · {_one_line(_option_plain(task.option(picks[0]), kind))}"
    elif kind is Kind.CLOZE:
        words = ", ".join(f"[{n}] {_one_line(text)}" for n, text in cloze_shown(task, picks))
    elif kind is Kind.MATCHING:
        words = ", ".join(
            f"{_one_line(plain_text(stem))} → {_one_line(_option_plain(task.option(label), kind))}"
            for stem, label in zip(task.stems, picks, strict=False)
        )
    else:
        words = ", ".join(
            f"[{blank}] {_one_line(_option_plain(task.option(label), kind))}"
            for blank, label in enumerate(picks, start=1)
        )
    return escape_markdown(truncate(words, limit))


def blank_placeholder(blank: int) -> str:
    # TRANSLATORS: a blank's select menu before a pick (at most 150 characters).
    return _("Blank [{blank}]").format(blank=blank)


def select_placeholder(task: Task, blank: int) -> str:
    """A picker select's placeholder: the blank, or a matching task's stem."""
    if task.kind is Kind.MATCHING:
        return plain_label(f"{blank}. {task.stems[blank - 1]}", SELECT_PLACEHOLDER)
    return blank_placeholder(blank)


def _kind_title(task: Task) -> str:
    """A single-pick multi task is, to the member, multiple choice."""
    return _(KIND_TITLES[Kind.CHOICE if task.single else task.kind])


def task_title(task: Task) -> str:
    """E.g. "Fill in the blank · MLOps"."""
    return f"{_kind_title(task)} · {task.topic}"


def plain_task_title(task: Task) -> str:
    """`task_title` for a plain-text place."""
    topic = _one_line(plain_text(task.topic[:PLAIN_SOURCE]))
    return f"{_kind_title(task)} · {topic}"


def solution_title(task: Task) -> str:
    # TRANSLATORS: a worked solution's embed title, before the task's "Multiple choice · Topic".
    return _("Solution · {title}").format(title=task_title(task))


def code_span(text: str) -> str:
    """`text` as inline code, fenced by one backtick more than its longest run."""
    if "`" not in text:
        return f"`{text}`"
    fence = "`" * (max(len(run) for run in re.findall("`+", text)) + 1)
    return f"{fence} {text} {fence}"


def _option_lines(task: Task) -> str:
    # Fill options are code tokens; choice options are prose and keep their Markdown.
    show = code_span if task.kind is Kind.FILL else str
    return "\n".join(f"**{o.label}.** {show(o.text)}" for o in task.options)


def code_block(task: Task, code: str) -> str:
    return f"```{task.language}\n{code}\n```"


def task_description(task: Task) -> str:
    """The question (or instruction and code template) followed by every option in full."""
    if task.kind is Kind.CHOICE:
        head = task.prompt
    elif task.kind is Kind.MULTI:
        head = f"{task.prompt}\n\n*{multi_instruction(task)}*"
    elif task.typed:
        return f"{task.prompt}\n\n*{_(TYPE_INSTRUCTION)}*"
    elif task.kind is Kind.CLOZE:
        return f"{cloze_text(task, {})}\n\n{_part_option_lines(task)}*{_(CLOZE_INSTRUCTION)}*"
    elif task.kind is Kind.MATCHING:
        stems = matched_text(task, {})
        instruction = _(MATCH_INSTRUCTION)
        return f"{task.prompt}\n\n{stems}\n\n{_option_lines(task)}\n\n*{instruction}*"
    else:
        head = f"{task.instruction}\n{code_block(task, task.prompt)}"
    return f"{head}\n\n{_option_lines(task)}"


def multi_instruction(task: Task) -> str:
    """What a multi task asks of the member, with how many options are right if shown."""
    if task.single:
        return _("Pick one answer: some earn part of the credit.")
    if task.show_count:
        n = len(task.answers)
        return ngettext("Pick the {n} right answer.", "Pick the {n} right answers.", n).format(n=n)
    return _("Pick every right answer: one or more.")


def matched_text(task: Task, picks: Mapping[int, str]) -> str:
    """A matching task's stems, numbered, each with the answer picked for it so far."""
    lines = []
    for n, stem in enumerate(task.stems, start=1):
        label = picks.get(n)
        picked = f" → **{label}.** {task.option(label).text}" if label else " → …"
        lines.append(f"**{n}.** {stem}{picked}")
    return "\n".join(lines)


def cloze_shown(task: Task, picks: Sequence[str]) -> list[tuple[int, str]]:
    """A cloze task's stored picks as (part, text): a choice part's option text (plain), a
    typed part's text as typed; picks that are not this task's show nothing."""
    answers = cloze.decode(picks)
    if len(answers) != len(task.parts):
        return []
    shown = []
    for n, (part, answer) in enumerate(zip(task.parts, answers, strict=True), 1):
        if part.choice and answer not in part.labels:
            return []
        shown.append((n, plain_text(part.shown(answer)) if part.choice else answer))
    return shown


def cloze_text(task: Task, picks: Mapping[int, str]) -> str:
    """A cloze task's text with each part's place marked `[n]`, and the answer given so far
    (an option's label, or typed text, escaped: it is the member's own, shown to them only)."""

    def place(n: int) -> str:
        got = picks.get(n)
        if not got or n > len(task.parts):
            return f"**[{n}]**"
        part = task.parts[n - 1]
        text = part.shown(got) if part.choice and got in part.labels else got
        return f"**[{n}]** *{escape_markdown(_one_line(plain_text(text)[:PLAIN_SOURCE]))}*"

    return cloze.fill(task.prompt, place)


def _part_option_lines(task: Task) -> str:
    """Each choice part's options, one line a part ("**[1]** A. Austria · B. Germany")."""
    lines = [
        f"**[{n}]** " + " · ".join(f"{label}. {a.text}" for label, a in _labelled_answers(p))
        for n, p in enumerate(task.parts, 1)
        if p.choice
    ]
    return "\n".join(lines) + "\n\n" if lines else ""


def _labelled_answers(part: cloze.ClozePart) -> list[tuple[str, cloze.PartAnswer]]:
    return list(zip(part.labels, part.answers, strict=True))


def filled_code(task: Task, picks: Mapping[int, str]) -> str:
    """The code block with the picked options in place; unpicked blanks stay `[n]`."""
    if task.kind is not Kind.FILL:
        raise ValueError(f"{task.id} is a {task.kind} task; only fill tasks have code")
    return code_block(task, task.filled(picks))


def hint_title(task: Task, number: int) -> str:
    """"Hint" for a task's one hint, "Hint 2 of 3" on a ladder."""
    count = len(task.hints)
    if count == 1:
        return _("Hint")
    # TRANSLATORS: a hint's title on a ladder of several, "Hint 2 of 3".
    return _("Hint {number} of {count}").format(number=number, count=count)


def hint_text(task: Task, number: int) -> str:
    """The task's hint `number`, from 1."""
    return task.hints[number - 1]


def _hint_problems(task: Task) -> list[tuple[str, str]]:
    if len(task.hints) == 1:
        return _too_long("hint", "the hint", hint_text(task, 1), EMBED_FIELD_VALUE)
    problems: list[tuple[str, str]] = []
    for n in range(1, len(task.hints) + 1):
        text = hint_text(task, n)
        problems += _too_long(f"hints[{n - 1}]", f"hint {n}", text, EMBED_FIELD_VALUE)
    return problems


def notes_text(notes: Iterable[str]) -> str:
    return "\n".join(f"• {note}" for note in notes)


def solution_text(task: Task) -> str:
    """The worked solution: whichever parts the task has, and always a final answer."""
    solution = task.solution
    parts = [
        _("**Step {n}: {title}**").format(n=n, title=step.title) + f"\n{step.text}"
        for n, step in enumerate(solution.steps, start=1)
    ]
    if task.kind is Kind.FILL:
        parts.append(code_block(task, task.solved_template()))
    if task.kind is Kind.CLOZE:
        parts.append(cloze.fill(task.prompt, lambda n: f"**{task.parts[n - 1].best_text()}**"))
    parts.append(_("**Final answer:** {answer}").format(answer=task.final_answer()))
    if solution.quick_check:
        parts.append(_("**Quick check:** {check}").format(check=solution.quick_check))
    if solution.explanation:
        parts.append(solution.explanation)
    return "\n\n".join(parts)


# -- one message, fitted -----------------------------------------------------------------------

JSONEmbed = dict[str, Any]
"""An embed in Discord's JSON shape (`Embed.to_dict()`)."""


def fit_message(
    content: str | None, embeds: Sequence[Mapping[str, Any]] = ()
) -> tuple[str | None, list[JSONEmbed]]:
    """`content` and `embeds` cut to Discord's limits, each text to its own, then the embeds
    to their 6,000 total least important first (`_least_important_first`). A description may
    go entirely; anything else keeps at least its "…". The input is left unchanged."""
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


def embeds_size(embeds: Iterable[JSONEmbed]) -> int:
    """What embeds count toward the 6,000 characters of one message."""
    return sum(discord_len(text) for embed in embeds for text in _embed_texts(embed))


def _least_important_first(embeds: list[JSONEmbed]) -> Iterator[tuple[dict[str, Any], str, int]]:
    """(holder, key, shortest allowed) of each text the total may cut: descriptions, values,
    footers, authors, names, titles; later embeds and fields first (a reply leads with what
    matters)."""
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


def _too_long(field: str, what: str, text: str, limit: int) -> list[tuple[str, str]]:
    size = discord_len(text)
    if size <= limit:
        return []
    return [(field, f"{what} is {size:,} characters as rendered; Discord allows {limit:,}")]


def _too_long_in_any(
    field: str, what: str, render: Callable[[], str], limit: int
) -> list[tuple[str, str]]:
    """`_too_long` in the shipped locale that renders `render` longest (German titles and
    instructions may be longer than English ones); says which, if not English."""
    longest, text = ENGLISH, ""
    for locale in SHIPPED_LOCALES:
        with speaking(locale):
            rendered = render()
        if discord_len(rendered) > discord_len(text):
            longest, text = locale, rendered
    found = _too_long(field, what, text, limit)
    if longest == ENGLISH:
        return found
    return [(key, f"{message} (in {DISPLAY_NAMES[longest]})") for key, message in found]


def _option_count_problems(task: Task) -> list[tuple[str, str]]:
    if task.multi_blank:
        limit, shown = MAX_SELECT_OPTIONS, "a select menu per blank"
    elif task.kind is Kind.MULTI:
        limit, shown = MAX_SELECT_OPTIONS, "one select menu"
    else:
        limit, shown = MAX_BUTTON_OPTIONS, "one button per option"
    if len(task.options) <= limit:
        return []
    return [("options", f"{len(task.options)} options, but the bot shows {shown}: at most {limit}")]


def render_problems(task: Task) -> list[tuple[str, str]]:
    """(bank key, message) for each rendered text over its Discord limit, in every shipped
    locale, and too many options. Labels are cut rather than checked: the description shows
    options in full."""
    problems = [
        *_too_long_in_any("topic", "the task title", lambda: task_title(task), EMBED_TITLE),
        *_too_long_in_any("topic", "the solution title", lambda: solution_title(task), EMBED_TITLE),
        *_too_long_in_any(
            "code" if task.kind is Kind.FILL else "question",
            "the task as posted (text, code and all options)",
            lambda: task_description(task),
            EMBED_DESCRIPTION,
        ),
        *_hint_problems(task),
        # Several wrong blanks can bring several notes at once; all of them must still fit.
        *_too_long(
            "mistakes",
            "the mistake notes together",
            notes_text(n.text for n in task.mistakes),
            EMBED_FIELD_VALUE,
        ),
        *_too_long_in_any(
            "solution", "the solution", lambda: solution_text(task), EMBED_DESCRIPTION
        ),
        *_option_count_problems(task),
    ]
    if task.kind is Kind.MATCHING:
        problems += _too_long(
            "pairs",
            "the pairs with the longest answer picked for every item",
            matched_text(task, _longest_picks(task)),
            EMBED_DESCRIPTION,
        )
    elif task.multi_blank:
        problems += _too_long(
            "code",
            "the code with the longest option in every blank",
            filled_code(task, _longest_picks(task)),
            EMBED_DESCRIPTION,
        )
    return problems
