"""A numerical task in the close summary: wrong numbers are one answer when the engine reads one
value from them (a decimal comma, trailing zeros, another unit), shown in the task's first unit."""

from __future__ import annotations

from fractions import Fraction

from bot.quiz.numeric import Unit
from bot.quiz.typed import TypedMistake
from bot.reports import summary
from tests.quiz.test_numerical import numerical
from tests.reports.test_short_reports import attempt

NOTE = "A litre is 1000 ml, not 100."
GRAMS = (Unit("kg"), Unit("g", Fraction(1000)))


def test_one_wrong_value_however_written_is_one_answer_in_the_first_unit() -> None:
    task = numerical("0.35", units=GRAMS, mistakes=(TypedMistake(("3.5",), NOTE),))
    typed = ["3,5", " 3.50 kg", "3500 g", "35", "35,0 kg", "0,35"]
    attempts = [attempt(u, 1, text, text == "0,35") for u, text in enumerate(typed, 1)]
    [found] = summary.summarise(task, attempts).misconceptions
    assert (found.label, found.members) == ("3.5 kg", 3)
    assert found.line() == f"50% typed *3.5 kg* — {NOTE}"


def test_a_number_without_units_is_shown_as_a_plain_decimal() -> None:
    attempts = [attempt(u, 1, text, False) for u, text in enumerate(["1e3", "1000,0", "1000"])]
    [found] = summary.summarise(numerical("9.81"), attempts).misconceptions
    assert (found.label, found.members) == ("1000", 3)
    assert found.notes == ("About ten.",)  # the catch-all
