"""`content check` refuses what would render wrong or mislead, naming file, line, task and field.

One check covers every text of a bank (bot/content/safety.py), so each rule is tried on several
fields, and a property test tries every text field with generated hostile text. The same loader
serves the start-up, live reload and `/bank upload`, so one upload test shows the upload path.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.content import check_banks, find_bank_files
from bot.content.commands import check_command
from bot.content.uploads import RefusedUpload, UploadedBank, check_upload

from .test_loader import GOOD_BANK, assert_problem, line_of, only, write


def q(text: str) -> str:
    """`text` as a YAML double-quoted scalar: what YAML would not take raw (controls, C1) as
    its escapes, all else as written (YAML does not join JSON's escaped surrogate pairs)."""

    def one(char: str) -> str:
        code = ord(char)
        if char in '"\\':
            return "\\" + char
        if code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF:
            return f"\\u{code:04x}"
        return char

    return '"' + "".join(map(one, text)) + '"'


def check(tmp_path: Path, old: str, new: str) -> tuple[Path, list]:
    assert old in GOOD_BANK, old
    file = write(tmp_path, GOOD_BANK.replace(old, new, 1))
    return file, check_banks(file)[1]


def refused_once(
    tmp_path: Path, old: str, new: str, needle: str, task: str | None, field: str, text: str
) -> None:
    file, problems = check(tmp_path, old, new)
    assert_problem(only(problems), file, line_of(file, needle), task, field, text)


# -- fences ------------------------------------------------------------------------------------


def test_a_language_with_a_newline_and_backticks_is_refused(tmp_path: Path) -> None:
    hostile = q("python\n```\n@everyone")
    refused_once(
        tmp_path,
        "    answers: [A, C]\n",
        f"    answers: [A, C]\n    language: {hostile}\n",
        "language:",
        "t-fill",
        "language",
        "must be a language name",
    )


@pytest.mark.parametrize("language", ["py thon", "c`", "x" * 33, "@everyone", "py\u200bthon"])
def test_a_language_outside_a_word_is_refused(tmp_path: Path, language: str) -> None:
    _, problems = check(
        tmp_path, "    answers: [A, C]\n", f"    answers: [A, C]\n    language: {q(language)}\n"
    )
    assert [(p.task, p.field) for p in problems] == [("t-fill", "language")]


@pytest.mark.parametrize("language", ["python", "c++", "c#", "objective-c", "shell_session"])
def test_real_languages_pass(tmp_path: Path, language: str) -> None:
    _, problems = check(
        tmp_path, "    answers: [A, C]\n", f"    answers: [A, C]\n    language: {language}\n"
    )
    assert problems == []


@pytest.mark.parametrize("option", ["```", "a ```b``` c", "x```"])
def test_an_option_with_a_fence_is_refused(tmp_path: Path, option: str) -> None:
    refused_once(
        tmp_path,
        "      - blue\n",
        f"      - {q(option)}\n",
        q(option),
        "t-choice",
        "options[2]",
        "must not contain ```",
    )


def test_a_fill_option_with_a_fence_is_refused(tmp_path: Path) -> None:
    refused_once(
        tmp_path, "      - strip\n", "      - '```'\n", "'```'", "t-fill", "options[2]", "```"
    )


PRE_FENCE = "Run this:\n\n```\n```python\nprint(1)\n```\n```"
"""What the HTML converter makes of `<pre>```python ... ```</pre>`: a fence inside a block."""


def test_an_imported_pre_holding_a_fence_is_refused(tmp_path: Path) -> None:
    from bot.content.importers.html_text import to_markdown

    assert to_markdown("<p>Run this:</p><pre>```python\nprint(1)\n```</pre>") == PRE_FENCE
    refused_once(
        tmp_path,
        "    question: Which colour is grass?\n",
        f"    question: {q(PRE_FENCE)}\n",
        "question:",
        "t-choice",
        "question",
        "a code block is empty",
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("See ```code", "not closed"),
        ("```\n```", "empty"),
        ("````\nx\n````", "4 backticks"),
        ("```python\n```", "empty"),
    ],
)
def test_broken_code_blocks_in_any_markdown_field_are_refused(
    tmp_path: Path, text: str, problem: str
) -> None:
    for field, old, new in [
        ("hint", "    hint: Not red.\n", f"    hint: {q(text)}\n"),
        (
            "solution.explanation",
            "      explanation: int converts the text once strip has removed the spaces.\n",
            f"      explanation: {q(text)}\n",
        ),
        (
            "mistakes[0].note",
            "      - note: Red is the colour of roses.\n",
            f"      - note: {q(text)}\n",
        ),
    ]:
        _, problems = check(tmp_path, old, new)
        found = only(problems)
        assert (found.field, problem in found.message) == (field, True), found


