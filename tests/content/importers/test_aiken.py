"""Aiken: plain-text multiple choice into choice tasks; malformed questions reported by line.

The source file under data/ was written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content import check_banks
from bot.content.importers import aiken
from bot.content.importers.drafts import ImportResult, bank_yaml

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "questions.aiken.txt"


def read() -> ImportResult:
    return aiken.parse(SOURCE.read_text(encoding="utf-8"), source=str(SOURCE), topic="Python")


def report(result: ImportResult, source: str = "q.txt") -> list[str]:
    return [line.render(source) for line in result.report]


def test_each_question_becomes_a_choice_task() -> None:
    drafts = read().drafts

    assert [(d.id, d.options, d.answers) for d in drafts] == [
        ("what-does-len-1-2-3-return", ["2", "3", "4"], ["B"]),
        ("which-keyword-defines-a-function-in-python", ["def", "function", "fn", "lambda"], ["A"]),
        ("which-of-these-is-immutable", ["list", "tuple"], ["B"]),
        # The same question twice: the id is made unique; "ANSWER: b" reads as B.
        ("what-does-len-1-2-3-return-2", ["three", "3"], ["B"]),
    ]
    # A question over two lines; `A.` options; no blank line before the next question.
    assert drafts[1].question == "Which keyword defines a function\nin Python?"
    assert [d.source_line for d in drafts] == [1, 7, 14, 34]


def test_aiken_has_no_feedback_so_no_hint_is_made_up_and_the_solution_is_the_answer() -> None:
    draft = read().drafts[0]

    assert draft.hints == []
    assert draft.final_answer == "3"
    assert draft.mistakes == []
    assert draft.comment is not None
    assert "hint" not in draft.comment


def test_malformed_questions_are_reported_with_their_line() -> None:
    assert report(read(), "q.txt") == [
        "q.txt:22: left out: the question at line 20 is not valid Aiken: "
        "no ANSWER: line after its options",
        "q.txt:26: left out: the question at line 24 is not valid Aiken: "
        "option C where B was expected",
        "q.txt:32: left out: the question at line 29 is not valid Aiken: "
        "ANSWER 'E' is not one of the options A–B",
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            "Question?\nNo options here.\n",
            "q.txt:2: left out: the question at line 1 is not valid Aiken: it has no options "
            "(A) text or A. text) and no ANSWER line",
        ),
        (
            "Question?\nA) only one\nANSWER: A\n",
            "q.txt:3: left out: the question at line 1 is not valid Aiken: the ANSWER line needs "
            "at least two options before it",
        ),
        (
            "Question?\nA) one\nB) two\nthen a stray line\nANSWER: A\n",
            "q.txt:4: left out: the question at line 1 is not valid Aiken: 'then a stray line' is "
            "neither an option nor the ANSWER line",
        ),
        (
            "Question?\nA) one\nB) two\nANSWER:\n",
            "q.txt:4: left out: the question at line 1 is not valid Aiken: the ANSWER line names "
            "no option",
        ),
    ],
)
def test_each_kind_of_malformed_question_says_what_is_wrong(text: str, line: str) -> None:
    result = aiken.parse(text, source="q.txt")

    assert result.drafts == []
    assert report(result) == [line]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (
            # Was "option B where A was expected": the empty A) was read as question text.
            "Question?\nA)\nB) two\nANSWER: B\n",
            "q.txt:2: left out: the question at line 1 is not valid Aiken: option A has no text",
        ),
        (
            "Question?\nA) one\nB.\nC) three\nANSWER: A\n",
            "q.txt:3: left out: the question at line 1 is not valid Aiken: option B has no text",
        ),
        (
            # Was "it has no options … and no ANSWER line", and the question was imported with
            # the first answer: which one is right is for a person to say.
            "Question?\nA) one\nB) two\nANSWER: A\n\nANSWER: B\n",
            "q.txt:6: left out: the question at line 1 is not valid Aiken: two ANSWER lines (the "
            "first is line 4)",
        ),
        (
            "Question?\nA) one\nB) two\nANSWER: A, B\n",
            "q.txt:4: left out: the question at line 1 is not valid Aiken: the ANSWER line names "
            "several options ('A, B'); one is right",
        ),
        (
            # Was an IndexError: a 27th option.
            "Question?\n"
            + "".join(f"{label}) {label.lower()}\n" for label in "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
            + "A) again\nANSWER: A\n",
            "q.txt:28: left out: the question at line 1 is not valid Aiken: more than 26 options "
            "(A–Z)",
        ),
    ],
)
def test_a_malformed_question_is_reported_as_what_is_wrong_with_it(text: str, line: str) -> None:
    result = aiken.parse(text, source="q.txt")

    assert result.drafts == []
    assert report(result) == [line]


def test_a_malformed_answer_line_never_swallows_the_next_question() -> None:
    # "ANSWER: A B" did not end its question, so the next one was read into it: dropped
    # without a line of its own.
    text = "One?\nA) a\nB) b\nANSWER: A B\nTwo?\nA) c\nB) d\nANSWER: B\n"

    result = aiken.parse(text, source="q.txt")

    assert [(d.question, d.answers, d.source_line) for d in result.drafts] == [("Two?", ["B"], 5)]
    assert report(result) == [
        "q.txt:4: left out: the question at line 1 is not valid Aiken: the ANSWER line names "
        "several options ('A B'); one is right"
    ]


def test_options_with_no_question_before_them_are_reported_as_such() -> None:
    # Was "the ANSWER line needs at least two options before it": 'C) three' was read as the
    # text of a question.
    text = "Question?\nA) one\nB) two\nANSWER: A\nC) three\nANSWER: C\n"

    result = aiken.parse(text, source="q.txt")

    assert [d.question for d in result.drafts] == ["Question?"]
    assert report(result) == [
        "q.txt:5: left out: the question at line 5 is not valid Aiken: it starts with the "
        "option line 'C) three': no question text"
    ]
    # Was "it has no options (A) text or A. text) and no ANSWER line".
    stray = aiken.parse("Question?\nA) one\nB) two\nANSWER: A\nC) three\n", source="q.txt")
    assert report(stray) == [
        "q.txt:5: left out: the question at line 5 is not valid Aiken: it starts with the "
        "option line 'C) three': no question text"
    ]


def test_a_blank_line_between_question_and_options_does_not_split_them() -> None:
    result = aiken.parse("Which?\n\nA) one\nB) two\nANSWER: B\n", source="q.txt")

    assert report(result) == []
    assert [(d.question, d.answers) for d in result.drafts] == [("Which?", ["B"])]


def test_the_bank_takes_the_topic_option_or_the_file_name() -> None:
    assert read().topic == "Python"
    assert aiken.parse("Q?\nA) a\nB) b\nANSWER: A\n", source="dir/intro.txt").topic == "intro"


def test_the_imported_bank_passes_the_content_check(tmp_path: Path) -> None:
    path = tmp_path / "aiken.yaml"
    path.write_text(bank_yaml(read()), encoding="utf-8")

    catalog, problems = check_banks(path)

    assert problems == []
    assert len(catalog) == 4
    assert catalog.get_or_raise("which-of-these-is-immutable").answer_text() == "tuple"


def test_looks_like_tells_aiken_from_other_formats() -> None:
    assert aiken.looks_like(SOURCE.read_text(encoding="utf-8"))
    assert not aiken.looks_like((DATA / "mixed.xml").read_text(encoding="utf-8"))
    assert not aiken.looks_like("::q:: Which? {=one ~two}\n")
    assert not aiken.looks_like("ANSWER: A\n")
