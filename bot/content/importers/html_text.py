"""HTML from other quiz formats (GIFT's `[html]` and `[moodle]` texts, Moodle XML) as the Discord
Markdown our banks hold, or as plain text for code. Never raw tags.

Kept small on purpose: paragraphs and `<div>`s become blank-line breaks, `<br>` a line break,
`<b>`/`<strong>` `**bold**`, `<i>`/`<em>` `*italic*`, `<code>` a code span, `<pre>` a fenced
code block, `<ul>`/`<ol>` items `- item` / `1. item`, links `text (url)`, headings a bold
paragraph, images their alt text. Every other tag is dropped and its text kept; `<script>` and
`<style>` are dropped with their content. Entities are decoded (`html.unescape`, through the
standard parser). Text outside code is escaped so Discord shows it as written: `2*3*4` stays
`2*3*4`, not an italic 3.

`to_markdown` and `to_text` lay out the same lines (only inline marks and escapes differ), so a
caller may find a place in one and take the matching line from the other: the GIFT importer does
that to split a missing-word question into instruction (Markdown) and code (plain text).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Final

BLOCKS: Final = frozenset(
    {"p", "div", "ul", "ol", "blockquote", "table", "section", "article", "header", "footer"}
)
HEADINGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
DROPPED: Final = frozenset({"script", "style", "head", "title"})
MARKS: Final = {"b": "**", "strong": "**", "i": "*", "em": "*"}

_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_ALWAYS = re.compile(r"([\\*`])")
_PAIRS = re.compile(r"(~~|\|\|)")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_LINE_START = re.compile(r"^(\s*)(#{1,3} |-# |>{1,3} )", re.MULTILINE)
_PRE = "\ue001"
"""Stands for a `<pre>` block until the layout is cleaned, so its spacing is never touched."""


def escape_markdown(text: str) -> str:
    """`text` with the characters Discord would read as Markdown escaped.

    `\\`, `*` and backticks always; `_` only where it could start or end an emphasis (so
    `snake_case` stays as written); `~~` and `||` (strike-through, spoiler); `#`, `-#` and `>` at
    the start of a line (headings, subtext, quotes)."""
    text = _ALWAYS.sub(r"\\\1", text)
    if "_" in text:
        text = _UNDERSCORE.sub(r"\\_", text)
    if "~~" in text or "||" in text:
        text = _PAIRS.sub(lambda m: "\\" + m[1][0] + "\\" + m[1][1], text)
    if "#" in text or ">" in text:
        text = _LINE_START.sub(r"\1\\\2", text)
    return text


def to_markdown(html: str, *, newlines: bool = False) -> str:
    """`html` as Discord Markdown.

    `newlines`: the text is Moodle's "auto-format", where line breaks and spaces count as typed
    (HTML may still appear); otherwise whitespace collapses as in a browser."""
    return _convert(html, markup=True, newlines=newlines)


def to_text(html: str, *, newlines: bool = False) -> str:
    """`html` as plain text with no Markdown added or escaped (for code and code options);
    `<pre>` blocks are still fenced, so the lines match `to_markdown`'s."""
    return _convert(html, markup=False, newlines=newlines)


def _convert(html: str, *, markup: bool, newlines: bool) -> str:
    html = html.replace(_PRE, "")  # our placeholder, never the author's text
    if "<" not in html and "&" not in html:
        # No tag and no entity: nothing to parse (most texts).
        text = html if newlines else _SPACES.sub(" ", html)
        text = escape_markdown(text) if markup else text
        return _tidy(text, newlines)
    converter = _Converter(markup=markup, newlines=newlines)
    converter.feed(html)
    converter.close()
    return converter.result()


def _tidy(text: str, newlines: bool) -> str:
    """Trailing spaces off every line (and, unless spacing counts as typed, runs of spaces
    squeezed), at most one blank line in a row, no blank ends."""
    if "\n" not in text:
        return (text.rstrip() if newlines else " ".join(text.split())).lstrip()
    lines = [line.rstrip() if newlines else _fold(line) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out).lstrip()


_NESTED_ITEM = re.compile(r"^( +)(?:- |\d+\. )")


def _fold(line: str) -> str:
    """Runs of white space become one space; a nested list item keeps its indentation."""
    nested = _NESTED_ITEM.match(line)
    indent = nested.group(1) if nested else ""
    return indent + " ".join(line.split())


