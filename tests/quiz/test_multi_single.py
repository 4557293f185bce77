"""A single-pick multi task (Moodle's single-answer multiple choice with partial credit): one
option, its weight the credit (never below 0); a partial pick is a miss that still earns its
share on the last attempt; two picks are refused before any attempt is used."""

from fractions import Fraction

import pytest

from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.task_codec import decode_task, encode_task, task_hash, task_to_dict
from bot.quiz.tasks import MAX_ATTEMPTS
from tests.factories import multi, note

TASK = multi(
    texts=("full", "half", "wrong", "costly"),
    weights=(100, 50, 0, -50),
    single=True,
    mistakes=(note("Half of it.", "B"), note("Not this one.", "C"), note("Look again.")),
)
"""Medium (20 points): A is right, B earns half, C nothing, D -50% (clamped to 0)."""


def test_the_full_credit_option_is_right() -> None:
    outcome = engine.grade(TASK, Progress(), ("A",))
    assert (outcome.status, outcome.points, outcome.credit) == (Status.CORRECT, 20, 1)


@pytest.mark.parametrize(
    ("pick", "credit", "note"),
    [("B", Fraction(1, 2), "Half of it."), ("C", 0, "Not this one."), ("D", 0, "Look again.")],
    ids=["half", "wrong", "negative-clamped"],
)
def test_any_other_option_is_a_miss_with_its_credit_and_note(
    pick: str, credit: Fraction, note: str
) -> None:
    outcome = engine.grade(TASK, Progress(), (pick,))
    assert outcome.status is Status.WRONG
    assert outcome.credit == credit
    assert outcome.wrong_picks == (pick,)
    assert outcome.notes == (note,)
    assert outcome.progress.attempts_left == MAX_ATTEMPTS - 1
    assert outcome.points == 0


def test_a_partial_pick_on_the_last_attempt_earns_its_share() -> None:
    last = Progress(wrong_tries=MAX_ATTEMPTS - 1)
    half = engine.grade(TASK, last, ("B",))
    assert (half.status, half.points) == (Status.FAILED, 3)  # 20 × 1/3 × 50%, rounded
    assert engine.grade(TASK, last, ("D",)).points == 0


@pytest.mark.parametrize("picks", [("A", "B"), ("B", "C", "D")])
def test_two_picks_are_refused_and_use_no_attempt(picks: tuple[str, ...]) -> None:
    with pytest.raises(InvalidAnswerError, match="takes one option"):
        engine.normalise_picks(TASK, picks)
    with pytest.raises(InvalidAnswerError):
        engine.grade(TASK, Progress(), picks)


def test_the_same_pick_twice_is_still_one_option() -> None:
    assert engine.normalise_picks(TASK, ("B", "B")) == ("B",)


def test_the_version_keeps_single_and_older_multi_tasks_keep_their_hash() -> None:
    assert decode_task(encode_task(TASK)[0]) == TASK
    several = multi(weights=(50, 50, 0, 0))
    assert "single" not in task_to_dict(several)
    assert task_hash(several) != task_hash(multi(weights=(50, 50, 0, 0), single=True))
