"""HTML from other quiz formats as the Discord Markdown our banks hold, or as plain text for
code; never raw tags. Small on purpose: other tags are dropped, their text kept.

Cost stays linear in anyone's 1 MB of HTML: `_tokens` is one forward scan (3.11's `HTMLParser`
rescans for each unclosed `<`), and lists and marks nest to a bound. `to_markdown` and `to_text`
lay out the same lines, so GIFT can split instruction from code.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from html import unescape
from typing import Final

BLOCKS: Final = frozenset(
    {"p", "div", "ul", "ol", "blockquote", "table", "section", "article", "header", "footer"}
)
HEADINGS: Final = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
DROPPED: Final = frozenset({"script", "style", "head", "title"})
MARKS: Final = {"b": "**", "strong": "**", "i": "*", "em": "*"}
MAX_LIST_INDENT: Final = 4  # list levels shown indented; deeper ones are laid out at this one
MAX_MARK_DEPTH: Final = 8  # inline marks open at once; one inside more is read as its text

_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_ALWAYS = re.compile(r"([\\*`])")
_PAIRS = re.compile(r"(~~|\|\|)")
_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
# `[^\S\n]`, not `\s`: a match may not run on over blank lines (quadratic on "#\n\n\n…").
_LINE_START = re.compile(r"^([^\S\n]*)(#{1,3} |-# |>{1,3} )", re.MULTILINE)
_PRE = "\ue001"  # a `<pre>` block until the layout is cleaned, so its spacing is kept


def escape_markdown(text: str) -> str:
    """`text` with what Discord would read as Markdown escaped (`snake_case` stays)."""
    text = _ALWAYS.sub(r"\\\1", text)
    if "_" in text:
        text = _UNDERSCORE.sub(r"\\_", text)
    if "~~" in text or "||" in text:
        text = _PAIRS.sub(lambda m: "\\" + m[1][0] + "\\" + m[1][1], text)
    if "#" in text or ">" in text:
        text = _LINE_START.sub(r"\1\\\2", text)
    return text


def to_markdown(html: str, *, newlines: bool = False) -> str:
    """`html` as Discord Markdown; `newlines`: spacing counts as typed (Moodle's auto-format)."""
    return _convert(html, markup=True, newlines=newlines)


def to_text(html: str, *, newlines: bool = False) -> str:
    """`html` as plain text for code, laid out in the same lines as `to_markdown`'s."""
    return _convert(html, markup=False, newlines=newlines)


def _convert(html: str, *, markup: bool, newlines: bool) -> str:
    html = html.replace(_PRE, "")  # our placeholder, never the author's text
    if "<" not in html and "&" not in html:
        # No tag and no entity: nothing to parse (most texts).
        text = html if newlines else _SPACES.sub(" ", html)
        text = escape_markdown(text) if markup else text
        return _tidy(text, newlines)
    converter = _Converter(markup=markup, newlines=newlines)
    for kind, value, attrs in _tokens(html):
        if kind == "data":
            converter.handle_data(value)
        elif kind == "start":
            converter.handle_starttag(value, attrs)
        elif kind == "startend":
            converter.handle_startendtag(value, attrs)
        else:
            converter.handle_endtag(value)
    return converter.result()


def _tidy(text: str, newlines: bool) -> str:
    """Trailing spaces off (runs squeezed unless spacing counts), one blank line at most."""
    if "\n" not in text:
        return (text.rstrip() if newlines else " ".join(text.split())).lstrip()
    lines = [line.rstrip() if newlines else _fold(line) for line in text.split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n").lstrip()


_NESTED_ITEM = re.compile(r"^( +)(?:- |\d+\. )")


def _fold(line: str) -> str:
    """Runs of white space become one space; a nested list item keeps its indentation."""
    nested = _NESTED_ITEM.match(line)
    indent = nested.group(1) if nested else ""
    return indent + " ".join(line.split())


class _Converter:
    def __init__(self, *, markup: bool, newlines: bool) -> None:
        self.markup = markup
        self.newlines = newlines
        self.parts: list[str] = []
        self.pending = 0  # line breaks owed before the next text
        self.marks: list[tuple[str, int, str]] = []  # open inline: (tag, start in parts, href)
        self.open_marks: Counter[str] = Counter()  # per tag: a stray end tag needs no search
        self.unmarked: Counter[str] = Counter()  # past MAX_MARK_DEPTH: end tags still due
        self.lists: list[list[int]] = []  # [0]: bulleted, [count]: numbered
        self.pres: list[str] = []
        self.pre: list[str] | None = None
        self.code_depth = 0
        self.dropped = 0
        self.cells = 0  # in the current table row, joined with " | "

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
            depth = min(max(len(self.lists), 1), MAX_LIST_INDENT)
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
            # Left out, but never silently: the reader sees where an image was, and its alt.
            alt = " ".join((dict(attrs).get("alt") or "").split())
            self.handle_data(f"[image: {alt}]" if alt else "[image]")
        elif tag in MARKS or tag in ("code", "a"):
            opened = self._open(tag, dict(attrs).get("href") or "" if tag == "a" else "")
            if tag == "code" and opened:
                self.code_depth += 1

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
            shown = self._close(tag)
            if tag == "code" and shown:
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

    def _open(self, tag: str, href: str) -> bool:
        """Whether the mark is shown (False: it is one too deep, read as its text)."""
        if len(self.marks) >= MAX_MARK_DEPTH:
            # Each level copies all it holds when it closes: past a few, only the text counts.
            self.unmarked[tag] += 1
            return False
        if self.pending:
            self._emit("")
        self.marks.append((tag, len(self.parts), href))
        self.open_marks[tag] += 1
        return True

    def _close(self, tag: str) -> bool:
        """False if the end tag was that of a mark too deep to be shown."""
        if self.unmarked[tag]:
            self.unmarked[tag] -= 1
            return False
        if not self.open_marks[tag]:
            return True  # a stray end tag
        i = len(self.marks) - 1
        while self.marks[i][0] != tag:
            i -= 1
        _, start, href = self.marks[i]
        for closed, _, _ in self.marks[i:]:
            self.open_marks[closed] -= 1
        del self.marks[i:]
        inner = "".join(self.parts[start:])
        del self.parts[start:]
        self.parts.append(self._wrap(tag, inner, href))
        return True

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


_Event = tuple[str, str, list[tuple[str, str | None]]]
"""(kind, tag or decoded text, attributes); kind: "data", "start", "startend" or "end"."""


def _data(text: str) -> _Event:
    return "data", unescape(text), []


RAW_TEXT: Final = frozenset({"script", "style"})  # content runs to the end tag, unread

_NAME = re.compile(r"[a-zA-Z][^\s/>\x00]*")
_GAP = re.compile(r"[\s/]*")
_ATTR_NAME = re.compile(r"[^\s/>][^\s/>=]*")
_EQUALS = re.compile(r"\s*=\s*")
_BARE_VALUE = re.compile(r"[^\s>]*")
_RAW_END = {tag: re.compile(rf"</{tag}(?=[\s/>])", re.IGNORECASE) for tag in RAW_TEXT}


class _Finder:
    """`str.find` failing in constant time once it failed from earlier on: the scan is linear."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.last: dict[str, int] = {}

    def find(self, sub: str, start: int) -> int:
        last = self.last.get(sub)
        if last is None:
            last = self.last[sub] = self.text.rfind(sub)
        return self.text.find(sub, start) if start <= last else -1


def _tokens(html: str) -> Iterator[_Event]:
    """The text and tags of `html` as a browser reads them, in one forward scan."""
    finder = _Finder(html)
    n = len(html)
    text_from = 0
    i = 0
    while True:
        lt = finder.find("<", i)
        if lt < 0:
            break
        # Nothing can end with no `>` after it: the `<` is text.
        read = _markup(html, lt, finder) if finder.find(">", lt) >= 0 else None
        if read is None:
            if lt > text_from:  # a text `<` starts a new piece, as in `HTMLParser`
                yield _data(html[text_from:lt])
                text_from = lt
            i = lt + 1
            continue
        end, event = read
        if lt > text_from:
            yield _data(html[text_from:lt])
        i = text_from = end
        if event is None:
            continue
        yield event
        if event[0] == "start" and event[1] in RAW_TEXT:
            closing = _RAW_END[event[1]].search(html, end)
            i = text_from = closing.start() if closing else n  # the content is dropped
    if text_from < n:
        yield _data(html[text_from:])


def _markup(html: str, lt: int, finder: _Finder) -> tuple[int, _Event | None] | None:
    """Where the markup at `html[lt]` ends and its tag (None: a comment); None if it is text."""
    after = html[lt + 1]
    if after.isascii() and after.isalpha():
        return _start_tag(html, lt, finder)
    if after == "/":
        name = _NAME.match(html, lt + 2)
        if name:
            return finder.find(">", name.end()) + 1, ("end", name[0].lower(), [])
        return finder.find(">", lt + 2) + 1, None  # `</>`, `</ x>`: a comment
    if after == "?":
        return finder.find(">", lt + 2) + 1, None
    if after != "!":
        return None
    if html.startswith("<!--", lt):
        if html.startswith((">", "->"), lt + 4):
            return html.index(">", lt + 4) + 1, None  # `<!-->`, `<!--->`: empty comments
        close = finder.find("-->", lt + 4)
        if close >= 0:
            return close + 3, None
    elif html.startswith("<![CDATA[", lt):
        close = finder.find("]]>", lt + 9)
        if close >= 0:
            return close + 3, None
    return finder.find(">", lt + 2) + 1, None


def _start_tag(html: str, lt: int, finder: _Finder) -> tuple[int, _Event | None] | None:
    name = _NAME.match(html, lt + 1)
    assert name is not None  # a letter follows the `<`
    attrs: list[tuple[str, str | None]] = []
    n = len(html)
    at = name.end()
    while True:
        gap = _GAP.match(html, at)
        assert gap is not None  # matches the empty string
        at = gap.end()
        if at >= n:
            return n, _data(html[lt:])  # every `>` was quoted
        if html[at] == ">":
            closed = gap.end() > gap.start() and html[at - 1] == "/"
            tag = name[0].lower()
            return at + 1, ("startend" if closed else "start", tag, attrs)
        attr = _ATTR_NAME.match(html, at)
        assert attr is not None  # the character at `at` is none of space, `/`, `>`
        at = attr.end()
        value: str | None = None
        equals = _EQUALS.match(html, at)
        if equals:
            at = equals.end()
            quote = html[at : at + 1]
            close = finder.find(quote, at + 1) if quote in ("'", '"') else -1
            if close >= 0:
                value, at = html[at + 1 : close], close + 1
            else:
                bare = _BARE_VALUE.match(html, at)
                assert bare is not None
                value, at = bare[0], bare.end()
            value = unescape(value)
        attrs.append((attr[0].lower(), value))
