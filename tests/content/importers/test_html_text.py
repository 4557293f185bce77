"""HTML from other quiz formats as Discord Markdown (or plain text for code): never raw tags."""

from __future__ import annotations

import pytest

from bot.content.importers.html_text import escape_markdown, to_markdown, to_text


@pytest.mark.parametrize(
    ("html", "markdown", "text"),
    [
        ("<p>One</p><p>Two<br>three</p>", "One\n\nTwo\nthree", "One\n\nTwo\nthree"),
        (
            "<b>bold</b> <strong> strong </strong> <i>it</i> <em>em</em>",
            "**bold** **strong** *it* *em*",
            "bold strong it em",
        ),
        ("<code>a*b_c</code> and 2*3", "`a*b_c` and 2\\*3", "a*b_c and 2*3"),
        ("<code>a`b</code>", "`` a`b ``", "a`b"),
        (
            "<pre><code>def f():\n    return {1: 2}\n</code></pre><p>after</p>",
            "```\ndef f():\n    return {1: 2}\n```\n\nafter",
            "```\ndef f():\n    return {1: 2}\n```\n\nafter",
        ),
        (
            "<ul><li>one</li><li>two <b>2</b></li></ul><ol><li>a</li><li>b</li></ol>",
            "- one\n- two **2**\n\n1. a\n2. b",
            "- one\n- two 2\n\n1. a\n2. b",
        ),
        (
            '<a href="https://x.org/a_b">the site</a> <a href="https://y.org">https://y.org</a>',
            "the site (https://x.org/a_b) https://y.org",
            "the site (https://x.org/a_b) https://y.org",
        ),
        ("<h2>Title</h2>body", "**Title**\n\nbody", "Title\n\nbody"),
        (
            '<img src="g.png" alt="a graph"> below',
            "[image: a graph] below",
            "[image: a graph] below",
        ),
        ("<script>alert(1)</script><style>p{}</style>kept", "kept", "kept"),
        ("<div><span>a</span>\n\n   <span>b</span></div>", "a b", "a b"),
        ("<b></b>empty <i> </i>", "empty", "empty"),
        ("unclosed <b>bold", "unclosed bold", "unclosed bold"),
        ("<blink>odd</blink> tags <x-y z=1>go</x-y>", "odd tags go", "odd tags go"),
    ],
)
def test_html_conversion(html: str, markdown: str, text: str) -> None:
    assert to_markdown(html) == markdown
    assert to_text(html) == text


def test_entities_are_decoded_and_a_decoded_tag_is_text() -> None:
    assert to_text("x &lt;b&gt; &amp; &quot;q&quot; &#65; &eacute;") == 'x <b> & "q" A é'
    assert to_markdown("&lt;b&gt;bold?&lt;/b&gt;") == "<b>bold?</b>"


def test_a_lone_angle_bracket_is_text() -> None:
    assert to_markdown("a < b and c > d") == "a < b and c > d"
    assert to_markdown("if x<1 or y <= 2: <b>x</b>") == "if x<1 or y <= 2: **x**"


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ("what <![ starts", "what <![ starts"),
        ("<![foo[ bar ]]> after", "after"),
        ("a<![=>b", "ab"),
        ("x <![if !supportLists]>1.<![endif]> item", "x 1. item"),
    ],
)
def test_an_unknown_marked_section_is_read_as_a_browser_reads_it(html: str, text: str) -> None:
    # Python's parser raised AssertionError on all but the last: a browser reads a `<![…>` it
    # does not know as a comment (shows nothing); with no `>` after it, it is text.
    assert to_text(html) == text
    assert to_markdown(html) == text


def test_moodle_auto_format_keeps_line_breaks_and_spacing() -> None:
    html = "line one\n    indented <b>x</b>\n\n\n\nline three  "
    assert to_markdown(html, newlines=True) == "line one\n    indented **x**\n\nline three"
    assert to_text(html, newlines=True) == "line one\n    indented x\n\nline three"
    assert to_markdown("a\n  b") == "a b"  # HTML: a line break is a space


def test_markdown_and_text_have_the_same_lines() -> None:
    html = "<p>Intro <b>*</b></p><ul><li>x</li></ul><pre>a\n\n  b</pre>tail <code>`</code>"
    assert len(to_markdown(html).split("\n")) == len(to_text(html).split("\n"))


def test_escape_markdown() -> None:
    assert escape_markdown("2*3*4") == "2\\*3\\*4"
    assert escape_markdown("a\\b `c`") == "a\\\\b \\`c\\`"
    assert escape_markdown("__init__ and snake_case_name") == (
        "\\_\\_init\\_\\_ and snake_case_name"
    )
    assert escape_markdown("~~gone~~ ||spoiler|| ~5 a|b") == (
        "\\~\\~gone\\~\\~ \\|\\|spoiler\\|\\| ~5 a|b"
    )
    assert escape_markdown("# big\n> quote\n-# small\nnot # this") == (
        "\\# big\n\\> quote\n\\-# small\nnot # this"
    )


def test_nested_lists_keep_their_indentation_and_tables_their_columns() -> None:
    nested = "<ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul><ol><li>a</li></ol>"
    assert to_markdown(nested) == "- one\n- two\n  - inner\n\n1. a"
    table = "<table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table>"
    assert to_markdown(table) == "x | y\n1 | 2"


def test_lists_nested_past_four_levels_stay_at_the_fourth() -> None:
    # Each level indented everything again: 90 kB of nested lists became a 25 MB bank.
    nested = "<ul><li>a<ul><li>b<ul><li>c<ul><li>d<ul><li>e<ul><li>f" + "</ul>" * 6
    assert to_markdown(nested) == "- a\n  - b\n    - c\n      - d\n      - e\n      - f"
    deep = to_text("<ul><li>x" * 5000)
    assert len(deep) < 5000 * 12


def test_marks_nested_past_eight_levels_are_read_as_their_text() -> None:
    assert to_markdown("<i>" * 9 + "a*b" + "</i>" * 9) == "*" * 8 + "a\\*b" + "*" * 8
    assert to_markdown("<b>" * 8 + "<code>a*b</code>" + "</b>" * 8) == "**" * 8 + "a\\*b" + "**" * 8


def test_markup_that_never_ends_is_text_and_a_comment_ends_at_the_next_angle() -> None:
    assert to_text("if a <b and c </d then") == "if a <b and c </d then"
    assert to_text('x <a title="1 > 0" href=u>link</a>') == "x link (u)"
    assert to_text("a <!-- never closed > b <i>c</i>") == "a b c"
    assert to_text("a <script>alert(1) b") == "a"
