"""A matching task in the close summary and /insights: its answer is every pair, and a wrong
answer given for one stem by enough members is a misconception of that stem, with its note."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.quiz.tasks import pair_key
from bot.reports import summary
from bot.store.schedules import AttemptInfo
from tests.factories import matching, note

T0 = datetime(2025, 3, 3, 8, 0)
TASK = matching(mistakes=(note("Lyon is France's third city.", pair_key(1, "A")),))
"""Options A Lyon, B Madrid, C Paris, D Rome; right: C, D, B."""


def attempt(user: int, no: int, picks: str, correct: bool) -> AttemptInfo:
    return AttemptInfo(1, user, no, tuple(picks.split(",")), correct, T0 + timedelta(minutes=user))


def test_the_summary_names_every_pair_and_the_common_wrong_pair_with_its_note() -> None:
    attempts = [
        attempt(1, 1, "A,D,B", False),
        attempt(1, 2, "C,D,B", True),
        attempt(2, 1, "A,D,B", False),
        attempt(3, 1, "C,D,B", True),
        attempt(4, 1, "C,B,D", False),  # Italy and Spain swapped: one member each
    ]
    result = summary.summarise(TASK, attempts)
    assert result.answer == "France → Paris, Italy → Rome, Spain → Madrid"
    assert (result.answered, result.solved, result.first_try) == (4, 2, 1)
    first = result.misconceptions[0]
    assert (first.label, first.members, first.blank) == ("A", 2, 1)
    assert first.line() == "[1] 50% picked A — Lyon is France's third city."
