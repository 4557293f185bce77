"""`hint:` (one), `hints:` (a ladder) or neither, as the content check reads them: each problem
with its file, line, task and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.content import Problem, check_banks
from bot.quiz.tasks import MAX_HINTS

BANK = """\
bank: Hints
topic: Testing
tasks:
  - id: t-hints
    kind: choice
    difficulty: easy
    question: Which colour is grass?
    options: [red, green]
    answer: B
{hints}    solution:
      final_answer: green
"""


def check(tmp_path: Path, hints: str) -> tuple[Path, tuple[str, ...] | None, list[Problem]]:
    file = tmp_path / "hints.yaml"
    file.write_text(BANK.format(hints=hints), encoding="utf-8")
    catalog, problems = check_banks(file)
    task = catalog.get("t-hints")
    return file, (None if task is None else task.hints), problems


def line(file: Path, needle: str) -> int:
    return next(n for n, text in enumerate(file.read_text().splitlines(), 1) if needle in text)


@pytest.mark.parametrize(
    ("hints", "ladder"),
    [
        ("", ()),
        ("    hint: Not red.\n", ("Not red.",)),
        ("    hints:\n      - Not red.\n      - Look outside.\n", ("Not red.", "Look outside.")),
        ("    hints: [Only this one.]\n", ("Only this one.",)),
    ],
    ids=["none", "one", "ladder", "a-ladder-of-one"],
)
def test_a_task_may_have_no_hint_one_or_a_ladder(
    tmp_path: Path, hints: str, ladder: tuple[str, ...]
) -> None:
    _, found, problems = check(tmp_path, hints)
    assert problems == []
    assert found == ladder


def one_problem(problems: list[Problem]) -> Problem:
    assert len(problems) == 1, "\n".join(map(str, problems))
    return problems[0]


def test_hint_and_hints_together_are_refused_at_hints(tmp_path: Path) -> None:
    file, found, problems = check(tmp_path, "    hint: Not red.\n    hints: [Look outside.]\n")
    problem = one_problem(problems)
    assert found is None
    assert (problem.line, problem.task, problem.field) == (line(file, "hints:"), "t-hints", "hints")
    assert "either hint or hints, not both" in problem.message


def test_a_ladder_longer_than_the_bound_is_refused(tmp_path: Path) -> None:
    items = "".join(f"      - Hint {n}.\n" for n in range(MAX_HINTS + 1))
    file, _, problems = check(tmp_path, f"    hints:\n{items}")
    problem = one_problem(problems)
    assert (problem.line, problem.field) == (line(file, "- Hint 0."), "hints")
    assert f"{MAX_HINTS + 1} hints; at most {MAX_HINTS} are allowed" in problem.message


@pytest.mark.parametrize(
    ("hints", "field", "needle", "message"),
    [
        ("    hints: []\n", "hints", "hints:", "needs at least 1 hint"),
        ("    hints:\n      - Same.\n      - Same.\n", "hints[1]", "- Same.", "repeats hint 1"),
        ("    hints:\n      - Fine.\n      - \n", "hints[1]", "- \n", "must not be empty"),
        ("    hints:\n      - Fine.\n      - " + "h" * 1025 + "\n", "hints[1]", "hhh", "1,024"),
        ("    hints: Not a list.\n", "hints", "hints:", "expected a list"),
    ],
    ids=["empty", "repeated", "blank", "too-long", "not-a-list"],
)
def test_each_hint_of_a_ladder_is_checked_where_it_is(
    tmp_path: Path, hints: str, field: str, needle: str, message: str
) -> None:
    file, found, problems = check(tmp_path, hints)
    problem = one_problem(problems)
    assert found is None
    assert (problem.task, problem.field) == ("t-hints", field)
    if needle == "- Same.":
        assert problem.line == line(file, "- Same.") + 1  # the second one
    elif needle != "- \n":
        assert problem.line == line(file, needle)
    assert message in problem.message