@pytest.mark.parametrize(
    "text",
    [
        "Run:\n```python\nprint(1)\n```\nthen look.",
        "Inline ```x = 1``` is a block too.",
        "Two:\n```\na\n```\nand\n```sql\nSELECT 1\n```",
        "A `span` with ` backticks `` is fine.",
    ],
)
def test_whole_code_blocks_pass(text: str) -> None:
    from bot.content import safety

    assert safety.fence_problem(text) is None


# -- invisible and control characters ------------------------------------------------------------

INVISIBLE = [
    "\u200b",
    "\u200b\u200c\u200d",
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u3164",
    "\u2800 \u200b",
]


@pytest.mark.parametrize("text", INVISIBLE)
def test_an_invisible_option_is_refused(tmp_path: Path, text: str) -> None:
    refused_once(
        tmp_path,
        "      - blue\n",
        f"      - {q(text)}\n",
        q(text),
        "t-choice",
        "options[2]",
        "shows nothing",
    )


def test_a_zero_width_hint_is_refused(tmp_path: Path) -> None:
    refused_once(
        tmp_path,
        "    hint: Not red.\n",
        f"    hint: {q(chr(0x200B))}\n",
        'hint: "',
        "t-choice",
        "hint",
        "shows nothing: it holds only invisible characters (U+200B (ZERO WIDTH SPACE))",
    )


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\r"])
@pytest.mark.parametrize(
    ("old", "field", "needle"),
    [
        ("    question: Which colour is grass?\n", "question", "question:"),
        ("      - note: Red is the colour of roses.\n", "mistakes[0].note", "- note:"),
        ("    instruction: Complete the code to parse a number.\n", "instruction", "instruction:"),
    ],
)
def test_control_characters_are_refused_in_every_text(
    tmp_path: Path, char: str, old: str, field: str, needle: str
) -> None:
    key, _, value = old.partition(": ")
    file, problems = check(tmp_path, old, f"{key}: {q(value.strip() + char + 'x')}\n")
    found = only(problems)
    assert (found.line, found.field) == (line_of(file, needle), field)
    assert f"U+{ord(char):04X}" in found.message


def test_nul_in_the_bank_topic_is_refused(tmp_path: Path) -> None:
    refused_once(
        tmp_path,
        "topic: Testing\n",
        f"topic: {q('Test' + chr(0) + 'ing')}\n",
        "topic:",
        None,
        "topic",
        "U+0000 (NUL)",
    )


def test_tabs_and_newlines_are_text_where_a_text_has_lines(tmp_path: Path) -> None:
    _, problems = check(
        tmp_path,
        "    hint: Not red.\n",
        f"    hint: {q('Not red:' + chr(10) + chr(9) + 'roses are.')}\n",
    )
    assert problems == []


# -- look-alike options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ab", "a\u200bb"),
        ("caf\u00e9", "cafe\u0301"),  # NFC and NFD
        ("Yes answer", "yes answer"),
        ("ﬁne", "fine"),  # NFKC
        ("a b", "a  b"),
    ],
)
def test_look_alike_options_are_refused(tmp_path: Path, first: str, second: str) -> None:
    file, problems = check(
        tmp_path, "      - green\n      - blue\n", f"      - {q(first)}\n      - {q(second)}\n"
    )
    assert_problem(
        only(problems),
        file,
        line_of(file, q(second)),
        "t-choice",
        "options[2]",
        "option C reads the same as option B",
    )


