"""A short task in a bank: accepted answers with an optional credit, `case_sensitive`,
`typos`, notes on known wrong answers and a catch-all; checked with file, line, task and field."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from bot.content import check_banks
from bot.quiz.tasks import Kind
from bot.quiz.typed import Accepted, TypedMistake

from .test_loader import assert_problem, line_of, only, write

BANK = """\
bank: Geography
topic: geography
tasks:
  - id: capital-fr
    kind: short
    difficulty: easy
    question: What is the capital of France?
    answers:
      - Paris
      - text: Paname
        credit: 50
    typos: 1
    mistakes:
      - answers: [Marseille, Lyon]
        note: A large city, but not the capital.
      - Think of the Eiffel Tower.
    hint: It is on the Seine.
    solution:
      final_answer: Paris
"""


def test_a_short_task_loads_with_its_answers_credits_and_notes(tmp_path: Path) -> None:
    catalog, problems = check_banks(write(tmp_path, BANK))
    assert problems == []
    task = catalog.get_or_raise("capital-fr")
    assert task.kind is Kind.SHORT and task.short is not None
    assert task.short.accepted == (Accepted("Paris"), Accepted("Paname", Fraction(50)))
    assert task.short.typos == 1 and not task.short.case_sensitive
    assert task.short.mistakes == (
        TypedMistake(("Marseille", "Lyon"), "A large city, but not the capital."),
    )
    assert task.general_notes == ("Think of the Eiffel Tower.",)
    assert task.options == ()


def test_a_bad_credit_is_placed_by_line_task_and_field(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("credit: 50", "credit: 150"))
    _, problems = check_banks(file)
    assert_problem(
        only(problems),
        file,
        line_of(file, "credit: 150"),
        "capital-fr",
        "answers[1].credit",
        "a credit is a percentage",
    )


def test_too_many_typos_are_refused(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("typos: 1", "typos: 4"))
    _, problems = check_banks(file)
    assert_problem(only(problems), file, line_of(file, "typos: 4"), "capital-fr", "typos", "0 to 2")


def test_a_known_mistake_that_is_accepted_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("[Marseille, Lyon]", "[Marseille, paris]"))
    _, problems = check_banks(file)
    problem = only(problems)
    assert (problem.task, problem.field) == ("capital-fr", "mistakes[0].answers")
    assert "'paris' is accepted" in problem.message


def test_an_answer_given_twice_is_refused(tmp_path: Path) -> None:
    file = write(
        tmp_path, BANK.replace("      - text: Paname", "      - PARIS\n      - text: Paname")
    )
    _, problems = check_banks(file)
    assert_problem(
        only(problems),
        file,
        line_of(file, "- PARIS"),
        "capital-fr",
        "answers[1]",
        "repeats answer 1",
    )


def test_partial_credit_alone_is_refused(tmp_path: Path) -> None:
    file = write(
        tmp_path, BANK.replace("      - Paris\n", "      - text: Paris\n        credit: 80\n")
    )
    _, problems = check_banks(file)
    problem = only(problems)
    assert (problem.task, problem.field) == ("capital-fr", "answers")
    assert "no answer earns full credit" in problem.message


def test_options_are_not_a_short_tasks_key(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("    typos: 1\n", "    typos: 1\n    options: [a, b]\n"))
    _, problems = check_banks(file)
    problem = only(problems)
    assert (problem.task, problem.line) == ("capital-fr", line_of(file, "options: [a, b]"))


NUMERICAL = """\
bank: Physics
topic: physics
tasks:
  - id: gravity
    kind: numerical
    difficulty: medium
    question: The acceleration due to gravity, in m/s²?
    answers:
      - 9.81:0.05
      - answer: 9.5..10
        credit: 50
    units:
      - unit: m/s²
      - unit: cm/s²
        multiplier: 100
    unit_penalty: 10
    mistakes:
      - answers: ["-9.81:0.1"]
        note: Give the size, not the sign.
    solution:
      explanation: About 9.81 m/s².
"""


def test_a_numerical_task_loads_its_answers_as_written_and_its_units(tmp_path: Path) -> None:
    catalog, problems = check_banks(write(tmp_path, NUMERICAL))
    assert problems == []
    task = catalog.get_or_raise("gravity")
    assert task.kind is Kind.NUMERICAL and task.numeric is not None
    # An unquoted 9.81:0.05 is YAML 1.1's sexagesimal number: read as the author wrote it.
    first, second = task.numeric.answers
    assert (first.low, first.high, first.credit) == (Fraction("9.76"), Fraction("9.86"), 100)
    assert (second.low, second.high, second.credit) == (Fraction("9.5"), 10, 50)
    assert [(u.name, u.multiplier) for u in task.numeric.units] == [("m/s²", 1), ("cm/s²", 100)]
    assert task.numeric.unit_penalty == 10


def test_an_answer_that_is_no_number_is_placed_by_line_task_and_field(tmp_path: Path) -> None:
    file = write(tmp_path, NUMERICAL.replace("- 9.81:0.05", "- about ten"))
    _, problems = check_banks(file)
    assert_problem(
        only(problems),
        file,
        line_of(file, "- about ten"),
        "gravity",
        "answers[0]",
        "'about ten' is not a numerical answer",
    )


def test_the_first_unit_has_no_multiplier(tmp_path: Path) -> None:
    file = write(tmp_path, NUMERICAL.replace("- unit: m/s²", "- unit: m/s²\n        multiplier: 2"))
    _, problems = check_banks(file)
    problem = only(problems)
    assert (problem.task, problem.field) == ("gravity", "units[0].multiplier")
