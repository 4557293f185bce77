"""The starter banks' typed, multi and matching tasks: each answer is right, checked by running
the task's own code, query or command (or computing its figure), and graded so by the engine;
each known wrong answer is graded wrong with its note, and every wrong option has a note."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content import check_banks
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind, Task

from .starter_runs import code_block, git_outcome, plain, python_outcome, shell_outcome, sql_rows
from .test_starter_banks import COMMITTED, FIRST_COMMIT, STARTERS, _figure, _shown, _with_files

CATALOG = {t.id: t for path in STARTERS.values() for t in check_banks(path)[0]}
OTHER_KINDS = (Kind.SHORT, Kind.NUMERICAL, Kind.MULTI, Kind.MATCHING)


def _question(task_id: str) -> str:
    return code_block(CATALOG[task_id].prompt)


def _quiet_but_last(block: str) -> str:
    """A script of the block's commands, each one's output dropped but the last one's."""
    *before, last = block.strip().splitlines()
    return "".join(f"{{ {line}; }} >/dev/null 2>&1; " for line in before) + last


# ---- typed answers: (what is run, in a folder of the shell bank's files) -> what to type -------
TYPED: dict[str, tuple[Callable[[Path], str], str]] = {
    "python-short-1": (lambda cwd: python_outcome(_question("python-short-1"), cwd), "yth"),
    "python-num-1": (lambda cwd: python_outcome(_question("python-num-1"), cwd), "31"),
    "stats-num-1": (lambda _: _figure(statistics.mean([2, 4, 4, 4, 5, 5, 7, 9])), "5"),
    "stats-num-2": (lambda _: _figure((85 - 70) / 5), "3"),
    "sql-num-1": (lambda _: _shown(sql_rows(_question("sql-num-1")), "value"), "3"),
    "sql-short-1": (lambda _: _shown(sql_rows(_question("sql-short-1")), "value"), "Dev"),
    "shell-short-1": (
        lambda cwd: shell_outcome("tail -n +2 people.csv | cut -d, -f2 | head -n 1", cwd),
        "Ana",
    ),
    "shell-num-1": (lambda cwd: shell_outcome(_question("shell-num-1"), cwd), "2"),
    "git-short-1": (
        lambda cwd: git_outcome(COMMITTED + "git blame notes.txt | grep -c Tester", cwd),
        "1",
    ),
    "git-num-1": (lambda cwd: git_outcome(_quiet_but_last(_question("git-num-1")), cwd), "2"),
}
# What a typed task's member types, when it is not the output itself.
TYPED_ANSWER = {"git-short-1": "git blame notes.txt"}

# ---- multi: is an option right? (its text, a folder) -> bool ---------------------------------
DATA = [1, 2, 2, 3, 7]


def _iqr(data: list[int]) -> float:
    q1, _, q3 = statistics.quantiles(data, n=4)
    return q3 - q1


SPREAD_OF: dict[str, Callable[[list[int]], float]] = {
    "The range": lambda d: max(d) - min(d),
    "The variance": statistics.variance,
    "The median": statistics.median,
    "The standard deviation": statistics.stdev,
    "The mode": statistics.mode,
    "The interquartile range": _iqr,
}


def _unmoved_by_a_shift(name: str) -> bool:
    measure = SPREAD_OF[name]
    return measure([x + 10 for x in DATA]) == pytest.approx(measure(DATA))


MULTI: dict[str, Callable[[str, Path], bool]] = {
    "python-multi-1": lambda o, cwd: python_outcome(f"print(bool({o}))", cwd) == "True",
    "stats-multi-1": lambda o, _: _unmoved_by_a_shift(o),
    "sql-multi-1": lambda o, _: sql_rows(o) == [("Dev",)],
    "shell-multi-1": lambda o, cwd: shell_outcome(f"name=World; {o}", cwd) == "World",
    "git-multi-1": lambda o, cwd: (
        git_outcome(COMMITTED + f"echo edit >> notes.txt; {o} >/dev/null 2>&1; cat notes.txt", cwd)
        == "hello\nedit"
    ),
}

