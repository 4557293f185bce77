"""Aiken edge cases the importer's own tests left open (found by mutation testing, issue 27):
what `looks_like` takes for Aiken, where a question ends, and what a bank is named."""

from __future__ import annotations

from bot.content.importers import aiken
from bot.content.importers.drafts import ImportResult

ONE = "What does len([1, 2]) return?\nA) 1\nB) 2\nANSWER: B"


def reported(result: ImportResult) -> list[str]:
    return [line.render("q.txt") for line in result.report]


def test_looks_like_needs_an_answer_line_right_after_an_option() -> None:
    assert aiken.looks_like(ONE)
    assert aiken.looks_like("Which?\nA) only\nANSWER: A")  # the line before it is an option
    assert aiken.looks_like("A) x\nANSWER: A")  # the second line already
    assert not aiken.looks_like("Which?\nA) one\nB) two\n")  # options, but no ANSWER
    assert not aiken.looks_like("ANSWER: B\nWhich?\nA) one")  # ANSWER first: no option before
    assert not aiken.looks_like("Which?\nA) one\nWell.\nANSWER: A")


def test_xml_is_never_aiken_even_after_blank_lines() -> None:
    xml = f"<quiz><question><text>\n{ONE}\n</text></question></quiz>"
    assert not aiken.looks_like(xml)
    assert not aiken.looks_like("\n\n  " + xml)


def test_the_bank_is_named_after_the_file_and_says_where_it_came_from() -> None:
    result = aiken.parse(ONE, source="uploads/week-1.txt")
    assert (result.bank, result.topic, result.source) == ("week-1", "week-1", "Aiken: week-1.txt")
    nameless = aiken.parse(ONE, source="")
    assert (nameless.bank, nameless.topic) == ("aiken", "aiken")


def test_a_byte_order_mark_is_not_part_of_the_first_question() -> None:
    (draft,) = aiken.parse("\ufeff" + ONE, source="q.txt").drafts
    assert draft.question == "What does len([1, 2]) return?"


def test_a_blank_line_splits_questions_except_before_the_first_option() -> None:
    # Between a question's lines and its options: still one question.
    result = aiken.parse("Two lines\nof question\n\nA) x\nB) y\nANSWER: A", source="q.txt")
    assert [d.question for d in result.drafts] == ["Two lines\nof question"]
    assert result.report == []
    # Inside the question text, before any option: the part above is a question of its own.
    result = aiken.parse("Orphan text\n\nReal question?\nA) x\nB) y\nANSWER: B", source="q.txt")
    assert [d.question for d in result.drafts] == ["Real question?"]
    assert reported(result) == [
        "q.txt:1: left out: the question at line 1 is not valid Aiken: it has no options "
        "(A) text or A. text) and no ANSWER line"
    ]
    # Once options have begun, a blank line ends the question, even before another option.
    result = aiken.parse("Which?\nA) x\n\nB) y\nANSWER: B", source="q.txt")
    assert result.drafts == []
    assert reported(result) == [
        "q.txt:2: left out: the question at line 1 is not valid Aiken: no ANSWER: line after "
        "its options",
        "q.txt:4: left out: the question at line 4 is not valid Aiken: it starts with the "
        "option line 'B) y': no question text",
    ]


def test_a_question_with_two_answer_lines_does_not_stop_the_import() -> None:
    text = f"Which?\nA) x\nB) y\nANSWER: A\nANSWER: B\n\n{ONE}"
    result = aiken.parse(text, source="q.txt")
    assert [d.question for d in result.drafts] == ["What does len([1, 2]) return?"]
    assert reported(result) == [
        "q.txt:5: left out: the question at line 1 is not valid Aiken: two ANSWER lines "
        "(the first is line 4)"
    ]


def test_a_first_line_that_reads_like_an_option_is_question_text() -> None:
    """`A) or B) is the question` followed by more question text is a question, not an
    option without a question."""
    text = "A. Which statement is true?\nPick one.\nA) x\nB) y\nANSWER: B"
    (draft,) = aiken.parse(text, source="q.txt").drafts
    assert draft.question == "A. Which statement is true?\nPick one."
    assert (draft.options, draft.answers) == (["x", "y"], ["B"])


def test_a_file_ending_in_blank_lines_after_a_bad_question_is_reported() -> None:
    result = aiken.parse("Just some text\n\n\n", source="q.txt")
    assert result.drafts == []
    assert reported(result) == [
        "q.txt:1: left out: the question at line 1 is not valid Aiken: it has no options "
        "(A) text or A. text) and no ANSWER line"
    ]


def test_a_first_line_that_is_a_bare_label_is_question_text() -> None:
    (draft,) = aiken.parse("A.\nWhich is it?\nA) x\nB) y\nANSWER: A", source="q.txt").drafts
    assert draft.question == "A.\nWhich is it?"