def test_options_that_differ_in_case_are_distinct_code(tmp_path: Path) -> None:
    """A fill option is code: `True` and `true` are different tokens, rightly both offered."""
    _, problems = check(tmp_path, "      - str\n", "      - Int\n")
    assert problems == []
    from bot.content import safety

    assert safety.look_alike("Int", case=True) != safety.look_alike("int", case=True)


def test_look_alike_fill_options_are_refused(tmp_path: Path) -> None:
    _, problems = check(tmp_path, "      - str\n", f"      - {q('in' + chr(0x200B) + 't')}\n")
    assert [(p.task, p.field) for p in problems] == [("t-fill", "options[1]")]


# -- topics --------------------------------------------------------------------------------------


def test_a_task_topic_over_100_characters_is_refused(tmp_path: Path) -> None:
    refused_once(
        tmp_path,
        "    topic: Python\n",
        f"    topic: {'P' * 101}\n",
        "topic: PPP",
        "t-fill",
        "topic",
        "the topic is 101 characters; at most 100 fit a command choice",
    )


def test_a_topic_of_100_characters_passes(tmp_path: Path) -> None:
    _, problems = check(tmp_path, "    topic: Python\n", f"    topic: {'P' * 100}\n")
    assert problems == []


@pytest.mark.parametrize("topic", ["Test\ning", "Test\u2028ing", "Test\ting"])
def test_a_topic_is_one_line(tmp_path: Path, topic: str) -> None:
    file, problems = check(tmp_path, "topic: Testing\n", f"topic: {q(topic)}\n")
    assert [(p.line, p.task, p.field) for p in problems] == [
        (line_of(file, "topic:"), None, "topic")
    ]


# -- files ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["b.YAML", "b.Yml", "sub/c.YML"])
def test_an_upper_case_extension_is_a_bank(tmp_path: Path, name: str) -> None:
    write(tmp_path, GOOD_BANK, name)
    assert find_bank_files(tmp_path) == [tmp_path / name]
    catalog, problems = check_banks(tmp_path)
    assert problems == [] and len(catalog) == 2


def test_a_broken_symlink_is_a_problem_line(tmp_path: Path) -> None:
    write(tmp_path, GOOD_BANK, "good.yaml")
    link = tmp_path / "gone.yaml"
    link.symlink_to(tmp_path / "nowhere.yaml")
    _, problems = check_banks(tmp_path)
    problem = only(problems)
    assert (problem.file, problem.line) == (link, None)
    assert problem.message == (
        f"a broken symbolic link: its target {tmp_path / 'nowhere.yaml'} does not exist"
    )


def test_content_check_names_both_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, GOOD_BANK, "b.YAML")
    assert check_command(tmp_path, sys.stdout) == 0
    assert capsys.readouterr().out == "2 tasks in 1 bank: OK\n"  # not "no banks here"

    (tmp_path / "gone.yml").symlink_to(tmp_path / "nowhere.yml")
    assert check_command(tmp_path, sys.stdout) == 1
    assert capsys.readouterr().out == (
        f"{tmp_path / 'gone.yml'}: a broken symbolic link: its target "
        f"{tmp_path / 'nowhere.yml'} does not exist\n1 problem in 1 file\n"
    )


# -- /bank upload ------------------------------------------------------------------------------


def test_an_upload_with_a_hostile_topic_parameter_is_refused() -> None:
    gift = b"::q1:: Grass is {=green ~red ~blue}\n"
    for topic in ("Net\x00works", "Net\nworks", "\u200b", "T" * 101):
        result = check_upload(gift, "n.gift", topic=topic)
        assert isinstance(result, RefusedUpload), topic
        assert result.problems[0].startswith("n.gift: the topic "), result.problems
    assert isinstance(check_upload(gift, "n.gift", topic="Networks"), UploadedBank)


