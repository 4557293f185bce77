"""The matching kind's rules: a full set of pairs is one attempt, right only when every pair
is; its credit is the share of right pairs (Moodle's), earned on the last attempt."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import MAX_ATTEMPTS, pair_key
from tests.factories import matching, note

TASK = matching(
    mistakes=(
        note("Lyon is France's third city.", pair_key(1, "A")),
        note("Look at the map."),
    )
)
"""Medium (20 points). Options A Lyon, B Madrid, C Paris, D Rome; right: C, D, B."""
RIGHT = ("C", "D", "B")


def test_every_pair_right_is_right_with_full_points() -> None:
    outcome = engine.grade(TASK, Progress(), RIGHT)
    assert outcome.status is Status.CORRECT
    assert (outcome.points, outcome.credit) == (20, 1)


def test_a_partly_right_set_is_one_attempt_naming_the_wrong_stems_and_their_notes() -> None:
    outcome = engine.grade(TASK, Progress(), ("A", "D", "C"))
    assert outcome.status is Status.WRONG
    assert outcome.wrong_blanks == (1, 3)
    assert outcome.credit == Fraction(1, 3)
    assert outcome.notes == ("Lyon is France's third city.",)
    assert outcome.progress.attempts_left == MAX_ATTEMPTS - 1
    assert outcome.points == 0


def test_a_note_is_tied_to_one_stem_s_wrong_answer_only() -> None:
    # Lyon for Spain is wrong too, but the note is about France: the general note instead.
    outcome = engine.grade(TASK, Progress(), ("C", "D", "A"))
    assert outcome.notes == ("Look at the map.",)


def test_the_same_pairs_again_use_no_attempt() -> None:
    first = engine.grade(TASK, Progress(), ("A", "D", "C"))
    again = engine.grade(TASK, first.progress, ("A", "D", "C"))
    assert again.status is Status.REPEATED
    assert again.progress == first.progress


def test_the_last_attempt_earns_its_credit_share_of_what_it_was_worth() -> None:
    progress = Progress()
    for picks in (("A", "B", "C"), ("B", "A", "C")):
        progress = engine.grade(TASK, progress, picks).progress
    last = engine.grade(TASK, progress, ("C", "A", "D"))  # one of three right
    assert last.status is Status.FAILED
    # 20 points x (3 - 2 misses) / 3, times a third: 2.2 -> 2.
    assert last.points == 2 == last.progress.points


def test_a_pick_of_the_wrong_shape_is_refused_before_any_attempt() -> None:
    with pytest.raises(InvalidAnswerError):
        engine.grade(TASK, Progress(), ("C", "D"))
    with pytest.raises(InvalidAnswerError):
        engine.grade(TASK, Progress(), ("C", "D", "Z"))


def test_a_version_keeps_the_stems_and_the_tied_notes() -> None:
    content, _ = encode_task(TASK)
    assert decode_task(content) == TASK
    assert engine.describe_answer(TASK, RIGHT) == "France → Paris, Italy → Rome, Spain → Madrid"


@given(picks=st.lists(st.sampled_from("ABCD"), min_size=3, max_size=3))
def test_credit_is_the_share_of_right_pairs_and_right_only_when_all_are(picks: list[str]) -> None:
    outcome = engine.grade(TASK, Progress(), picks)
    right = sum(got == want for got, want in zip(picks, RIGHT, strict=True))
    assert outcome.credit == Fraction(right, 3)
    assert outcome.correct is (right == 3)
    assert outcome.wrong_blanks == tuple(
        n for n, (got, want) in enumerate(zip(picks, RIGHT, strict=True), 1) if got != want
    )
    assert 0 <= outcome.points <= 20


@given(attempts=st.lists(st.lists(st.sampled_from("ABCD"), min_size=3, max_size=3), max_size=6))
def test_points_never_exceed_the_full_score_and_attempts_stop_at_three(
    attempts: list[list[str]],
) -> None:
    progress = Progress()
    for picks in attempts:
        progress = engine.grade(TASK, progress, picks).progress
    assert progress.wrong_tries <= MAX_ATTEMPTS
    assert 0 <= progress.points <= 20
