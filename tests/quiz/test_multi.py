"""The multi kind's rules: a submitted set is one attempt, its credit the sum of the picked
options' weights (clamped to 0..100%), right only at full credit; points follow the credit."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from bot.quiz.task_codec import decode_task, encode_task, task_hash
from bot.quiz.tasks import MAX_ATTEMPTS, Kind
from tests.factories import choice, multi, note

TASK = multi(
    texts=("right", "also right", "wrong", "far off"),
    answers=("A", "B"),
    mistakes=(note("C is the classic slip.", "C"), note("D is far off.", "D"), note("Look again.")),
)
"""Medium (20 points): A and B are right, 50% each; C and D take 50% each."""
MOODLE = multi(weights=("33.33333", "33.33333", "33.33333", "-100"), texts=("a", "b", "c", "d"))
"""Weights as Moodle writes a third: the three right options still add up to full credit."""


def test_the_right_set_is_right_whatever_the_order() -> None:
    outcome = engine.grade(TASK, Progress(), ("B", "A"))
    assert outcome.status is Status.CORRECT
    assert outcome.points == 20
    assert outcome.picks == ("A", "B")
    assert outcome.credit == 1


def test_thirds_written_as_moodle_writes_them_make_full_credit() -> None:
    assert engine.grade(MOODLE, Progress(), ("A", "B", "C")).status is Status.CORRECT
    assert engine.credit(MOODLE, ("A", "B")) == Fraction(6666666, 10000000)


def test_a_partial_set_is_one_attempt_with_its_credit_and_the_wrong_picks_notes() -> None:
    outcome = engine.grade(TASK, Progress(), ("A", "C"))
    assert outcome.status is Status.WRONG
    assert outcome.credit == 0  # 50 - 50
    assert outcome.wrong_picks == ("C",)
    assert outcome.notes == ("C is the classic slip.",)
    assert outcome.progress.attempts_left == MAX_ATTEMPTS - 1
    assert outcome.points == 0


def test_each_wrong_pick_brings_its_own_note_and_a_miss_only_the_general_one() -> None:
    both = engine.grade(TASK, Progress(), ("C", "D"))
    assert both.notes == ("C is the classic slip.", "D is far off.")
    missed = engine.grade(TASK, Progress(), ("A",))
    assert missed.wrong_picks == ()
    assert missed.credit == Fraction(1, 2)
    assert missed.notes == ("Look again.",)


def test_the_same_set_again_uses_no_attempt() -> None:
    first = engine.grade(TASK, Progress(), ("A", "C"))
    again = engine.grade(TASK, first.progress, ("C", "A"))
    assert again.status is Status.REPEATED
    assert again.progress == first.progress


def test_the_last_attempt_earns_its_credits_share_of_what_it_was_worth() -> None:
    progress = Progress()
    for picks in (("C",), ("D",)):
        progress = engine.grade(TASK, progress, picks).progress
    last = engine.grade(TASK, progress, ("A",))
    assert last.status is Status.FAILED
    # 20 points x 1/3 (third attempt) x 50% credit = 3.33, rounded: 3.
    assert last.points == last.progress.points == 3
    assert last.progress.finished and not last.progress.solved


def test_the_last_attempt_after_a_hint_is_halved_too() -> None:
    progress = Progress(wrong_tries=2, hints_seen=1, tried=frozenset({("C",), ("D",)}))
    last = engine.grade(TASK, progress, ("A",))
    assert last.points == 2  # 20 x 1/3 x 1/2 x 1/2 = 1.67


def test_an_empty_set_is_refused_before_grading() -> None:
    with pytest.raises(BlankAnswerError):
        engine.grade(TASK, Progress(), ())


def test_an_unknown_option_is_refused() -> None:
    with pytest.raises(InvalidAnswerError, match="no option Z"):
        engine.grade(TASK, Progress(), ("A", "Z"))


def test_describe_answer_names_every_pick() -> None:
    assert engine.describe_answer(TASK, ("A", "C")) == "A · right, C · wrong"
    assert TASK.final_answer() == "right; also right"


def test_a_multi_task_round_trips_through_the_codec_and_a_choice_hash_is_unchanged() -> None:
    content, _ = encode_task(MOODLE)
    assert decode_task(content) == MOODLE
    assert '"weights"' not in encode_task(choice())[0]
    assert task_hash(MOODLE) != task_hash(multi(texts=("a", "b", "c", "d")))


labels = st.lists(st.sampled_from("ABCD"), max_size=6)
weights = st.lists(
    st.integers(min_value=-100, max_value=100).map(Fraction), min_size=4, max_size=4
)


@given(weights=weights, picks=labels)
def test_credit_is_never_negative_nor_above_full(weights: list[Fraction], picks: list[str]) -> None:
    task = multi(weights=[str(w) for w in weights], texts=("a", "b", "c", "d"))
    got = engine.credit(task, picks)
    assert 0 <= got <= 1


@given(picks=labels.filter(bool), data=st.data())
def test_grading_is_order_insensitive(picks: list[str], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(picks))
    a = engine.grade(TASK, Progress(), picks)
    b = engine.grade(TASK, Progress(), shuffled)
    assert a == b


@given(sets=st.lists(labels.filter(bool), min_size=1, max_size=6))
def test_points_never_go_below_zero_and_attempts_never_exceed_three(
    sets: list[list[str]],
) -> None:
    progress = Progress()
    for picks in sets:
        outcome = engine.grade(TASK, progress, picks)
        progress = outcome.progress
        assert outcome.points >= 0
        assert progress.attempts_used <= MAX_ATTEMPTS
        if outcome.status is Status.CORRECT:
            assert set(picks) == {"A", "B"}
    assert progress.points >= 0


@given(picks=labels.filter(bool))
def test_only_full_credit_is_right(picks: list[str]) -> None:
    outcome = engine.grade(TASK, Progress(), picks)
    assert outcome.correct == (engine.credit(TASK, picks) == 1)


def test_kind_value_is_the_bank_word() -> None:
    assert Kind("multi") is Kind.MULTI