def test_an_uploaded_bank_with_a_hostile_topic_is_refused() -> None:
    text = GOOD_BANK.replace("topic: Testing", f"topic: {q('Test' + chr(10) + 'ing')}")
    result = check_upload(text.encode(), "own.yaml")
    assert isinstance(result, RefusedUpload)
    assert result.problems == ("own.yaml:2: field topic: must be one line: remove the line break",)


# -- one check for every text --------------------------------------------------------------------

TEXT_FIELDS = [
    ("    question: Which colour is grass?\n", "    question: {}\n", "question"),
    ("    hint: Not red.\n", "    hint: {}\n", "hint"),
    ("      - red\n", "      - {}\n", "options[0]"),
    ("        - title: Look outside\n", "        - title: {}\n", "solution.steps[0].title"),
    ("          text: Grass is green.\n", "          text: {}\n", "solution.steps[0].text"),
    (
        "      final_answer: green -> Option B\n",
        "      final_answer: {}\n",
        "solution.final_answer",
    ),
    ("      quick_check: green [OK]\n", "      quick_check: {}\n", "solution.quick_check"),
    ("      - Colours are hard.\n", "      - {}\n", "mistakes[1]"),
    (
        "    instruction: Complete the code to parse a number.\n",
        "    instruction: {}\n",
        "instruction",
    ),
    ("bank: Test bank\n", "bank: {}\n", "bank"),
    ("source: written for the tests\n", "source: {}\n", "source"),
]

WORDS = st.text(min_size=1, max_size=5).filter(str.isalnum)
CONTROLS = st.sampled_from([chr(c) for c in [*range(0, 9), *range(11, 32), *range(0x7F, 0xA0)]])
INVISIBLES = st.lists(
    st.sampled_from(["\u200b", "\u200c", "\u2060", "\ufeff", "\u180e", "\u3164"]),
    min_size=1,
    max_size=4,
).map("".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    field=st.sampled_from(TEXT_FIELDS),
    hostile=st.one_of(
        st.tuples(WORDS, CONTROLS, WORDS).map("".join),  # inside: the ends are stripped
        INVISIBLES,
    ),
)
def test_every_text_field_refuses_control_and_invisible_text(
    tmp_path: Path, field: tuple[str, str, str], hostile: str
) -> None:
    old, new, path = field
    file, problems = check(tmp_path, old, new.format(q(hostile)))
    fields = {(p.field, p.line) for p in problems}
    assert (path, line_of(file, q(hostile))) in fields, problems


@pytest.mark.parametrize("shape", ["PROSE", "LINE", "OPTION", "CODE", "WORD"])
def test_the_check_holds_for_every_shape(shape: str) -> None:
    from bot.content import safety

    assert {s.name for s in safety.Shape} == {"PROSE", "LINE", "OPTION", "CODE", "WORD"}
    for hostile in ("\x00", "a\x01", "\u200b", "\u2060\ufeff"):
        assert safety.text_problem(hostile, safety.Shape[shape]) is not None, hostile
    assert safety.text_problem("print", safety.Shape[shape]) is None


def test_a_linked_folder_of_banks_is_read_once(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere"
    write(real, GOOD_BANK, "bank.YML")
    content = tmp_path / "content"
    content.mkdir()
    (content / "linked").symlink_to(real)
    (real / "loop").symlink_to(content)  # a link back up: walked once, not for ever
    catalog, problems = check_banks(content)
    assert problems == [] and len(catalog) == 2
    assert find_bank_files(content) == [content / "linked" / "bank.YML"]


def test_a_broken_link_to_a_folder_of_banks_is_a_problem_line(tmp_path: Path) -> None:
    write(tmp_path, GOOD_BANK, "good.yaml")
    (tmp_path / "mlops").symlink_to(tmp_path / "unmounted" / "mlops")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "nowhere.txt")  # no bank: not one
    problem = only(check_banks(tmp_path)[1])
    assert (problem.file, problem.line) == (tmp_path / "mlops", None)
    assert problem.message.startswith("a broken symbolic link: its target ")
