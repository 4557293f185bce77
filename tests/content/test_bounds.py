"""Hostile banks: every count and size is bounded before work proportional to it.

Each bank here once made `quizbot content check` build one message per blank number, walk an
alias bomb in full, or read a file of any size. Now each is refused with a bounded number of
problems, every one naming its file, line, task and field. The same banks are run through the
real command, under a memory cap, in test_hostile_cli.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
import yaml

from bot.content import check_banks, loader
from bot.content.commands import check_command
from bot.content.limits import (
    MAX_FILE_BYTES,
    MAX_LABELS,
    MAX_MISTAKES,
    MAX_OPTIONS,
    MAX_PROBLEMS_PER_FILE,
    MAX_STEPS,
    MAX_TASKS_PER_BANK,
)
from bot.content.nodes import NodeChecker
from bot.content.problems import MoreProblems, Problem

from .test_loader import GOOD_BANK, assert_problem, line_of, only, write

FILL_CODE = "value = [1](text.[2]())"
FILL_ANSWERS = "answers: [A, C]"


def fill_bank(tmp_path: Path, code: str, answers: str = "[A]") -> tuple[Path, list[Problem]]:
    """GOOD_BANK with the fill task's code (one line) and answers replaced."""
    text = GOOD_BANK.replace(FILL_CODE, code).replace(FILL_ANSWERS, f"answers: {answers}")
    file = write(tmp_path, text)
    return file, check_banks(file)[1]


def located(problems: list[Problem], file: Path) -> None:
    """Every problem names the file, a line and a field (and its task, asserted by the test),
    in a message that does not grow with the file."""
    for problem in problems:
        assert problem.file == file
        assert problem.line is not None and problem.field, problem
        assert len(str(problem)) < 300, problem


def task(id_: str) -> str:
    return f"""\
  - id: {id_}
    kind: choice
    difficulty: easy
    question: Which colour is grass?
    options: [red, green]
    answer: B
    hint: Not red.
    solution:
      explanation: Grass is green.
"""


def bank(*tasks: str) -> str:
    return "bank: Hostile\ntopic: Testing\ntasks:\n" + "".join(tasks)


# -- blank numbers --------------------------------------------------------------------------------


def test_a_huge_blank_number_is_one_problem(tmp_path: Path) -> None:
    # The bank: it used to build one "blank [n] is missing" per number up to 10^11.
    file, problems = fill_bank(tmp_path, "x = [1] + [99999999999]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "code: |"),
        "t-fill",
        "code",
        "blank [99999999999] is out of range: blanks go 1..5",
    )


def test_a_million_as_the_only_blank_is_one_problem(tmp_path: Path) -> None:
    file, problems = fill_bank(tmp_path, "x = [1000000]")
    assert_problem(
        only(problems), file, line_of(file, "code: |"), "t-fill", "code", "blank [1000000] is out"
    )


def test_a_blank_number_too_long_for_int_is_cut_short(tmp_path: Path) -> None:
    file, problems = fill_bank(tmp_path, "x = [1] + [" + "9" * 4000 + "]")
    problem = only(problems)
    assert (problem.field, problem.line) == ("code", line_of(file, "code: |"))
    assert problem.message.startswith("blank [9999")
    assert problem.message.endswith("…] is out of range: blanks go 1..5")
    assert len(problem.message) < 120


def test_several_out_of_range_blanks_are_one_problem(tmp_path: Path) -> None:
    _, problems = fill_bank(tmp_path, "x = [1] + [7] + [70] + [7]")
    assert only(problems).message == "blanks [7] and [70] are out of range: blanks go 1..5"


def test_missing_blanks_are_one_problem(tmp_path: Path) -> None:
    file, problems = fill_bank(tmp_path, "x = [1] + [5]", "[A, C]")
    assert_problem(
        only(problems),
        file,
        line_of(file, "code: |"),
        "t-fill",
        "code",
        "blanks [2] to [4] are missing: blanks are numbered [1] to [5] without gaps",
    )


def test_gaps_in_two_places_are_one_problem(tmp_path: Path) -> None:
    _, problems = fill_bank(tmp_path, "x = [1] + [3] + [5]", "[A, B, C]")
    assert only(problems).message.startswith("blanks [2] and [4] are missing")