# ---- matching: what a stem gives (its text, a folder) -> the answer's text --------------------
STATISTIC = {"Mean": statistics.mean, "Median": statistics.median, "Mode": statistics.mode}
# Each situation of git-match-1, after `notes.txt` was committed; `git status --short` of it.
GIT_SITUATIONS = {
    "A new file, never added": "echo x > new.txt; git status --short new.txt",
    "A new file, added with `git add`": "echo x > new.txt; git add new.txt; "
    "git status --short new.txt",
    "A committed file, edited and added, then edited again": "echo 2 >> notes.txt; "
    "git add notes.txt; echo 3 >> notes.txt; git status --short",
    "A committed file, edited but not added": "echo 2 >> notes.txt; git status --short",
    "A committed file, edited and added": "echo 2 >> notes.txt; git add notes.txt; "
    "git status --short",
}


def _git_code(situation: str, cwd: Path) -> str:
    return git_outcome(FIRST_COMMIT + " && " + GIT_SITUATIONS[situation], cwd)[:2]


def _statistic(stem: str) -> str:
    if stem == "Range":
        return _figure(max(DATA) - min(DATA))
    return _figure(STATISTIC[stem](DATA))


MATCHING: dict[str, Callable[[str, Path], str]] = {
    "python-match-1": lambda stem, cwd: python_outcome(f"print({stem})", cwd),
    "stats-match-1": lambda stem, _: _statistic(stem),
    "sql-match-1": lambda stem, _: _shown(sql_rows(stem), "value"),
    "shell-match-1": lambda stem, cwd: shell_outcome(stem, cwd),
}


def _grade(task: Task, *picks: str) -> engine.Outcome:
    return engine.grade(task, Progress(), picks)


def test_every_task_of_the_other_kinds_is_checked_here() -> None:
    others = {t.id for t in CATALOG.values() if t.kind in OTHER_KINDS}
    assert set(TYPED) | set(MULTI) | set(MATCHING) | {"git-match-1"} == others


@pytest.mark.parametrize("task_id", TYPED)
def test_typed_the_output_is_the_accepted_answer_and_known_mistakes_get_their_note(
    task_id: str, tmp_path: Path
) -> None:
    task = CATALOG[task_id]
    run, expected = TYPED[task_id]
    assert run(_with_files(tmp_path)) == expected
    assert _grade(task, TYPED_ANSWER.get(task_id, expected)).status is Status.CORRECT
    spec = task.short or task.numeric
    assert spec is not None and spec.mistakes and task.general_notes and task.hints
    for mistake in spec.mistakes:
        for wrong in mistake.answers:
            typed = wrong.split(":")[0]  # a numerical mistake's value, without its tolerance
            outcome = _grade(task, typed)
            assert outcome.status is Status.WRONG, wrong
            assert outcome.notes == (mistake.note,), wrong


@pytest.mark.parametrize("task_id", MULTI)
def test_multi_the_right_options_are_exactly_those_that_hold(task_id: str, tmp_path: Path) -> None:
    task = CATALOG[task_id]
    holds = {
        o.label
        for o in task.options
        if MULTI[task_id](plain(o.text), _with_files(tmp_path / o.label))
    }
    assert holds == set(task.answers)
    assert _grade(task, *task.answers).status is Status.CORRECT
    for option in task.options:
        if option.label not in task.answers:
            assert task.notes_for(option.label), option  # every wrong option has its note


@pytest.mark.parametrize("task_id", MATCHING)
def test_matching_each_stem_gives_its_answer_and_no_distractor(
    task_id: str, tmp_path: Path
) -> None:
    task = CATALOG[task_id]
    folder = _with_files(tmp_path)
    given = [MATCHING[task_id](plain(stem), folder) for stem in task.stems]
    assert given == [plain(task.answer_text(n)) for n in range(1, len(task.stems) + 1)]
    paired = set(task.answers)
    assert all(plain(o.text) not in given for o in task.options if o.label not in paired)
    assert _grade(task, *task.answers).status is Status.CORRECT


def test_git_status_codes_match_their_situations(tmp_path: Path) -> None:
    task = CATALOG["git-match-1"]
    for n, stem in enumerate(task.stems, start=1):
        folder = tmp_path / str(n)
        folder.mkdir()
        assert _git_code(task.answer_text(n), folder) == plain(stem).ljust(2)
    (distractor,) = (o.text for o in task.options if o.label not in task.answers)
    (tmp_path / "other").mkdir()
    assert _git_code(distractor, tmp_path / "other") == "M "
