"""Every importer, and the HTML converter, costs work and output in proportion to its input.

Each test builds a hostile structure (nesting, unclosed markup, many siblings, blank lines,
long runs of one character, …) at a size n and at 4n (doubled twice), and asserts that the
output grows at most about 4 times and the CPU time at most 8 times: twice what linear growth
gives, half what quadratic growth gives. Time is the least of a few runs of CPU time (not
wall-clock), compared within the test, so a busy shared machine slows both sizes alike.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.content import importers, uploads
from bot.content.importers import aiken, gift, html_text, moodle_xml, page
from bot.content.importers.drafts import Draft, ImportResult, merged_order, unique_ids

GROWTH = 4
"""The larger input is this many times the smaller."""
MAX_OUTPUT_RATIO = 4.5
MAX_TIME_RATIO = 8.0
SLACK_SECONDS = 0.003
"""CPU time below this is noise: a run this short says nothing about growth."""
REPEATS = 3

PROPERTY = settings(
    max_examples=2,
    deadline=None,
    derandomize=True,
    phases=(Phase.explicit, Phase.generate),  # a failure is reported as found, not shrunk
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
WORDS = st.text(alphabet="abxyz019 _*#>", min_size=1, max_size=4)


def _timed(run: Callable[[], str]) -> tuple[float, str]:
    # Python's cyclic collector runs more often as live objects pile up, which is superlinear
    # in itself: timed without it, the growth measured is the code's.
    gc.disable()
    try:
        start = time.thread_time()  # this thread alone: a worker may run others
        out = run()
        return time.thread_time() - start, out
    finally:
        gc.enable()


def _best(convert: Callable[[int], str], size: int) -> tuple[float, str]:
    return min(_timed(lambda: convert(size)) for _ in range(REPEATS))


def assert_linear(convert: Callable[[int], str], n: int) -> None:
    """`convert(size)` builds the hostile input of that size and returns the output."""
    small, small_out = _best(convert, n)
    large, large_out = _timed(lambda: convert(GROWTH * n))
    for _ in range(REPEATS - 1):  # more runs only when the first looks too slow (noise)
        if large <= MAX_TIME_RATIO * small + SLACK_SECONDS:
            break
        large = min(large, _timed(lambda: convert(GROWTH * n))[0])
    assert len(large_out) <= MAX_OUTPUT_RATIO * len(small_out) + 200, (
        f"output grew from {len(small_out):,} to {len(large_out):,} characters for "
        f"{GROWTH}x the input"
    )
    assert large <= MAX_TIME_RATIO * small + SLACK_SECONDS, (
        f"CPU time grew from {small * 1000:.1f} ms to {large * 1000:.1f} ms for {GROWTH}x the input"
    )


@dataclass(frozen=True)
class Shape:
    """A hostile structure: `head` n times, then `middle`, then `tail` n times, between `before`
    and `after`."""

    head: str
    middle: str = ""
    tail: str = ""
    before: str = ""
    after: str = ""

    def build(self, n: int) -> str:
        return self.before + self.head * n + self.middle + self.tail * n + self.after


LIST = 300
"""Nested lists: their output grew quadratically, so few levels tell."""
SCAN = 2000
"""Markup whose reading took quadratic time: enough of it that this shows."""


def _html_shapes(word: str) -> list[tuple[Shape, int]]:
    return [
        (Shape(f"<ul><li>{word}"), LIST),  # the issue's case: every level indented again
        (Shape(f"<ol><li>{word}", "", "</li></ol>"), LIST),
        (Shape("<ul><li><ol><li>", word, "</li></ol></li></ul>"), LIST),
        (Shape("<b>", word, "</b>"), SCAN),  # each level copied all it held
        (Shape("<code><a href='u'><i>", word, "</i></a></code>"), SCAN),
        (Shape("<b>", word, "</i>"), SCAN),  # stray end tags searched every open mark
        (Shape(f"<a {word}"), SCAN),  # unclosed tags: Python 3.11's parser rescanned to the end
        (Shape(f"</a{word}"), SCAN),
        (Shape(f"<!-- {word} >"), SCAN),
        (Shape(f"<![CDATA[{word}>"), SCAN),
        (Shape(f"<?{word}"), SCAN),
        (Shape(f'<a title="{word}>'), SCAN),
        (Shape(f"<p>{word}</p><p></p><br>"), SCAN),
        (Shape(f"&amp;{word}&lt;&#42;"), SCAN),
        (Shape(f"{word}*_~|\\`#> "), SCAN),
        (Shape("<script>", word), SCAN),
    ]


@pytest.mark.parametrize("which", range(16))
@given(word=WORDS, markup=st.booleans())
@PROPERTY
def test_html_converter_is_linear(word: str, which: int, markup: bool) -> None:
    shape, n = _html_shapes(word)[which]
    convert = html_text.to_markdown if markup else html_text.to_text
    assert_linear(lambda size: convert(shape.build(size)), n)


@given(word=WORDS)
@PROPERTY
def test_markdown_escapes_are_linear_over_blank_lines(word: str) -> None:
    # `^(\s*)#` ran from every line start over all the blank lines after it.
    assert_linear(lambda n: html_text.to_markdown(f"# {word}" + "\n" * n, newlines=True), 1500)
    assert_linear(lambda n: html_text.escape_markdown(">" + " \n" * n + word), 1500)


def _bank(result: ImportResult) -> str:
    """What an import gives: its drafts (every field), and the report. The hostile part is
    inside a question that is imported, so the test measures the importer reading it, not a
    quick refusal. (Writing the drafts as YAML is per task, and slow enough to hide the rest.)"""
    assert result.drafts, [r.message for r in result.report]
    return repr(result.drafts) + "".join(r.message for r in result.report)


def _gift_shapes(word: str) -> list[tuple[Shape, int]]:
    question = {"before": "::q:: [html]", "after": " {=a ~b}"}
    html = [(Shape(s.head, s.middle, s.tail, **question), n) for s, n in _html_shapes(word)[:9]]
    return [
        *html,
        (Shape("", "", f"\n- {word}", f"::q:: {word} {{=a ~b#", "}"), 1000),  # many notes
        (
            Shape(
                "", "", f"\\n\\n**Explanation:** {word * 10}", "::q:: [markdown]q {=a ~b####", "}"
            ),
            6000,  # each one was joined to all before it
        ),
        (Shape("", "", "\n\n::q:: q {=a ~b}"), 40),  # one title: ids made unique
        (Shape("", "", f"\n\n// {word}\n\n\n", after="\n\n::q:: q {=a ~b}"), 2000),
        (Shape(f"{word}\\{{\\}}\\~\\=\\#\\: ", before="::q:: ", after=" {=a ~b}"), 1000),
    ]


@pytest.mark.parametrize("which", range(14))
@given(word=WORDS)
@PROPERTY
def test_gift_import_is_linear(word: str, which: int) -> None:
    shape, n = _gift_shapes(word)[which]
    assert_linear(lambda size: _bank(gift.parse(shape.build(size), source="x.gift")), n)


def test_ids_already_taken_are_skipped_once() -> None:
    # `a`, then a-2 … a-n+1 taken, then n more `a`: each repeat searched all the taken ones.
    def ids(n: int) -> str:
        taken = [f"a-{i}" for i in range(2, n + 2)]
        drafts = [Draft(id, "choice", [], []) for id in ["a", *taken, *["a"] * n]]
        unique_ids(drafts)
        return " ".join(d.id for d in drafts)

    assert_linear(ids, 1000)


def test_notes_are_ordered_in_linear_time() -> None:
    # Every option's notes in one order: each note was compared with all the notes before it.
    def order(n: int) -> str:
        notes = [f"note {i}" for i in range(n)]
        return " ".join(merged_order([notes, notes[::2], notes[1::3]]))

    assert_linear(order, 1000)


def _moodle(question: str, extra: str = "", tags: str = "") -> str:
    return (
        '<?xml version="1.0"?><quiz><question type="multichoice"><name><text>q</text></name>'
        f'<questiontext format="{"markdown" if tags else "html"}"><text><![CDATA[{question}]]>'
        f"</text></questiontext>{extra}"
        '<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text>'
        f"</answer>{tags}</question></quiz>"
    )


@pytest.mark.parametrize("which", range(19))
@given(word=WORDS)
@PROPERTY
def test_moodle_xml_import_is_linear(word: str, which: int) -> None:
    shapes = [(s, n, lambda t: _moodle(t)) for s, n in _html_shapes(word)]

    def fb(text: str) -> str:
        return (
            f'<generalfeedback format="markdown"><text><![CDATA[{text}]]></text></generalfeedback>'
        )

    shapes += [
        (Shape("", "x", f"\n**Final answer:** {word * 10}"), 6000, lambda t: _moodle("q", fb(t))),
        (Shape("", "x", f"\n**Quick check:** {word * 10}"), 6000, lambda t: _moodle("q", fb(t))),
        (
            Shape(f"{word}\n\n```\n", after="end"),  # a fence sought from each "```"
            2000,
            lambda t: _moodle(
                t, tags=f"<tags><tag><text>{moodle_xml.FILL_TAG}</text></tag></tags>"
            ),
        ),
    ]
    shape, n, wrap = shapes[which]
    assert_linear(lambda size: _bank(moodle_xml.parse(wrap(shape.build(size)), source="q.xml")), n)


@pytest.mark.parametrize("which", range(3))
@given(word=WORDS)
@PROPERTY
def test_aiken_import_is_linear(word: str, which: int) -> None:
    shape, n = [
        (Shape("", f"{word}?", "\n"), 8000),  # blank lines before the options: each looked ahead
        (Shape(f"{word}?\nA) x\nB) y\nANSWER: A\n\n"), 60),
        (Shape(f"{word}?\n" + "\n" * 50), 100),
    ][which]

    def bank(size: int) -> str:
        return _bank(aiken.parse(shape.build(size) + "\nA) x\nB) y\nANSWER: B\n", source="a"))

    assert_linear(bank, n)


_PAGE_TASK = "\n\n1. Q?\n\neasy\n\nA. x\n\nB. y\n\nSolution\n\nFinal Answer: x -> Option A\n"


@pytest.mark.parametrize("which", range(5))
@given(word=WORDS.filter(str.strip))
@PROPERTY
def test_practice_page_import_is_linear(word: str, which: int) -> None:
    def overlapping(size: int) -> str:
        option = "ab" * size
        return (
            "T - Practice\n\n1fill in blank\n\neasy\n\nDo x\n\ncode [1]\n\n"
            f"Drag options to blanks\n\nA{option}\n\nBy\n\nCommon Mistakes\n\n{'ab' * 2 * size} y\n"
        )

    build, n = [
        (lambda size: "T" + " " * size + "x - Practice" + _PAGE_TASK, 50_000),  # title spaces
        (lambda size: "".join(f"w{i}{word} " for i in range(size)) + _PAGE_TASK, 3000),
        (lambda size: "T\n\n1. Q?\n\neasy\n\nA. x\n" + f"{word}\n" * size + _PAGE_TASK, 1000),
        (overlapping, 8000),  # an option found at every second character of the explanation
        (lambda size: "T" + _PAGE_TASK + "\n\n1. Q?\n\neasy\n\n" + "A. x\n" * size, 1000),
    ][which]
    # A topic of its own, so the title's words are all candidates for the ids' prefix.
    assert_linear(lambda size: _bank(page.parse(build(size), source="p", topic="zz")), n)


@pytest.mark.parametrize("which", range(3))
def test_format_detection_is_linear(which: int) -> None:
    build = [
        lambda size: "\n" * size + "1 fill",  # `^\s*\d+` from every line start
        lambda size: " \n" * size,
        lambda size: "bank:\n" * size,  # `^bank:.*^tasks:` from every `bank:` line
    ][which]

    def detect(size: int) -> str:
        text = build(size)
        try:
            return uploads.format_of("x.txt", text)
        except importers.UnknownFormatError:
            return ""

    assert_linear(detect, 5000)


def test_a_yaml_upload_is_linear() -> None:
    task = (
        "  - id: t{i}\n    kind: choice\n    question: What is {i}?\n    options: [a, b]\n"
        "    answer: A\n    difficulty: easy\n    hint: Think.\n"
        "    solution:\n      final_answer: a\n"
    )

    def check(size: int) -> str:
        text = "bank: b\ntopic: t\ntasks:\n" + "".join(task.format(i=i) for i in range(size))
        result = uploads.check_upload(text.encode(), "b.yaml")
        assert isinstance(result, uploads.UploadedBank)
        return result.yaml

    assert_linear(check, 40)