def test_hundreds_of_blanks_are_one_problem(tmp_path: Path) -> None:
    code = "".join(f"[{n}]" for n in range(1, 701))  # 2,600 characters: within the code's limit
    file, problems = fill_bank(tmp_path, code)
    assert_problem(
        only(problems),
        file,
        line_of(file, "code: |"),
        "t-fill",
        "code",
        "the code has 700 blanks; at most 5 are allowed",
    )


def test_thousands_of_blanks_are_refused_as_too_long(tmp_path: Path) -> None:
    code = "".join(f"[{n}]" for n in range(1, 5001))
    file, problems = fill_bank(tmp_path, code)
    assert_problem(
        only(problems), file, line_of(file, "code: |"), "t-fill", "code", "Discord allows 4,096"
    )


def test_one_blank_repeated_a_thousand_times(tmp_path: Path) -> None:
    file, problems = fill_bank(tmp_path, "[1]" * 1000)
    assert_problem(
        only(problems), file, line_of(file, "code: |"), "t-fill", "code", "appears 1000 times"
    )


# -- counts ---------------------------------------------------------------------------------------


def test_an_enormous_option_list_is_one_problem_without_reading_it(tmp_path: Path) -> None:
    options = "options: [" + ",".join(["o"] * 50_000) + "]"
    text = GOOD_BANK.replace("    options:\n      - int\n      - str\n      - strip\n", "")
    text = text.replace("    answers: [A, C]", f"    {options}\n    answers: [A, C]")
    file = write(tmp_path, text)
    assert file.stat().st_size < MAX_FILE_BYTES
    assert_problem(
        only(check_banks(file)[1]),
        file,
        line_of(file, "options: [o,"),
        "t-fill",
        "options",
        f"50,000 options; at most {MAX_OPTIONS} are allowed",
    )


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        (
            "      explanation: int converts",
            "      steps:\n"
            + "        - {title: Look, text: Again.}\n" * (MAX_STEPS + 1)
            + "      explanation: int converts",
            "solution.steps",
            f"{MAX_STEPS + 1} steps; at most {MAX_STEPS} are allowed",
        ),
        (
            "      - note: str does not convert anything.",
            "".join(f"      - note {n}\n" for n in range(MAX_MISTAKES))
            + "      - note: str does not convert anything.",
            "mistakes",
            f"{MAX_MISTAKES + 1} mistake notes; at most {MAX_MISTAKES} are allowed",
        ),
        (
            FILL_ANSWERS,
            "answers: [" + ", ".join(["A"] * 1000) + "]",
            "answers",
            f"1,000 answers; at most {MAX_LABELS} are allowed",
        ),
        (
            "        options: [B]",
            "        options: [" + ", ".join(["B"] * 1000) + "]",
            "mistakes[0].options",
            f"1,000 option labels; at most {MAX_LABELS} are allowed",
        ),
    ],
    ids=["steps", "mistakes", "answers", "tied-options"],
)
def test_a_list_over_its_bound_is_one_problem(
    old: str, new: str, field: str, message: str, tmp_path: Path
) -> None:
    assert GOOD_BANK.count(old) == 1
    file = write(tmp_path, GOOD_BANK.replace(old, new))
    problem = only(check_banks(file)[1])
    assert (problem.task, problem.field, problem.message) == ("t-fill", field, message)
    assert problem.line is not None


def test_too_many_tasks_in_one_bank_is_one_problem(tmp_path: Path) -> None:
    count = MAX_TASKS_PER_BANK + 1
    file = write(tmp_path, "bank: Hostile\ntopic: Testing\ntasks:\n" + "  - x\n" * count)
    assert_problem(
        only(check_banks(file)[1]),
        file,
        line_of(file, "  - x"),  # a list's problem is placed at its first item
        None,
        "tasks",
        f"{count:,} tasks; at most {MAX_TASKS_PER_BANK:,} are allowed",
    )


# -- sizes ----------------------------------------------------------------------------------------


def test_a_mistake_note_over_its_field_limit(tmp_path: Path) -> None:
    text = GOOD_BANK.replace("note: str does not convert anything.", "note: " + "n" * 1100)
    file = write(tmp_path, text)
    assert_problem(
        only(check_banks(file)[1]),
        file,
        line_of(file, "note: nnn"),
        "t-fill",
        "mistakes[0].note",
        "1,100 characters as rendered; Discord allows 1,024",
    )


