"""The parsers of typed values: what each kind of value may be, and the error for the rest."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.quiz import refs
from bot.quiz.engine import post_id
from bot.quiz.errors import (
    InvalidAnswerError,
    InvalidInputError,
    ScheduleInputError,
    UnknownPostError,
)
from bot.quiz.tasks import Difficulty, blank_number, option_label

BIGGEST = str(2**63 - 1)
TOO_BIG = str(2**63)


@pytest.mark.parametrize(
    ("typed", "ref"),
    [
        ("12", 12),
        ("#12", 12),
        (" #12 ", 12),
        (BIGGEST, 2**63 - 1),
        ("", None),
        ("   ", None),
        (None, None),
        ("mc-split", "mc-split"),
        ("²", "²"),  # a digit to str.isdigit, but no id is written with it
        ("١٢", "١٢"),  # int() reads these as 12: still search text
        ("１２", "１２"),
        (TOO_BIG, TOO_BIG),  # no post can have it: search text, which matches no task id
        ("9" * 20, "9" * 20),
        ("0", "0"),
        ("-1", "-1"),
        ("##12", "##12"),
        ("\x00", None),
        ("mc-\x00split\n", "mc-split"),
    ],
)
def test_post_ref_is_an_id_only_in_ascii_digits_within_sqlite_range(
    typed: str | None, ref: int | str | None
) -> None:
    assert refs.post_ref(typed) == ref


@pytest.mark.parametrize("text", ["", "0", "-1", "+1", " 1", "#1", "²", "١٢", TOO_BIG,
                                  "9" * 20, "9" * 6000, "1e3", "0x10"])
def test_a_custom_id_post_field_that_is_no_id_is_an_unknown_post(text: str) -> None:
    with pytest.raises(UnknownPostError):
        post_id(text)


def test_a_custom_id_post_field_within_range_is_the_id() -> None:
    assert post_id("42") == 42
    assert post_id(BIGGEST) == 2**63 - 1


@pytest.mark.parametrize(
    ("parse", "good", "bad"),
    [
        (option_label, ["A", "Z"], ["", "a", "AB", "²", "-", "@"]),
        # 1..9: a blank of a fill task, or a stem of a matching task (MAX_STEMS).
        (blank_number, ["1", "5", "9"], ["", "0", "10", "²", "١", "-1", "a"]),
    ],
)
def test_custom_id_option_and_blank_fields(parse: Any, good: list[str], bad: list[str]) -> None:
    for text in good:
        parse(text)
    for text in bad:
        with pytest.raises(InvalidAnswerError):
            parse(text)


@pytest.mark.parametrize("value", [0, -1, 2**63, 10**20, "1", "abc", 1.0, True, None, []])
def test_a_schedule_id_outside_what_an_id_can_be_is_refused(value: object) -> None:
    with pytest.raises(ScheduleInputError, match="no daily quiz with that `id`"):
        refs.schedule_id(value)


def test_a_schedule_id_within_range_passes() -> None:
    assert refs.schedule_id(1) == 1
    assert refs.schedule_id(2**63 - 1) == 2**63 - 1


def test_text_is_bounded_and_the_refusal_names_the_option_not_the_value() -> None:
    assert refs.text("a" * 100, "topic") == "a" * 100
    assert refs.text("", "topic") == ""
    with pytest.raises(InvalidInputError) as refused:
        refs.text("@everyone" * 700, "topic")
    assert str(refused.value) == "The `topic` option takes at most 100 characters."
    with pytest.raises(InvalidInputError, match="`task` option takes text"):
        refs.text(12, "task")


def test_text_takes_any_language_but_refuses_a_lone_surrogate() -> None:
    """A raw payload's JSON can carry "\\ud800", which the database could not store."""
    assert refs.text("Grüße, 東京 🎉", "topic") == "Grüße, 東京 🎉"
    with pytest.raises(InvalidInputError, match="`topic` option takes text"):
        refs.text("ok \ud800", "topic")


@pytest.mark.parametrize("value", [0, 6, 999, -1, 2**64, "3", 3.0, True, None])
def test_whole_numbers_outside_the_range_or_not_whole_are_refused(value: object) -> None:
    with pytest.raises(InvalidInputError) as refused:
        refs.whole_number(value, "count", 1, 5)
    assert str(refused.value) == "The `count` option takes a whole number from 1 to 5."


def test_choices_take_exactly_their_values() -> None:
    assert refs.choice("easy", "difficulty", Difficulty) is Difficulty.EASY
    for value in ("extreme", "EASY", "Easy", " easy", "", None, 1, ["easy"]):
        with pytest.raises(InvalidInputError) as refused:
            refs.choice(value, "difficulty", Difficulty)
        assert str(refused.value) == (
            "The `difficulty` option takes one of: easy, medium, hard."
        )


def test_flags_take_only_booleans() -> None:
    assert refs.flag(True, "thread") is True
    for value in ("yes", "true", 1, 0, None):
        with pytest.raises(InvalidInputError, match="`thread`"):
            refs.flag(value, "thread")


@settings(max_examples=300, derandomize=True, database=None)
@given(st.text())
def test_any_text_is_an_in_range_id_or_search_text(text: str) -> None:
    ref = refs.post_ref(text)
    if isinstance(ref, int):
        assert 1 <= ref <= 2**63 - 1
    else:
        assert ref is None or ref == refs.search_text(text)
        assert ref is None or all(c.isprintable() for c in ref)


def test_the_first_post_and_one_digit_ids_are_ids() -> None:
    """Post 1 is the first post a server ever gets: its buttons and `/hint 1` must find it."""
    assert post_id("1") == 1
    assert post_id("7") == 7
    assert refs.post_ref("1") == 1
    assert refs.post_ref("#9") == 9


def test_whole_numbers_within_the_range_pass_ends_included() -> None:
    assert [refs.whole_number(n, "count", 1, 5) for n in (1, 3, 5)] == [1, 3, 5]


def test_a_flag_refusal_says_what_the_option_takes() -> None:
    assert refs.flag(False, "thread") is False
    with pytest.raises(InvalidInputError) as refused:
        refs.flag("yes", "thread")
    assert str(refused.value) == "The `thread` option takes True or False."