class _Converter(HTMLParser):
    def __init__(self, *, markup: bool, newlines: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.markup = markup
        self.newlines = newlines
        self.parts: list[str] = []
        self.pending = 0
        """Line breaks owed before the next text (2: a paragraph break)."""
        self.marks: list[tuple[str, int, str]] = []
        """Open inline elements: (tag, index in parts where they start, href for links)."""
        self.lists: list[list[int]] = []
        """Open lists: [0] for a bulleted one, [count] for a numbered one."""
        self.pres: list[str] = []
        self.pre: list[str] | None = None
        self.code_depth = 0
        self.dropped = 0
        self.cells = 0
        """Cells begun in the current table row: they are joined with " | "."""

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """`<![CDATA[…]]>` and Word's `<![if …]>` as Python reads them; any other `<![…>` as a
        browser does, as a comment (Python 3.11's parser raises AssertionError on it, and
        `<![` is ordinary text in a question about XML)."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            return self.parse_bogus_comment(i, report)

    # Layout ---------------------------------------------------------------------------------

    def _break(self, lines: int) -> None:
        if self.parts:
            self.pending = max(self.pending, lines)

    def _emit(self, text: str) -> None:
        if self.pending:
            self.parts.append("\n" * self.pending)
            self.pending = 0
        self.parts.append(text)

    def result(self) -> str:
        text = _tidy("".join(self.parts), self.newlines)
        if self.pres:
            text = re.sub(_PRE + r"(\d+)" + _PRE, lambda m: self.pres[int(m[1])], text)
        return text

    # Parser callbacks -----------------------------------------------------------------------

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED:
            self.dropped += 1
        elif self.pre is not None:
            if tag == "br":
                self.pre.append("\n")
        elif tag == "br":
            self._emit("\n")
        elif tag == "pre":
            self._break(2)
            self.pre = []
        elif tag in BLOCKS or tag in HEADINGS:
            # A list inside a list item continues it on the next line, indented.
            self._break(1 if tag in ("ul", "ol") and self.lists else 2)
            if tag in ("ul", "ol"):
                self.lists.append([0 if tag == "ul" else 1])
            elif tag in HEADINGS:
                self._open(tag, "")
        elif tag == "li":
            self._break(1)
            depth = max(len(self.lists), 1)
            counter = self.lists[-1] if self.lists else [0]
            bullet = f"{counter[0]}. " if counter[0] else "- "
            if counter[0]:
                counter[0] += 1
            self._emit("  " * (depth - 1) + bullet)
        elif tag in ("tr",):
            self._break(1)
            self.cells = 0
        elif tag in ("td", "th"):
            if self.cells:
                self._emit(" | ")
            self.cells += 1
        elif tag == "img":
            alt = dict(attrs).get("alt")
            if alt:
                self.handle_data(alt)
        elif tag in MARKS or tag in ("code", "a"):
            if tag == "code":
                self.code_depth += 1
            self._open(tag, dict(attrs).get("href") or "" if tag == "a" else "")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED:
            return
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "img", "li", "td", "th", "tr"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED:
            self.dropped = max(self.dropped - 1, 0)
        elif tag == "pre" and self.pre is not None:
            code = "".join(self.pre).strip("\n").rstrip()
            self.pre = None
            self._emit(f"{_PRE}{len(self.pres)}{_PRE}")
            self.pres.append(f"```\n{code}\n```")
            self._break(2)
        elif self.pre is not None:
            return
        elif tag in BLOCKS or tag in HEADINGS:
            if tag in HEADINGS:
                self._close(tag)
            elif tag in ("ul", "ol") and self.lists:
                self.lists.pop()
            self._break(1 if tag in ("ul", "ol") and self.lists else 2)
        elif tag == "li":
            self._break(1)
        elif tag in MARKS or tag in ("code", "a"):
            self._close(tag)
            if tag == "code":
                self.code_depth = max(self.code_depth - 1, 0)

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.pre is not None:
            self.pre.append(data)
            return
        if not self.newlines:
            data = _SPACES.sub(" ", data)
        if self.pending and not data.strip():
            return
        if self.markup and not self.code_depth:
            data = escape_markdown(data)
        self._emit(data)

    # Inline elements ------------------------------------------------------------------------

    def _open(self, tag: str, href: str) -> None:
        if self.pending:
            self._emit("")
        self.marks.append((tag, len(self.parts), href))

    def _close(self, tag: str) -> None:
        for i in range(len(self.marks) - 1, -1, -1):
            if self.marks[i][0] == tag:
                break
        else:
            return  # a stray end tag
        _, start, href = self.marks[i]
        del self.marks[i:]
        inner = "".join(self.parts[start:])
        del self.parts[start:]
        self.parts.append(self._wrap(tag, inner, href))

    def _wrap(self, tag: str, inner: str, href: str) -> str:
        body = inner.strip()
        if not body:
            return inner
        lead = inner[: len(inner) - len(inner.lstrip())]
        trail = inner[len(inner.rstrip()) :]
        if tag == "a":
            shown = body if not href or href == body else f"{body} ({href})"
        elif not self.markup:
            shown = body
        elif tag == "code":
            shown = f"`` {body} ``" if "`" in body else f"`{body}`"
        elif tag in HEADINGS:
            shown = f"**{body}**"
        else:
            shown = f"{MARKS[tag]}{body}{MARKS[tag]}"
        return lead + shown + trail