def test_a_huge_text_is_one_short_problem(tmp_path: Path) -> None:
    text = GOOD_BANK.replace("Complete the code to parse a number.", "w" * 900_000)
    file = write(tmp_path, text)
    problem = only(check_banks(file)[1])
    assert (problem.task, problem.field) == ("t-fill", "instruction")
    assert problem.message.startswith("the text is 900,000 characters")


def test_huge_values_quoted_back_are_cut_short(tmp_path: Path) -> None:
    text = (
        GOOD_BANK.replace("source:", "s" * 1000 + ":")  # YAML keys end at 1,024 characters
        .replace("question: Which colour is grass?", "question: " + "7" * 100_000)
        .replace("answer: B", "answer: " + "B" * 100_000)
        .replace("kind: fill", "kind: " + "f" * 100_000)
    )
    file = write(tmp_path, text)
    problems = check_banks(file)[1]
    assert [p.field for p in problems] == ["s" * 39 + "…", "question", "answer", "kind"]
    located(problems, file)


def test_a_file_over_the_size_limit_is_refused_unparsed(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK + "# padding\n" * (MAX_FILE_BYTES // 10))
    problem = only(check_banks(file)[1])
    assert (problem.file, problem.line, problem.task, problem.field) == (file, None, None, None)
    assert problem.message == (
        f"the file is {file.stat().st_size:,} bytes; a bank may be at most "
        f"{MAX_FILE_BYTES:,} bytes: split it into several banks"
    )


def test_a_bank_topic_too_long_for_every_task_is_reported_once(tmp_path: Path) -> None:
    text = bank(*(task(f"t-{n}") for n in range(150))).replace("Testing", "T" * 300)
    file = write(tmp_path, text)
    problems = check_banks(file)[1]
    assert [(p.line, p.task, p.field, p.message) for p in problems] == [
        (
            2,
            None,
            "topic",
            "the topic is 300 characters; at most 100 fit a command choice, so a longer one "
            "could never be chosen",
        ),
    ]  # once, for the bank, not for each of the 150 tasks


# -- YAML structure -------------------------------------------------------------------------------


def alias_bomb(levels: int = 9) -> str:
    """'Billion laughs': expanded, the last anchor holds 9**levels strings."""
    lines = ['  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.fixture
def walked(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many values the walk looked at: a count of work that does not depend on the clock."""
    calls: list[int] = []
    fresh = NodeChecker.fresh

    def counting(self: NodeChecker, node: yaml.Node, path: str) -> bool:
        calls.append(id(node))
        return fresh(self, node, path)

    monkeypatch.setattr(NodeChecker, "fresh", counting)
    yield calls


def test_an_alias_bomb_is_never_expanded(tmp_path: Path, walked: list[int]) -> None:
    text = (
        "bank: Hostile\ntopic: Testing\nanchors:\n"  # defined where the walk does not look
        + alias_bomb()
        + "tasks:\n"
        + task("t-one")
        + "  - *a9\n  - *a9\n"
        + task("t-two").replace("options: [red, green]", "options: *a9")
        + "    mistakes: *a8\n"
    )
    file = write(tmp_path, text)

    catalog, problems = check_banks(file)

    assert len(walked) < 100  # expanded, the bomb is 9**9 values
    assert [t.id for t in catalog] == ["t-one"]
    located(problems, file)
    assert {(p.task, p.field) for p in problems} == {
        (None, "anchors"),  # unknown key
        (None, "tasks[1]"),  # not a task
        (None, "tasks[2]"),  # the same list again: one problem, however often it comes back
        ("t-two", "mistakes[0]"),  # not a note
        ("t-two", "mistakes[1]"),  # the same list again
    }
    assert len(problems) == 5
    again = [p for p in problems if "used again here through a YAML alias" in p.message]
    assert {p.field for p in again} == {"tasks[2]", "mistakes[1]"}


def test_a_value_used_twice_through_an_alias_is_one_problem(tmp_path: Path) -> None:
    text = GOOD_BANK.replace("hint: Not red.", "hint: &hint Not red.").replace(
        "hint: Convert, after cleaning.", "hint: *hint"
    )
    file = write(tmp_path, text)
    assert_problem(
        only(check_banks(file)[1]),
        file,
        line_of(file, "hint: &hint"),  # an alias is its anchor's node: that is the line known
        "t-fill",
        "hint",
        "used again here through a YAML alias",
    )


def test_an_anchor_used_once_is_fine(tmp_path: Path) -> None:
    _, problems = check_banks(write(tmp_path, GOOD_BANK.replace("hint: Not red.", "hint: &h x")))
    assert problems == []


def test_a_recursive_alias_ends(tmp_path: Path) -> None:
    file = write(tmp_path, "bank: &r [*r]\ntopic: Testing\ntasks: [*r]\n")
    problems = check_banks(file)[1]
    assert [(p.line, p.field) for p in problems] == [(1, "bank"), (1, "tasks[0]")]


@pytest.mark.parametrize("nesting", ["[" * 100_000, "- " * 100_000 + "x"], ids=["flow", "block"])
def test_deep_nesting_is_one_problem(nesting: str, tmp_path: Path) -> None:
    file = write(tmp_path, f"bank: Hostile\ntopic: Testing\ntasks:\n  {nesting}\n")
    problem = only(check_banks(file)[1])  # libyaml stops at 1,000 levels
    assert (problem.file, problem.line) == (file, 4)
    assert "YAML does not parse" in problem.message and "nesting depth" in problem.message


@pytest.mark.parametrize("nesting", ["[" * 600, "- " * 600 + "x"], ids=["flow", "block"])
def test_deep_nesting_without_libyaml_is_one_problem(
    nesting: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PyYAML's own composer recurses per level (and its scanner slows down with the depth).
    monkeypatch.setattr(loader, "SAFE_LOADER", yaml.SafeLoader)
    file = write(tmp_path, f"bank: Hostile\ntopic: Testing\ntasks:\n  {nesting}\n")
    assert only(check_banks(file)[1]) == Problem(
        file, None, None, None, "YAML does not parse: it is nested too deeply"
    )


def test_nesting_libyaml_accepts_is_one_problem(tmp_path: Path) -> None:
    file = write(tmp_path, "bank: Hostile\ntopic: Testing\ntasks:\n  - " + "[" * 900 + "]" * 900)
    assert_problem(only(check_banks(file)[1]), file, 4, None, "tasks[0]", "expected a task mapping")


# -- how many problems are listed -----------------------------------------------------------------


def test_at_most_a_hundred_problems_per_file(tmp_path: Path) -> None:
    file = write(tmp_path, GOOD_BANK + "".join(f"extra{n}: x\n" for n in range(5_000)))
    out = StringIO()

    assert check_command(file, out) == 1

    lines = out.getvalue().splitlines()
    assert len(lines) == MAX_PROBLEMS_PER_FILE + 2
    assert lines[-2] == (
        f"{file}: … and more problems in this file (only the first 100 are listed): "
        "fix these and check again"
    )
    assert lines[-1] == "100+ problems in 1 file"
    assert (
        lines[0] == f"{file}:{line_of(file, 'extra0:')}: field extra0: unknown key 'extra0'; "
        "allowed here: bank, topic, source, language, tasks"
    )
    # The walk stopped there: the 4,900 keys after are never looked at.
    assert len(loader.check_file(file).problems) == MAX_PROBLEMS_PER_FILE + 1


def test_problems_found_across_files_are_bounded_per_file_too(tmp_path: Path) -> None:
    tasks = [task(f"t-{n}") for n in range(150)]
    write(tmp_path, bank(*tasks), "a.yaml")
    second = write(tmp_path, bank(*tasks), "b.yaml")

    catalog, problems = check_banks(tmp_path)

    assert len(catalog) == 150
    assert len(problems) == MAX_PROBLEMS_PER_FILE + 1
    assert all("already used by the task at" in p.message for p in problems[:-1])
    assert problems[-1] == MoreProblems.of(second)
    located(problems[:-1], second)
    assert all(p.task and p.field == "id" for p in problems[:-1])


def test_each_file_gets_its_own_bound(tmp_path: Path) -> None:
    noisy = GOOD_BANK + "".join(f"extra{n}: x\n" for n in range(300))
    write(tmp_path, noisy, "a.yaml")
    write(tmp_path, noisy, "b.yaml")
    problems = check_banks(tmp_path)[1]
    assert len(problems) == 2 * (MAX_PROBLEMS_PER_FILE + 1)
    assert [type(p) for p in problems].count(MoreProblems) == 2
