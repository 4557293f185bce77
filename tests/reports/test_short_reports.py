"""A short task in the close summary and /insights: its answer is the accepted one, and a wrong
typed answer, normalised, is named with its note only once at least 3 members gave it."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.quiz.typed import TypedMistake
from bot.reports import summary
from bot.store.schedules import AttemptInfo
from tests.quiz.test_short import short

T0 = datetime(2025, 3, 3, 8, 0)
TASK = short("Paris", mistakes=(TypedMistake(("Lyon",), "A large city, but not the capital."),))


def attempt(user: int, no: int, text: str, correct: bool) -> AttemptInfo:
    # Stored as the store reads it back: split at commas.
    return AttemptInfo(1, user, no, tuple(text.split(",")), correct, T0 + timedelta(minutes=user))


def test_a_wrong_typed_answer_three_members_gave_is_named_with_its_note() -> None:
    attempts = [
        attempt(1, 1, "Lyon", False),
        attempt(2, 1, "  lyon ", False),
        attempt(3, 1, "LYON", False),
        attempt(3, 2, "Paris", True),
        attempt(4, 1, "Nice, France", False),
        attempt(5, 1, "nice,  france", False),
        attempt(6, 1, "paris", True),
    ]
    result = summary.summarise(TASK, attempts)
    assert result.answer == "Paris"
    assert [(m.label, m.members) for m in result.misconceptions] == [("lyon", 3)]
    assert result.misconceptions[0].line() == (
        "50% typed *lyon* — A large city, but not the capital."
    )


def test_a_wrong_answer_two_members_gave_is_not_shown_whatever_its_share() -> None:
    attempts = [attempt(1, 1, "Lyon", False), attempt(2, 1, "lyon", False)]
    assert summary.summarise(TASK, attempts).misconceptions == ()


def test_a_typed_answer_cannot_format_the_summary() -> None:
    attempts = [attempt(u, 1, "**@everyone**", False) for u in (1, 2, 3)]
    [found] = summary.summarise(TASK, attempts).misconceptions
    assert "typed *\\*\\*@everyone\\*\\**" in found.line()
    assert found.notes == ("Think of the Eiffel Tower.",)  # the catch-all
