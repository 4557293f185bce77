"""A multi task in a bank: `answers:` for equal weights or a `weight:` on options, checked with
file, line, task and field."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.content import check_banks
from bot.quiz.tasks import Kind

from .test_loader import assert_problem, line_of, only, write

HEAD = """\
bank: Python types
topic: Python
tasks:
  - id: py-mutable
    kind: multi
    difficulty: medium
    question: Which of these types are mutable?
    hint: Can you change it after you made it?
    solution:
      explanation: Lists and dicts change in place; tuples and strings never do.
    mistakes:
      - note: A tuple cannot change after it is made.
        options: [B]
"""
EQUAL = HEAD + """\
    options: [list, tuple, dict, str]
    answers: [A, C]
    show_count: true
"""
WEIGHTED = HEAD + """\
    options:
      - text: list
        weight: 50
      - text: tuple
        weight: -100
      - text: dict
        weight: 50
      - str
"""


def test_answers_give_the_right_options_equal_shares_and_wrong_ones_take_one(
    tmp_path: Path,
) -> None:
    catalog, problems = check_banks(write(tmp_path, EQUAL))
    assert problems == []
    task = catalog.get_or_raise("py-mutable")
    assert task.kind is Kind.MULTI
    assert task.answers == ("A", "C")
    assert task.weights == (50, -50, 50, -50)
    assert task.show_count


def test_weights_on_options_are_moodles_and_an_option_without_one_weighs_nothing(
    tmp_path: Path,
) -> None:
    catalog, problems = check_banks(write(tmp_path, WEIGHTED))
    assert problems == []
    task = catalog.get_or_raise("py-mutable")
    assert task.answers == ("A", "C")
    assert task.weights == (50, -100, 50, 0)
    assert not task.show_count


def test_thirds_as_moodle_writes_them_add_up(tmp_path: Path) -> None:
    text = WEIGHTED.replace("weight: 50", "weight: 33.33333").replace(
        "      - str\n", "      - text: str\n        weight: 33.33333\n"
    )
    catalog, problems = check_banks(write(tmp_path, text))
    assert problems == []
    assert catalog.get_or_raise("py-mutable").weights[0] == Fraction("33.33333")


@pytest.mark.parametrize(
    ("old", "new", "needle", "field", "message"),
    [
        (
            "weight: -100",
            "weight: -150",
            "weight: -150",
            "options[1].weight",
            "a percentage from -100 to 100",
        ),
        ("weight: -100", "weight: lots", "weight: lots", "options[1].weight", "expected a number"),
        (
            "        weight: 50\n      - text: tuple",
            "        weight: 40\n      - text: tuple",
            "- text: list",
            "options",
            "add up to 90%",
        ),
        (
            "      - str\n",
            "      - text: str\n        colour: red\n",
            "colour",
            "options[3]",
            "colour",
        ),
    ],
    ids=["out-of-range", "not-a-number", "not-100", "unknown-key"],
)
def test_a_bad_weight_is_named_with_its_line_and_field(
    tmp_path: Path, old: str, new: str, needle: str, field: str, message: str
) -> None:
    assert old in WEIGHTED
    file = write(tmp_path, WEIGHTED.replace(old, new, 1))
    _, problems = check_banks(file)
    problem = only(problems)
    assert_problem(problem, file, line_of(file, needle), "py-mutable", problem.field, message)
    assert problem.field is not None and problem.field.startswith(field)


def test_answers_and_weights_together_are_refused(tmp_path: Path) -> None:
    file = write(tmp_path, WEIGHTED + "    answers: [A]\n")
    problem = only(check_banks(file)[1])
    assert_problem(
        problem, file, line_of(file, "answers: [A]"), "py-mutable", "answers", "not both"
    )


def test_neither_answers_nor_weights_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, EQUAL.replace("    answers: [A, C]\n", ""))
    problem = only(check_banks(file)[1])
    assert_problem(problem, file, line_of(file, "options: [list"), "py-mutable", "answers", "")
    assert "missing 'answers'" in problem.message


def test_one_option_is_not_enough(tmp_path: Path) -> None:
    file = write(
        tmp_path, EQUAL.replace("[list, tuple, dict, str]", "[list]").replace("[A, C]", "[A]")
    )
    _, problems = check_banks(file)
    assert any("at least 2" in p.message and p.field == "options" for p in problems)


def test_an_answer_named_twice_or_unknown_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, EQUAL.replace("[A, C]", "[A, A]"))
    assert "named twice" in only(check_banks(file)[1]).message
    file = write(tmp_path, EQUAL.replace("[A, C]", "[A, F]"))
    problem = only(check_banks(file)[1])
    assert problem.field == "answers[1]"
    assert "not among the options" in problem.message


def test_a_note_tied_to_a_right_option_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, EQUAL.replace("options: [B]", "options: [C]"))
    problem = only(check_banks(file)[1])
    assert problem.field == "mistakes[0].options"
    assert "never be shown" in problem.message


def test_show_count_is_a_flag(tmp_path: Path) -> None:
    file = write(tmp_path, EQUAL.replace("show_count: true", "show_count: often"))
    problem = only(check_banks(file)[1])
    assert_problem(
        problem, file, line_of(file, "show_count"), "py-mutable", "show_count", "true or false"
    )


def test_a_weight_on_a_choice_option_is_refused(tmp_path: Path) -> None:
    text = WEIGHTED.replace("kind: multi", "kind: choice").replace(
        "      - str\n", "      - str\n    answer: A\n"
    )
    _, problems = check_banks(write(tmp_path, text))
    assert any(p.field == "options[0]" and "expected text" in p.message for p in problems)


def test_the_readmes_example_bank_with_its_multi_task_passes_the_check(tmp_path: Path) -> None:
    readme = Path(__file__).resolve().parents[2] / "content" / "README.md"
    example = readme.read_text(encoding="utf-8").split("```yaml\n", 1)[1].split("```", 1)[0]
    catalog, problems = check_banks(write(tmp_path, example))
    assert problems == []
    task = catalog.get_or_raise("python-mutable-types")
    assert (task.kind, task.answers, task.show_count) == (Kind.MULTI, ("A", "C"), True)
