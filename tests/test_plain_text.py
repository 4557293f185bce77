"""Issue 26, class 8: bank text is Discord Markdown, and every plain-text place (button labels,
select options, autocomplete choice names) shows it as the text a reader sees, never its marks
or escapes; rich places (a reply quoting a pick, the post) stay valid Markdown.

The property test generates texts together with the plain text Discord shows for them, so
each place is checked against what a member should read, not against the function's own
output."""

from __future__ import annotations

import string

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot import rendering
from bot.content.importers.html_text import to_markdown
from bot.discord_ui.cogs.quiz import posted_choice_name, task_choice_name
from bot.discord_ui.posting import post_message
from bot.quiz.tasks import Kind, Option, Task
from bot.reports import summary
from tests.factories import choice, fill
from tests.test_render_limits import BUTTON, posted_of, walk, wire

LABELS = {"button": rendering.BUTTON_LABEL, "option": rendering.SELECT_OPTION_LABEL}
CHOICE_NAME = 100
MODAL_TITLE = 45
SELECT_DESCRIPTION = 100

WORD = st.text(string.ascii_letters + string.digits + "é中💡", min_size=1, max_size=6)
META = "\\*_`~|#>[]<-:()!"
"""Characters Discord reads as marks somewhere, and punctuation around them."""


@st.composite
def inner(draw: st.DrawFn) -> tuple[str, str]:
    """Words, maybe with escaped marks between them, as (Markdown, plain): what an emphasis
    may hold (it starts and ends with a word)."""
    words = draw(st.lists(WORD, min_size=1, max_size=3))
    md, plain = [words[0]], [words[0]]
    for word in words[1:]:
        if draw(st.booleans()):
            mark = draw(st.sampled_from(META))
            md.append("\\" + mark)
            plain.append(mark)
        md.append(word)
        plain.append(word)
    return " ".join(md), " ".join(plain)


@st.composite
def segments(draw: st.DrawFn) -> tuple[str, str]:
    kind = draw(st.sampled_from(["word", "escape", "mark", "code", "link"]))
    if kind == "word":
        word = draw(WORD)
        return word, word
    if kind == "escape":
        mark = draw(st.sampled_from(META))
        return "\\" + mark, mark
    if kind == "code":
        code = draw(st.text(string.ascii_letters + "*_~|#>[]\\ ", min_size=1, max_size=8))
        code = "c" + code.strip() + "c"  # a span's content as written, marks and all
        return f"`{code}`", code
    if kind == "link":
        md, plain = draw(inner())
        return f"[{md}](https://example.org/a_b*c)", plain
    md, plain = draw(inner())
    mark = draw(st.sampled_from(["**", "*", "__", "_", "~~", "||"]))
    return f"{mark}{md}{mark}", plain


@st.composite
def markdown_texts(draw: st.DrawFn) -> tuple[str, str]:
    """(bank text, what Discord shows of it)."""
    parts = draw(st.lists(segments(), min_size=1, max_size=8))
    md = " ".join(m for m, _ in parts)
    plain = " ".join(p for _, p in parts)
    line_mark = draw(st.sampled_from(["", "", "# ", "## ", "### ", "-# ", "> ", ">>> "]))
    return line_mark + md, plain


def size(text: str) -> int:
    return rendering.discord_len(text)


def cut(text: str, limit: int) -> str:
    """`text` as a one-line place shows it: its spaces single (a label has no line breaks),
    cut to `limit`."""
    return rendering.truncate(" ".join(text.split()), limit)


def choice_with(topic: str, texts: tuple[str, ...]) -> Task:
    return choice("md-task", topic=topic, texts=texts, answer="A")


def button_labels(task: Task) -> list[str]:
    payload = wire(post_message(posted_of(task)))
    return [c["label"] for c in walk(payload["components"]) if c["type"] == BUTTON]


@settings(max_examples=150, deadline=None)
@given(st.lists(markdown_texts(), min_size=3, max_size=3))
@example([("t", "t"), ("`c>  >c`", "c>  >c"), ("b", "b")])  # spaces in code, in a label
def test_every_plain_place_shows_the_text_a_reader_sees(
    generated: list[tuple[str, str]],
) -> None:
    (topic, topic_plain), *options = generated
    texts = tuple(md for md, _ in options)
    task = choice_with(topic, texts)
    assert rendering.plain_text(topic) == topic_plain

    # The post's buttons, as discord.py puts them on the wire.
    labels = button_labels(task)
    for label, (letter, (_, plain)) in zip(labels, zip("AB", options, strict=True), strict=False):
        assert label == f"{letter} · " + cut(plain, LABELS["button"] - 4)
        assert size(label) <= LABELS["button"]

    # Autocomplete choice names: the topic as read, within Discord's 100.
    title = f"Multiple choice · {' '.join(topic_plain.split())}"
    for name in (
        task_choice_name(task),
        posted_choice_name(posted_of(task)),
        rendering.plain_label(topic, CHOICE_NAME),
    ):
        assert size(name) <= CHOICE_NAME
    assert task_choice_name(task) == cut(f"md-task · easy · {title}", CHOICE_NAME)
    assert rendering.plain_label(topic, CHOICE_NAME) == cut(topic_plain, CHOICE_NAME)
    # A modal title and a select option's description take the same function, shorter.
    assert rendering.plain_label(topic, MODAL_TITLE) == cut(topic_plain, MODAL_TITLE)
    # A discussion thread's name is plain text too.
    assert summary.discussion_name(task) == cut(f"Discuss · {title}", 100)

    # Rich places: a title in bold inside a sentence reads as the topic, whatever its marks.
    assert rendering.plain_text(rendering.bold(topic)) == topic_plain

    # A rich place: the reply quotes the pick in bold; read, it is exactly the button's text.
    picked = rendering.picked_text(task, ("B",))
    assert rendering.plain_text(f"**{picked}**") == "B · " + cut(options[1][1], 96)


