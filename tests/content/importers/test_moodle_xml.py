"""Moodle XML: what a Moodle export becomes, what is refused, and the round trip of our tasks.

The source files under data/ were written for these tests."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from bot.content import check_banks
from bot.content.importers import moodle_xml
from bot.content.importers.drafts import (
    Draft,
    ImportResult,
    Note,
    Step,
    bank_yaml,
)
from bot.quiz.tasks import Difficulty, Kind, Solution, SolutionStep, Task
from tests.factories import choice, choice_task, fill, fill_task, note

DATA = Path(__file__).parent / "data"


def read(name: str, **kwargs: str) -> ImportResult:
    path = DATA / name
    return moodle_xml.parse(path.read_text(encoding="utf-8"), source=str(path), **kwargs)


def report(result: ImportResult, source: str = "x.xml") -> list[str]:
    return [line.render(source) for line in result.report]


def load(result: ImportResult, tmp_path: Path) -> list[Task]:
    """The bank the importer writes, through the ordinary content check: it must pass."""
    path = tmp_path / "imported.yaml"
    path.write_text(bank_yaml(result), encoding="utf-8")
    catalog, problems = check_banks(path)
    assert problems == []
    return list(catalog)


def quiz(*questions: str) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


def multichoice(text: str, *, fmt: str = "html", extra: str = "", name: str = "q") -> str:
    return (
        f'<question type="multichoice"><name><text>{name}</text></name>'
        f'<questiontext format="{fmt}"><text><![CDATA[{text}]]></text></questiontext>'
        '<answer fraction="100"><text>right</text></answer>'
        '<answer fraction="0"><text>wrong</text></answer>'
        f"{extra}</question>"
    )


def one(xml: str) -> Draft:
    result = moodle_xml.parse(xml, source="x.xml")
    assert len(result.drafts) == 1, report(result)
    return result.drafts[0]


# --- a Moodle export ----------------------------------------------------------------------------


def test_a_single_answer_multichoice_becomes_a_choice_task_with_its_feedback() -> None:
    draft = read("mixed.xml").drafts[0]

    assert draft.id == "list-length"
    assert draft.kind == "choice"
    assert draft.question == "What does `len([1, 2, 3])` return?"
    assert draft.options == ["2", "3", "4"]
    assert draft.answers == ["B"]
    assert draft.hints == ["How many numbers do you see?", "Count them on your fingers."]
    # The same feedback on A and C is one note tied to both; <incorrectfeedback> is general.
    assert draft.mistakes == [
        Note("Indexes start at 0, but *lengths* do not.", ("A", "C")),
        Note("Count the items, not the brackets."),
    ]
    # The right option's feedback, then <generalfeedback>.
    assert draft.explanation == "Right: three items.\n\n**len** counts the items of a list."
    assert draft.source_line == 10


def test_true_false_becomes_two_options_with_the_wrong_ones_feedback_tied_to_it() -> None:
    draft = read("mixed.xml").drafts[1]

    assert draft.id == "tuples-are-immutable"
    assert draft.options == ["True", "False"]
    assert draft.answers == ["B"]
    assert draft.mistakes == [Note("That is true of lists, not tuples.", ("A",))]
    assert draft.explanation == "Tuples are immutable; lists are not."
    # moodle_auto_format: a newline is a line break.
    assert draft.question == "A tuple can be changed after it is created.\nThink before you answer."
    assert draft.hints == []  # none in the file: none made up
    assert draft.comment is None


def test_categories_set_the_topic_of_the_questions_after_them() -> None:
    result = read("mixed.xml")

    assert result.topic == "Python basics"
    assert [(d.id, d.topic) for d in result.drafts] == [
        ("list-length", None),
        ("tuples-are-immutable", None),
        # "$course$/top/Python basics/Strings // bytes": the last part, '//' being a '/'.
        ("join", "Strings / bytes"),  # single, an answer of 50%: a single-pick multi task
        ("pick-two", "Strings / bytes"),  # multichoice, single false: a multi task
        ("keyword", "Strings / bytes"),  # shortanswer: a short task (issue 28)
        ("list-length-2", "Strings / bytes"),
    ]


def test_the_topic_option_is_every_tasks_topic() -> None:
    result = read("mixed.xml", topic="Imported")

    assert result.topic == "Imported"
    assert all(d.topic is None for d in result.drafts)


def test_every_question_left_out_or_changed_has_a_report_line() -> None:
    source = str(DATA / "mixed.xml")

    assert report(read("mixed.xml"), source) == [
        f"{source}:134: left out: question 'No right answer': no answer is marked right "
        '(fraction="100")',
        f"{source}:145: left out: essay questions are not supported (yet)",
        f"{source}:154: question 'List length': 1 image(s) left out; the text says [image: …]",
    ]


def test_an_element_that_is_not_a_question_is_reported_with_what_it_holds() -> None:
    # A <question> wrapped in another element was dropped without a line.
    xml = quiz(
        "<questions>", multichoice("Wrapped?", name="w"), "</questions>",
        "<note>hello</note>",
        multichoice("Kept?", name="k"),
    )  # fmt: skip

    result = moodle_xml.parse(xml, source="x.xml")

    assert [d.id for d in result.drafts] == ["k"]
    assert report(result) == [
        "x.xml:3: left out: a <questions> element and the 1 question(s) in it (Moodle XML puts "
        "each <question> directly in <quiz>)",
        "x.xml:6: left out: a <note> element (Moodle XML puts each <question> directly in <quiz>)",
    ]


def test_a_question_without_feedback_gets_the_answer_as_its_solution() -> None:
    join = read("mixed.xml").drafts[2]

    assert join.final_answer == '"-".join(["a", "b"])'
    assert join.explanation is None
    assert join.comment is not None
    assert "no feedback" in join.comment


def test_the_imported_bank_passes_the_content_check(tmp_path: Path) -> None:
    tasks = load(read("mixed.xml"), tmp_path)

    ids = ["list-length", "tuples-are-immutable", "join", "pick-two", "keyword", "list-length-2"]
    assert [t.id for t in tasks] == ids
    assert [t.topic for t in tasks] == ["Python basics"] * 2 + ["Strings / bytes"] * 4
    assert tasks[0].notes_for("C") == ("Indexes start at 0, but *lengths* do not.",)


def test_a_name_that_is_a_valid_id_is_kept_and_others_are_slugged() -> None:
    result = moodle_xml.parse(
        quiz(
            multichoice("One?", name="py_ops.2"),
            multichoice("Two?", name="Two Words!"),
            multichoice("What is the third question?", name=""),
            multichoice("Four?", name="Two Words!"),
        ),
        source="x.xml",
    )

    assert [d.id for d in result.drafts] == [
        "py_ops.2",
        "two-words",
        "what-is-the-third-question",
        "two-words-2",
    ]


def test_moodles_default_incorrect_feedback_is_not_a_note() -> None:
    extra = (
        '<incorrectfeedback format="html"><text>Your answer is incorrect.</text>'
        "</incorrectfeedback>"
    )

    assert one(quiz(multichoice("Q?", extra=extra))).mistakes == []


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        (
            '<answer fraction="100"><text>a</text></answer>',
            "it has fewer than two answers",
        ),
        (
            '<answer fraction="100"><text>a</text></answer>'
            '<answer fraction="100"><text>b</text></answer>',
            "answers A, B are all marked right; a choice task has one",
        ),
        (
            '<answer fraction="lots"><text>a</text></answer>',
            "the fraction 'lots' of an answer is not a number",
        ),
        (
            # One more than there are option labels: the last, right one has no letter.
            "".join(f'<answer fraction="0"><text>w{i}</text></answer>' for i in range(26))
            + '<answer fraction="100"><text>right</text></answer>',
            "it has 27 answers (at most 26)",
        ),
        (
            '<answer fraction="100"><text>right</text></answer>'
            + "".join(
                f'<answer fraction="0"><text>w{i}</text><feedback><text>no {i}</text>'
                "</feedback></answer>"
                for i in range(29)
            ),
            "it has 30 answers (at most 26)",
        ),
    ],
)
def test_a_multichoice_that_cannot_be_a_choice_task_is_left_out(answers: str, why: str) -> None:
    xml = quiz(
        '<question type="multichoice"><name><text>Odd</text></name>'
        f"<questiontext><text>Q?</text></questiontext>{answers}</question>"
    )

    result = moodle_xml.parse(xml, source="x.xml")

    assert result.drafts == []
    assert report(result) == [f"x.xml:3: left out: question 'Odd': {why}"]


def test_a_true_false_question_without_true_and_false_answers_is_left_out() -> None:
    xml = quiz(
        '<question type="truefalse"><name><text>TF</text></name>'
        "<questiontext><text>Q?</text></questiontext>"
        '<answer fraction="100"><text>yes</text></answer>'
        '<answer fraction="0"><text>no</text></answer></question>'
    )

    assert report(moodle_xml.parse(xml, source="x.xml")) == [
        "x.xml:3: left out: question 'TF': a true/false question needs one 'true' and one "
        "'false' answer"
    ]


# --- HTML and the other text formats ------------------------------------------------------------


@pytest.mark.parametrize(
    ("html", "markdown"),
    [
        ("<p>One</p><p>Two<br>three</p>", "One\n\nTwo\nthree"),
        (
            "<p>Use <strong>bold</strong>, <em>italic</em> and <code>x = 1</code>.</p>",
            "Use **bold**, *italic* and `x = 1`.",
        ),
        ("<p><b> spaced </b>word</p>", "**spaced** word"),
        (
            "<ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul><ol><li>a</li><li>b</li></ol>",
            "- one\n- two\n  - inner\n\n1. a\n2. b",
        ),
        (
            '<p>See <a href="https://docs.python.org/">the docs</a>.</p>',
            "See the docs (https://docs.python.org/).",
        ),
        (
            "<p>Code:</p><pre><code>def f():\n    return 1\n</code></pre>",
            "Code:\n\n```\ndef f():\n    return 1\n```",
        ),
        ("<p>a &lt; b &amp;&amp; c&nbsp;d</p>", "a < b && c d"),
        ('<p>Plain <span class="x">red</span><script>alert(1)</script></p>', "Plain red"),
        ("<h3>Title</h3><p>Body</p>", "**Title**\n\nBody"),
        (
            "<table><tr><th>x</th><th>y</th></tr><tr><td>1</td><td>2</td></tr></table>",
            "x | y\n1 | 2",
        ),
    ],
)
def test_html_becomes_discord_markdown_never_raw_tags(html: str, markdown: str) -> None:
    assert one(quiz(multichoice(html))).question == markdown


@pytest.mark.parametrize("fmt", ["markdown", "plain_text"])
def test_markdown_and_plain_text_are_kept_as_written(fmt: str) -> None:
    text = "Is <b> a tag?\n\n**Yes**, in HTML."

    assert one(quiz(multichoice(text, fmt=fmt))).question == text


# --- refused files ------------------------------------------------------------------------------


def test_an_entity_bomb_is_refused_with_one_report_line() -> None:
    result = read("entity_bomb.xml")
    source = str(DATA / "entity_bomb.xml")

    assert result.drafts == []
    assert report(result, source) == [
        f"{source}:5: refused: the file declares the XML entity 'lol', as an entity bomb "
        '("billion laughs") does; Moodle XML never needs entities'
    ]


def test_an_external_entity_is_refused_without_reading_it() -> None:
    result = read("external_entity.xml")
    source = str(DATA / "external_entity.xml")

    assert result.drafts == []
    assert report(result, source) == [
        f"{source}:5: refused: the file declares an external entity "
        "('secret' -> file:///etc/hostname); Moodle XML never needs one"
    ]


@pytest.mark.parametrize(
    ("xml", "line"),
    [
        (
            "<quiz>\n  <question type='multichoice'>\n</quiz>\n",
            "x.xml:3: refused: not well-formed XML: mismatched tag (column 3)",
        ),
        (
            "<quiz>\n<question>&nbsp;</question></quiz>",
            "x.xml:2: refused: not well-formed XML: undefined entity (column 11)",
        ),
        (
            "<questions/>",
            "x.xml:1: refused: not Moodle XML: the root element is <questions>, not <quiz>",
        ),
        ("", "x.xml:1: refused: not well-formed XML: no element found (column 1)"),
    ],
)
def test_a_file_that_is_not_moodle_xml_is_refused_with_its_line(xml: str, line: str) -> None:
    result = moodle_xml.parse(xml, source="x.xml")

    assert result.drafts == []
    assert report(result) == [line]


def test_looks_like_tells_moodle_xml_from_other_formats() -> None:
    assert moodle_xml.looks_like((DATA / "mixed.xml").read_text(encoding="utf-8"))
    assert moodle_xml.looks_like("<quiz/>")
    assert not moodle_xml.looks_like("Which?\nA) one\nB) two\nANSWER: A\n")
    assert not moodle_xml.looks_like("::q:: Which? {=one ~two}\n")


# --- export and the round trip ------------------------------------------------------------------


def bank() -> list[Task]:
    """Every field Moodle XML carries, with text that needs escaping in XML and Markdown."""
    return [
        dataclasses.replace(choice_task(), id="mlops-choice"),
        choice(
            "py_ops.2",
            prompt="Which is true of `a < b & c`?\n\nRead **carefully**: ]]> is not a CDATA end.",
            texts=("It compares first", "It is `&` first", "It raises", "Nothing"),
            answer="A",
            hint="Precedence: comparisons bind looser than `&`.",
            solution=Solution(
                steps=(
                    SolutionStep("Find the operators", "There are `<` and `&`."),
                    SolutionStep("Apply precedence", "`&` binds tighter.\n\nSo b & c goes first."),
                ),
                final_answer="It compares first -> Option A",
                quick_check="`a < (b & c)` [OK]",
                explanation="Python's precedence table decides.",
            ),
            mistakes=(note("Precedence is not left to right.", "B", "C"),),
            topic="Python / C",
            difficulty=Difficulty.HARD,
        ),
        fill(
            "ops-fill",
            prompt="total = count [1] size",
            texts=("//", "/", "%"),
            answers=("A",),
            hint="An integer result.",
            solution=Solution(explanation="Floor division keeps an int."),
            mistakes=(note("'/' gives a float.", "B"), note("Mind the types.")),
            instruction="Complete the code to divide without a remainder.",
            topic="Python / C",
            difficulty=Difficulty.MEDIUM,
        ),
        fill_task(),
        choice("t-true", prompt="Is 0 falsy?", texts=("True", "False"), answer="A"),
    ]


def round_trip(tasks: list[Task], tmp_path: Path) -> list[Task]:
    xml = moodle_xml.export(tasks, bank="Round trip")
    result = moodle_xml.parse(xml, source="exported.xml")
    assert result.report == []
    return load(result, tmp_path)


def test_import_of_export_gives_back_every_field_moodle_carries(tmp_path: Path) -> None:
    tasks = bank()

    back = round_trip(tasks, tmp_path)

    # A fill task's notes come back in option order (each is tied to its option all the same).
    fill_id = fill_task().id
    expected = [
        dataclasses.replace(t, mistakes=tuple(sorted(t.mistakes, key=lambda n: n.options)))
        if t.id == fill_id
        else t
        for t in tasks
    ]
    assert [dataclasses.replace(t, bank="") for t in back] == expected


def test_the_bank_title_comes_back_and_other_files_take_their_name() -> None:
    assert moodle_xml.parse(moodle_xml.export(bank(), bank="Operators"), source="x.xml").bank == (
        "Operators"
    )
    assert read("mixed.xml").bank == "mixed"


def test_export_writes_multichoice_with_tied_notes_as_option_feedback() -> None:
    xml = moodle_xml.export([choice_task()], bank="B")

    root = ET.fromstring(xml)
    category, question = root.findall("question")
    assert category.findtext("category/text") == "$course$/top/Testing"
    assert question.get("type") == "multichoice"
    assert question.findtext("name/text") == "t-choice"
    assert question.findtext("single") == "true"
    answers = question.findall("answer")
    assert [a.get("fraction") for a in answers] == ["100", "0", "0"]
    assert [a.findtext("feedback/text") for a in answers] == [
        "",
        "Model parallelism splits the model, not the data.",
        "",
    ]
    assert question.findtext("incorrectfeedback/text") == "Read the question twice."
    assert question.findtext("generalfeedback/text") == (
        "Data is split.\n\n**Final answer:** data parallelism -> Option A"
    )
    assert question.findtext("hint/text") == "Think about what gets copied."


def test_a_fill_task_with_several_blanks_is_exported_as_a_cloze_question() -> None:
    xml = moodle_xml.export([fill_task(), choice()], bank="B")

    question = ET.fromstring(xml).findall("question")[1]
    assert question.get("type") == "cloze"
    assert "quizbot-fill" in [t.findtext("text") for t in question.findall("tags/tag")]
    text = question.findtext("questiontext/text") or ""
    # A MULTICHOICE part per blank, every option in it, each option's note as its feedback.
    assert text.count("{1:MULTICHOICE:") == 3
    assert "{1:MULTICHOICE:=//~devices#'devices' is not defined here.~device_list~/#" in text
    drafts = moodle_xml.parse(xml, source="x.xml").drafts
    assert (drafts[0].id, drafts[0].kind, drafts[0].answers) == ("t-fill", "fill", ["A", "C", "C"])


def test_a_one_blank_fill_task_is_a_multichoice_showing_the_code() -> None:
    task = fill(prompt="x = a [1] b", texts=("//", "/"), answers=("A",), instruction="Divide.")

    question = ET.fromstring(moodle_xml.export([task], bank="B")).findall("question")[1]

    assert question.findtext("questiontext/text") == "Divide.\n\n```python\nx = a [1] b\n```"
    assert [t.findtext("text") for t in question.findall("tags/tag")] == [
        "quizbot-difficulty-hard",
        "quizbot-fill",
    ]


def test_several_notes_on_one_option_come_back_as_they_were() -> None:
    # They came back as one note "First.\n\nSecond.": the export garbled the task.
    task = choice(mistakes=(note("First.", "B"), note("Second.", "B", "C"), note("G1"), note("G2")))

    draft = one(moodle_xml.export([task], bank="B"))

    assert draft.mistakes == [
        Note("First.", ("B",)),
        Note("Second.", ("B", "C")),
        Note("G1"),
        Note("G2"),
    ]


def test_a_fill_task_whose_code_is_not_python_keeps_its_language() -> None:
    task = dataclasses.replace(
        fill(prompt="let x = a [1] b;", texts=("/", "%"), answers=("B",)), language="rust"
    )

    draft = one(moodle_xml.export([task], bank="B"))

    assert (draft.kind, draft.code, draft.language) == ("fill", "let x = a [1] b;", "rust")
    assert draft.comment is None
    assert "language: rust" in bank_yaml(ImportResult([draft], [], "B", "Testing"))


def test_a_task_xml_cannot_carry_is_an_xml_comment_and_the_file_still_reads_back() -> None:
    # U+0001 went into the file as it was: our own import refused the whole file.
    tasks = [choice("ctl", prompt="What is \x01?"), choice("nc", hint="\ufffe"), choice("ok")]

    xml = moodle_xml.export(tasks, bank="B")

    assert "<!-- left out: ctl: its question holds U+0001, which XML 1.0 cannot carry -->" in xml
    assert "<!-- left out: nc: its hint holds U+FFFE, which XML 1.0 cannot carry -->" in xml
    result = moodle_xml.parse(xml, source="x.xml")
    assert [d.id for d in result.drafts] == ["ok"] and result.report == []


def test_a_carriage_return_is_written_as_a_reference_so_it_comes_back() -> None:
    # A raw one came back as a line break: XML normalises line ends.
    draft = one(moodle_xml.export([choice(prompt="a\rb", texts=("r\r\n", "w"))], bank="B"))

    assert (draft.question, draft.options) == ("a\rb", ["r", "w"])


def test_a_question_tagged_fill_without_code_stays_a_choice_task() -> None:
    extra = "<tags><tag><text>quizbot-fill</text></tag></tags>"

    draft = one(quiz(multichoice("No code here.", fmt="markdown", extra=extra)))

    assert draft.kind == "choice"
    assert draft.comment is not None
    assert "imported as a choice task" in draft.comment


def test_solution_marks_written_in_html_are_read_as_steps() -> None:
    feedback = (
        "<p>Why it works.</p><p><b>Step 1: Read</b><br>Read it.</p>"
        "<p><b>Final answer:</b> right</p>"
    )
    extra = f'<generalfeedback format="html"><text><![CDATA[{feedback}]]></text></generalfeedback>'

    draft = one(quiz(multichoice("Q?", extra=extra)))

    assert draft.explanation == "Why it works."
    assert draft.steps == [Step("Read", "Read it.")]
    assert draft.final_answer == "right"


def test_the_exported_task_kinds_are_choice_and_fill(tmp_path: Path) -> None:
    kinds = [t.kind for t in round_trip(bank(), tmp_path)]

    assert kinds == [Kind.CHOICE, Kind.CHOICE, Kind.FILL, Kind.FILL, Kind.CHOICE]
