"""`numerical` tasks, graded as Moodle grades them: a value with a tolerance or a range, several
answers with partial credit, a decimal comma, scientific notation and units with multipliers
and a unit penalty; text that is no number uses no attempt."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.quiz import engine, numeric
from bot.quiz.engine import Progress, Status
from bot.quiz.numeric import NotANumberError, NumericAnswers, Unit, parse_spec
from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Solution, Task
from bot.quiz.typed import TypedMistake


def numerical(
    *specs: str | tuple[str, int],
    units: tuple[Unit, ...] = (),
    penalty: int = 0,
    mistakes: tuple[TypedMistake, ...] = (),
) -> Task:
    answers = []
    for spec in specs:
        text, credit = spec if isinstance(spec, tuple) else (spec, 100)
        answer = parse_spec(text, Fraction(credit))
        assert answer is not None
        answers.append(answer)
    return Task(
        id="t-num",
        topic="physics",
        kind=Kind.NUMERICAL,
        difficulty=Difficulty.MEDIUM,
        prompt="g, in m/s²?",
        options=(),
        answers=(),
        hints=(),
        solution=Solution(explanation="About 9.81."),
        mistakes=(MistakeNote("About ten."),),
        numeric=NumericAnswers(tuple(answers), units, Fraction(penalty), mistakes),
    )


@pytest.mark.parametrize("typed", ["9.81", "9,81", "9.8", "9.86", "981e-2", " 0.0981E2 "])
def test_a_value_within_the_tolerance_is_right_however_written(typed: str) -> None:
    assert engine.grade(numerical("9.81:0.05"), Progress(), [typed]).correct


@pytest.mark.parametrize("typed", ["9.75", "10", "-9.81"])
def test_a_value_outside_the_tolerance_is_wrong(typed: str) -> None:
    assert engine.grade(numerical("9.81:0.05"), Progress(), [typed]).status is Status.WRONG


def test_a_range_holds_its_ends() -> None:
    task = numerical("1..5")
    assert engine.grade(task, Progress(), ["1"]).correct
    assert engine.grade(task, Progress(), ["5"]).correct
    assert not engine.grade(task, Progress(), ["5.01"]).correct


def test_the_first_answer_holding_the_value_gives_its_credit() -> None:
    task = numerical("3:0", ("3:1", 50))
    assert engine.grade(task, Progress(), ["3"]).correct
    half = engine.grade(task, Progress(), ["3.5"])
    assert half.status is Status.WRONG and half.credit == Fraction(1, 2)
    last = engine.grade(task, Progress(wrong_tries=2, tried=frozenset({("1",), ("2",)})), ["3.5"])
    assert last.status is Status.FAILED and last.points == 3  # 20 × 1/3 × 50%, half up


def test_a_unit_converts_by_its_multiplier_and_a_missing_one_costs_the_penalty() -> None:
    units = (Unit("m"), Unit("cm", Fraction(100)))
    task = numerical("1.5:0", units=units, penalty=10)
    assert engine.grade(task, Progress(), ["150 cm"]).correct
    assert engine.grade(task, Progress(), ["1.5m"]).correct
    bare = engine.grade(task, Progress(), ["1.5"])
    assert bare.status is Status.WRONG and bare.credit == Fraction(9, 10)
    free = numerical("1.5:0", units=units)  # no penalty: the unit is optional
    assert engine.grade(free, Progress(), ["1.5"]).correct


@pytest.mark.parametrize("typed", ["abc", "three", "1.5 m", "--3", "3..4", "1,000,000"])
def test_text_that_is_no_number_is_refused_before_any_attempt(typed: str) -> None:
    with pytest.raises(NotANumberError):
        engine.grade(numerical("3"), Progress(), [typed])


def test_a_known_wrong_value_brings_its_note() -> None:
    task = numerical("9.81:0.05", mistakes=(TypedMistake(("-9.81:0.1",), "Give the size."),))
    assert engine.grade(task, Progress(), ["-9.8"]).notes == ("Give the size.",)
    assert engine.grade(task, Progress(), ["5"]).notes == ("About ten.",)


def test_a_numerical_task_survives_its_stored_version() -> None:
    task = numerical("9.81:0.05", ("9.8:0.5", 50), units=(Unit("m"), Unit("cm", Fraction(100))))
    assert decode_task(encode_task(task)[0]) == task
    assert task.final_answer() == "9.81 m (± 0.05)"


@given(st.fractions(), st.fractions(min_value=0))
def test_the_answer_itself_and_its_tolerances_ends_are_right(
    value: Fraction, tol: Fraction
) -> None:
    answer = numeric.NumAnswer(value - tol, value + tol)
    spec = NumericAnswers((answer,))
    assert numeric.match(spec, str(float(value))).credit in (0, 1)
    for end in (value - tol, value, value + tol):
        assert answer.holds(end)


@given(st.decimals(allow_nan=False, allow_infinity=False, places=4))
def test_a_decimal_comma_reads_as_a_point(value: object) -> None:
    text = str(value)
    if "E" in text or "e" in text:
        return
    assert numeric.number(text.replace(".", ",")) == numeric.number(text)


def test_the_same_wrong_value_written_another_way_uses_no_second_attempt() -> None:
    units = (Unit("m"), Unit("cm", Fraction(100)))
    task = numerical("1.5:0", units=units)
    first = engine.grade(task, Progress(), ["2,5 m"])
    assert first.status is Status.WRONG
    for again in ("2.5 m", "2.50m", "250 cm", "25e-1 m"):
        repeat = engine.grade(task, first.progress, [again])
        assert repeat.status is Status.REPEATED, again
        assert repeat.progress == first.progress
    # With its unit left out, the unit penalty could change the credit: another answer.
    other = engine.grade(task, first.progress, ["2.5"])
    assert other.status is Status.WRONG and other.progress.attempts_left == 1