@settings(max_examples=100, deadline=None)
@given(st.text(string.ascii_letters + string.punctuation + " ", min_size=1, max_size=30))
def test_a_fill_option_is_code_shown_as_written_everywhere(code: str) -> None:
    code = " ".join(code.split()) or "x"  # a label is one line, its spaces single
    task = fill("fill-md", texts=(code, "other"), answers=("A",), prompt="y = [1]")
    option = task.option("A")
    # Labels show the token as written: it is code, not Markdown.
    assert rendering.option_button_label(option, Kind.FILL) == "A · " + cut(code, 76)
    assert rendering.option_select_label(option, Kind.FILL) == "A · " + cut(code, 96)
    # The post shows it as a code span that holds it whole, whatever backticks it has.
    span = rendering.code_span(code)
    assert span in rendering.task_description(task)
    assert rendering.plain_text(span).strip() == code
    assert rendering.task_description(task).count("```") % 2 == 0


def test_the_issues_cases() -> None:
    # GIFT's `a*b` is stored escaped; the button showed the escape.
    assert rendering.option_button_label(Option("A", r"a\*b")) == "A · a*b"
    assert rendering.option_button_label(Option("A", r"back\\slash")) == "A · back\\slash"
    assert rendering.option_button_label(Option("B", "**bold** and ~~old~~")) == "B · bold and old"
    assert rendering.option_button_label(Option("C", "`x_y`  and _it_")) == "C · x_y and it"
    # A fill option is a code token: `__init__` is a name, not underlined "init".
    assert rendering.option_select_label(Option("A", "__init__")) == "A · __init__"


def test_plain_text_keeps_what_discord_shows_literally() -> None:
    assert rendering.plain_text("snake_case and 2 * 3") == "snake_case and 2 * 3"
    lone = "a lone * star, a lone _ and ||"
    assert rendering.plain_text(lone) == lone
    assert rendering.plain_text("```py\nx = *1*\n```") == "x = *1*"
    assert rendering.plain_text("# Title\n> quoted\n- item") == "Title\nquoted\n• item"
    assert rendering.plain_text("[the docs](https://x.org/a_b)") == "the docs"
    assert rendering.plain_text("***both***") == "both"


def test_hostile_markdown_costs_little_and_never_recurses_deep() -> None:
    for text in ("||" * 3000, "*" * 6000, "**a" * 2000, "[" * 6000, "\\" * 6000, "_ " * 3000):
        label = rendering.option_button_label(Option("A", text))
        assert size(label) <= rendering.BUTTON_LABEL
        rendering.plain_text(text)  # the whole text too: linear enough, and no RecursionError


def test_an_image_in_imported_html_stays_visible_as_the_docs_promise() -> None:
    markdown = to_markdown('<p>See <img src="g.png" alt="a *graph*"> below.</p>')
    assert markdown == "See [image: a \\*graph\\*] below."
    assert rendering.plain_text(markdown) == "See [image: a *graph*] below."
    assert to_markdown('<img src="g.png">') == "[image]"


def test_labels_within_limits_for_every_kind_of_place() -> None:
    long_md = "**" + "ab " * 200 + "**"
    checks: list[tuple[str, int]] = [
        (rendering.option_button_label(Option("A", long_md)), rendering.BUTTON_LABEL),
        (rendering.option_select_label(Option("A", long_md)), rendering.SELECT_OPTION_LABEL),
        (rendering.plain_label(long_md, SELECT_DESCRIPTION), SELECT_DESCRIPTION),
        (rendering.plain_label(long_md, MODAL_TITLE), MODAL_TITLE),
        (rendering.plain_label("` `", CHOICE_NAME), CHOICE_NAME),
    ]
    for text, limit in checks:
        assert 1 <= size(text) <= limit, (text, limit)
    assert "**" not in rendering.option_button_label(Option("A", long_md))
