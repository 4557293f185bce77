"""A multi task in the close summary and /insights: its answer is every right option, and each
wrong pick in a submitted set counts toward the group's misconceptions with its note."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.reports import summary
from bot.store.schedules import AttemptInfo
from tests.factories import multi, note

T0 = datetime(2025, 3, 3, 8, 0)
TASK = multi(
    texts=("list", "tuple", "dict", "str"),
    answers=("A", "C"),
    mistakes=(note("A tuple cannot change after it is made.", "B"),),
)


def attempt(user: int, no: int, picks: str, correct: bool) -> AttemptInfo:
    return AttemptInfo(1, user, no, tuple(picks.split(",")), correct, T0 + timedelta(minutes=user))


def test_the_summary_names_every_right_option_and_the_common_wrong_pick() -> None:
    attempts = [
        attempt(1, 1, "A,B", False),
        attempt(1, 2, "A,C", True),
        attempt(2, 1, "B,C", False),
        attempt(3, 1, "A,C", True),
        attempt(4, 1, "A", False),  # a right option missed: no wrong pick
    ]
    result = summary.summarise(TASK, attempts)
    assert result.answer == "A · list, C · dict"
    assert (result.answered, result.solved, result.first_try) == (4, 2, 1)
    assert [(m.label, m.members, m.blank) for m in result.misconceptions] == [("B", 2, None)]
    assert result.misconceptions[0].line() == (
        "50% picked B — A tuple cannot change after it is made."
    )
