"""The starter banks: they pass `quizbot content check`, every task teaches (hint, solution, a
note for each wrong option), and every answer is right, checked by running the task's own code,
query or command (tests/content/starter_runs.py) against the facts tabled here. The typed,
multi and matching tasks are checked in test_starter_kinds.py.

Rule for notes: every wrong option of every task, choice or fill, has a note tied to it."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli_run import quizbot_env, run_quizbot_cli

from .starter_runs import (
    code_block,
    filled,
    git_outcome,
    plain,
    python_outcome,
    shell_outcome,
    sql_rows,
)

CONTENT = Path(__file__).resolve().parents[2] / "content"
STARTERS = {
    "python": CONTENT / "python" / "python-basics.yaml",
    "git": CONTENT / "git" / "git-basics.yaml",
    "sql": CONTENT / "sql" / "sql-queries.yaml",
    "shell": CONTENT / "linux-shell" / "shell-basics.yaml",
    "stats": CONTENT / "statistics" / "descriptive-statistics.yaml",
}
TASKS: dict[str, dict[str, Any]] = {
    task["id"]: task
    for path in STARTERS.values()
    for task in yaml.safe_load(path.read_text(encoding="utf-8"))["tasks"]
}
OPTION_TASKS = {k: t for k, t in TASKS.items() if t["kind"] in ("choice", "fill")}
LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

# ---- Python (and the statistics bank's Python) -------------------------------------------------
# Choice: the question's code prints exactly this.
PY_PRINTS = {
    "python-mc-1": "[1, 2, 3]",
    "python-mc-3": "[1, 2]",
    "python-mc-5": "[1, 2, 3]",
    "python-mc-7": "[2, 2, 2]",
    "python-mc-9": "[0, 4, 16]",
    "python-mc-10": "finally try",
    "python-mc-11": "a-b-c",
    "python-mc-12": "5 0",
}
# Fill: the template with the right option prints exactly this; no wrong option does.
PY_FILL_PRINTS = {
    "python-fill-1": "3",
    "python-fill-2": "PYTHON",
    "python-fill-3": "1 apple\n2 pear",
    "python-fill-4": "{'a': 2, 'b': 1}",
    "python-fill-5": "3.14",
    "python-fill-6": "['kiwi', 'apple', 'banana']",
    "python-fill-7": "bad number",
    "python-fill-8": "6",
    "stats-fill-1": "4.0",
    "stats-fill-2": "red",
    "stats-fill-3": "2.14",
    "stats-fill-4": "60.0",
    "stats-fill-5": "2.0",
    "stats-fill-6": "[3.0, 6.0, 9.0]",
    "stats-fill-7": "1/6",
    "stats-fill-8": "4.0",
}
# What a wrong option does, where its note says so (`!Name`: it raises Name).
PY_WRONG = {
    ("python-fill-1", "A"): "!NameError",
    ("python-fill-1", "C"): "!NameError",
    ("python-fill-1", "D"): "!TypeError",
    ("python-fill-2", "A"): "Python",
    ("python-fill-2", "B"): "Python",
    ("python-fill-2", "D"): "python",
    ("python-fill-3", "A"): "!TypeError",
    ("python-fill-3", "B"): "!TypeError",
    ("python-fill-3", "D"): "!TypeError",
    ("python-fill-4", "A"): "!TypeError",
    ("python-fill-4", "C"): "!AttributeError",
    ("python-fill-4", "D"): "{'b': 1, 'a': 2}",
    ("python-fill-5", "B"): "3.1",
    ("python-fill-5", "C"): "3.141593",
    ("python-fill-5", "D"): "3.142",
    ("python-fill-6", "A"): "['apple', 'banana', 'kiwi']",
    ("python-fill-6", "B"): "['banana', 'apple', 'kiwi']",
    ("python-fill-6", "C"): "!TypeError",
    ("python-fill-7", "A"): "!ValueError",
    ("python-fill-8", "A"): "!TypeError",
    ("python-fill-8", "C"): "!TypeError",
    ("python-fill-8", "D"): "!TypeError",
    ("stats-fill-1", "A"): "4.5",
    ("stats-fill-1", "C"): "2",
    ("stats-fill-2", "A"): "!TypeError",
    ("stats-fill-2", "B"): "green",
    ("stats-fill-2", "D"): "!TypeError",
    ("stats-fill-3", "A"): "2.0",
    ("stats-fill-3", "C"): "4.57",
    ("stats-fill-3", "D"): "4",
    ("stats-fill-4", "A"): "1.0",
    ("stats-fill-5", "A"): "1.0",
    ("stats-fill-6", "A"): "[6.0]",
    ("stats-fill-7", "A"): "1/12",
    ("stats-fill-7", "B"): "1/12",
    ("stats-fill-7", "D"): "11/12",
    ("stats-fill-8", "A"): "5",
    ("stats-fill-8", "B"): "3.2",
    ("stats-fill-8", "C"): "5.0",
}

# ---- SQL (the data is starter_runs.SQL_DATA, as the tasks state it) ----------------------------
# Choice whose options are queries: the rows the right one returns, in any order.
SQL_OPTION_ROWS = {
    "sql-mc-1": [("Ana",), ("Caro",)],
    "sql-mc-8": [("math",)],
}
# Choice whose question shows SQL: (a query run after it, or None; "rows" to count the rows,
# "value" to show the one row as `a | b`) -> the right option's text.
SQL_SHOWS: dict[str, tuple[str | None, str, str]] = {
    "sql-mc-4": (None, "value", "70.0"),
    "sql-mc-6": (None, "rows", "5"),
    "sql-mc-7": (None, "rows", "6"),
    "sql-mc-10": (None, "value", "2"),
    "sql-mc-11": (None, "value", "1 | 160"),
    "sql-mc-12": ("SELECT COUNT(*) FROM scores WHERE points = 0", "value", "5"),
}
# Fill: (a query run after the statement, or None; the rows are ordered?) -> rows.
SQL_FILL_ROWS: dict[str, tuple[str | None, bool, list[tuple[Any, ...]]]] = {
    "sql-fill-1": (None, False, [("Oslo",), ("Lima",), (None,)]),
    "sql-fill-2": (None, True, [("Dev",), ("Caro",), ("Ben",), ("Ana",)]),
    "sql-fill-3": (None, False, [("Oslo", 2), ("Lima", 1), (None, 1)]),
    "sql-fill-4": (None, False, [("math", (90 + 60 + 80) / 3)]),
    "sql-fill-5": (None, False, [("Dev",)]),
    "sql-fill-6": (
        None,
        False,
        [("Ana", "Oslo"), ("Ben", "Lima"), ("Caro", "Oslo"), ("Dev", "unknown")],
    ),
    "sql-fill-7": (None, False, [("Ana",), ("Caro",)]),
    "sql-fill-8": ("SELECT name, city FROM students WHERE id = 5", False, [("Eli", "Rome")]),
}

# ---- Linux shell (bash, GNU coreutils, in an empty temporary folder) ---------------------------
FILES = {
    "nums.txt": "".join(f"{n}\n" for n in range(1, 11)),
    "letters.txt": "b\na\nb\n",
    "people.csv": "id,name,city\n1,Ana,Oslo\n2,Ben,Lima\n",
    "notes.txt": "alpha beta\ngamma\n",
    "log.txt": "ERROR disk\ninfo ok\nError net\n",
    "data.txt": "one\ntwo\nthree\nfour\nfive\n",
    "app.log": "l1\nl2\nl3\nl4\nl5\n",
    "present.txt": "here\n",
}
# Choice: (the command as the question shows it, or None for its code block; the script run,
# "{block}" standing for that code block) -> the output, the right option's text.
SHELL_SHOWS: dict[str, tuple[str | None, str, str]] = {
    "shell-mc-2": (None, "{block}", "a1 a2 b1 b2"),
    "shell-mc-4": (None, "{block}cat f.txt", "two"),
    "shell-mc-6": (
        "ls *.txt | wc -l",
        "mkdir only && cd only && touch a.txt b.txt c.log && ls *.txt | wc -l",
        "2",
    ),
    "shell-mc-7": (None, "{block}", "1"),
    "shell-mc-8": (None, "{block}", "no"),
    "shell-mc-10": ("uniq letters.txt | wc -l", "uniq letters.txt | wc -l", "3"),
    "shell-mc-11": (
        "chmod 754 run.sh",
        "touch run.sh && chmod 754 run.sh && stat -c %A run.sh",
        "-rwxr-xr--",
    ),
}
# Fill: (setup, the template's line run as "{code}" within a script) -> output.
SHELL_FILL: dict[str, tuple[str, str, str]] = {
    "shell-fill-1": ("", "{code} 2>/dev/null; test -d a/b/c && echo made", "made"),
    "shell-fill-2": ("", "{code}", "2 notes.txt"),
    "shell-fill-3": ("", "{code}", "ERROR disk\nError net"),
    "shell-fill-4": (
        "mkdir sub && touch a.txt sub/b.txt c.log",
        "{code} | sort",
        "./a.txt\n./data.txt\n./letters.txt\n./log.txt\n./notes.txt\n./nums.txt\n"
        "./present.txt\n./sub/b.txt",
    ),
    "shell-fill-5": (
        "touch deploy.sh && chmod 644 deploy.sh",
        "{code}; stat -c %A deploy.sh",
        "-rwxr--r--",
    ),
    "shell-fill-6": ("", "{code}", "three"),
    "shell-fill-7": ("", "{code}", "present.txt"),
    "shell-fill-8": ("", "{code}", "l4\nl5"),
}

# ---- Git (a fresh repository in a temporary folder) -------------------------------------------
FIRST_COMMIT = "echo hello > notes.txt && git add notes.txt && git commit -qm first"
COMMITTED = FIRST_COMMIT + " && "
# Choice: (the right label, what is run after `git init`) -> output.
GIT_CHOICE: dict[str, tuple[str, str, str]] = {
    "git-mc-2": ("C", "echo x > notes.txt; git add notes.txt; git status --short", "A  notes.txt"),
    "git-mc-3": (
        "B",
        COMMITTED + "echo 2 >> notes.txt; git add notes.txt; echo 3 >> notes.txt; "
        "git status --short",
        "MM notes.txt",
    ),
    # Plain `git diff` shows only the unstaged line.
    "git-mc-4": (
        "A",
        COMMITTED + "echo staged >> notes.txt; git add notes.txt; echo unstaged >> notes.txt; "
        "git diff | grep '^[-+][^-+]'",
        "+unstaged",
    ),
    # The commit fails; still one commit, the edit still in the working tree.
    "git-mc-5": (
        "B",
        COMMITTED + "echo 2 >> notes.txt; git commit -m Update >/dev/null 2>&1; echo rc=$?; "
        "git rev-list --count HEAD; git status --short",
        "rc=1\n1\n M notes.txt",
    ),
    "git-mc-7": (
        "B",
        COMMITTED + "git switch -q -c feature; git branch --show-current; git branch | wc -l",
        "feature\n2",
    ),
    # One more commit, and the file is as before the bad one.
    "git-mc-9": (
        "B",
        COMMITTED + "echo bad >> notes.txt; git commit -qam bad; "
        "git revert --no-edit HEAD >/dev/null; git rev-list --count HEAD; cat notes.txt",
        "3\nhello",
    ),
    "git-mc-10": (
        "B",
        "echo a > config.ini; git add config.ini; git commit -qm first; "
        "echo config.ini > .gitignore; echo b >> config.ini; git status --short",
        " M config.ini\n?? .gitignore",
    ),
    # No merge commit; main is where feature is.
    "git-mc-11": (
        "B",
        COMMITTED + "git switch -q -c feature; echo 2 >> notes.txt; git commit -qam two; "
        "echo 3 >> notes.txt; git commit -qam three; git switch -q main; git merge -q feature; "
        "git rev-list --count --merges HEAD; "
        'test "$(git rev-parse main)" = "$(git rev-parse feature)" && echo same',
        "0\nsame",
    ),
    "git-mc-12": (
        "A",
        COMMITTED + "git commit -q --allow-empty -m 2; git commit -q --allow-empty -m 3; "
        "git log --oneline | wc -l; git log --oneline -1 | cut -d' ' -f2",
        "3\n3",
    ),
}
# Choice tasks whose right option is the output itself.
GIT_OUTPUT_OPTIONS = ("git-mc-2", "git-mc-3")
# Fill: (setup after `git init`, the template's line run as "{code}" within a script) -> output.
GIT_FILL: dict[str, tuple[str, str, str]] = {
    "git-fill-1": (
        "echo a > a.txt; echo b > b.txt",
        "{code} 2>/dev/null; git status --short",
        "A  a.txt\nA  b.txt",
    ),
    "git-fill-2": (
        COMMITTED + "echo 2 >> notes.txt; git add notes.txt",
        "{code} >/dev/null 2>&1; git log -1 --format=%s",
        "Add notes",
    ),
    "git-fill-3": (
        COMMITTED + "echo 2 >> notes.txt; git add notes.txt",
        "{code} 2>/dev/null; git status --short",
        " M notes.txt",
    ),
    "git-fill-4": (FIRST_COMMIT, "{code} 2>/dev/null; git branch --show-current", "feature"),
    "git-fill-5": (
        COMMITTED + "for n in 2 3 4 5; do echo $n >> notes.txt; git commit -qam $n; done",
        "{code} | wc -l",
        "3",
    ),
    "git-fill-6": (
        COMMITTED + "echo 2 >> notes.txt; git commit -qam second",
        "{code} >/dev/null 2>&1; git rev-list --count HEAD; git status --short",
        "1\nM  notes.txt",
    ),
    "git-fill-7": (
        COMMITTED + "echo c > config.ini; git add config.ini",
        "{code} >/dev/null 2>&1; git rev-list --count HEAD; git log -1 --format=%s; "
        "git show --name-only --format= HEAD",
        "1\nAdd notes and config\nconfig.ini\nnotes.txt",
    ),
}


# ---- Statistics: each right option, computed -------------------------------------------------
def _figure(value: float | Fraction) -> str:
    if isinstance(value, Fraction):
        return str(value)
    return str(int(value)) if float(value).is_integer() else str(round(value, 2))


def _outlier_moves_more() -> str:
    before, after = [10, 11, 12, 13], [10, 11, 12, 13, 100]
    mean_move = abs(statistics.mean(after) - statistics.mean(before))
    median_move = abs(statistics.median(after) - statistics.median(before))
    return "The mean" if mean_move > median_move else "The median"


def _chance(hit: Callable[[tuple[int, ...]], bool], faces: int, throws: int) -> Fraction:
    outcomes = list(product(range(1, faces + 1), repeat=throws))
    return Fraction(sum(map(hit, outcomes)), len(outcomes))


SPREAD = [2, 4, 4, 4, 5, 5, 7, 9]
STATS: dict[str, Callable[[], str]] = {
    "stats-mc-2": lambda: _figure(statistics.median([3, 1, 8, 5, 13])),
    "stats-mc-4": lambda: _figure(statistics.median([1, 2, 4, 10])),
    "stats-mc-6": lambda: _figure(statistics.pstdev(SPREAD)),
    "stats-mc-7": lambda: _figure(statistics.variance([1, 2, 3, 4])),
    "stats-mc-8": _outlier_moves_more,
    # Heads are 1, tails 2.
    "stats-mc-10": lambda: _figure(_chance(lambda o: 1 in o, faces=2, throws=2)),
    "stats-mc-11": lambda: _figure(_chance(lambda o: sum(o) == 7, faces=6, throws=2)),
    "stats-mc-12": lambda: _figure(statistics.correlation([1, 2, 3, 4, 5], [10, 8, 6, 4, 2])),
}
# Figures the statistics bank's texts state, besides the answers.
STATS_TEXT_FIGURES = {
    "sample sd of SPREAD": (round(statistics.stdev(SPREAD), 2), 2.14),
    "mean with the outlier": (statistics.mean([10, 11, 12, 13, 100]), 29.2),
    "sample variance of 1..4": (round(statistics.variance([1, 2, 3, 4]), 2), 1.67),
    "sample sd of 1..4": (round(statistics.stdev([1, 2, 3, 4]), 2), 1.29),
    "pop variance of 1..4": (statistics.pvariance([1, 2, 3, 4]), 1.25),
    "geometric mean of 2 and 8": (round(math.sqrt(2 * 8), 6), 4.0),
}


def right_option(task: dict[str, Any]) -> str:
    return str(task["options"][LABELS.index(task["answer"])])


def wrong_options(task: dict[str, Any]) -> list[tuple[str, str]]:
    right = task["answer"] if task["kind"] == "choice" else task["answers"][0]
    return [(LABELS[i], o) for i, o in enumerate(task["options"]) if LABELS[i] != right]


def fill_answer(task: dict[str, Any]) -> str:
    (label,) = task["answers"]
    return str(task["options"][LABELS.index(label)])


# ---- the banks as a whole -------------------------------------------------------------------


def test_every_starter_bank_passes_content_check(tmp_path: Path) -> None:
    result = run_quizbot_cli("content", "check", str(CONTENT), env=quizbot_env(), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith(": OK")


@pytest.mark.parametrize("prefix", STARTERS)
def test_each_starter_bank_has_20_tasks_of_several_kinds_and_every_difficulty(prefix: str) -> None:
    bank = yaml.safe_load(STARTERS[prefix].read_text(encoding="utf-8"))
    tasks = bank["tasks"]
    assert len(tasks) >= 20
    assert all(t["id"].startswith(f"{prefix}-") for t in tasks)
    kinds = {t["kind"] for t in tasks}
    assert {"choice", "fill"} <= kinds
    assert len(kinds & {"short", "numerical", "multi", "matching"}) >= 3
    assert {t["difficulty"] for t in tasks} == {"easy", "medium", "hard"}


@pytest.mark.parametrize("task_id", OPTION_TASKS)
def test_every_task_has_a_hint_a_solution_and_a_note_on_each_wrong_option(task_id: str) -> None:
    task = TASKS[task_id]
    assert task["hint"].strip() and task["solution"]
    tied = {label for m in task["mistakes"] if isinstance(m, dict) for label in m["options"]}
    assert {label for label, _ in wrong_options(task)} <= tied


def test_every_task_of_the_starter_banks_is_checked_here() -> None:
    checked = (
        set(PY_PRINTS)
        | set(PY_FILL_PRINTS)
        | set(SQL_OPTION_ROWS)
        | set(SQL_SHOWS)
        | set(SQL_FILL_ROWS)
        | set(SHELL_SHOWS)
        | set(SHELL_FILL)
        | set(GIT_CHOICE)
        | set(GIT_FILL)
        | set(STATS)
        | {"shell-mc-1"}
    )
    assert checked == set(OPTION_TASKS)


# ---- Python ---------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", PY_PRINTS)
def test_python_choice_the_code_prints_the_right_option(task_id: str, tmp_path: Path) -> None:
    task = TASKS[task_id]
    printed = python_outcome(code_block(task["question"]), tmp_path)
    assert printed == PY_PRINTS[task_id] == plain(right_option(task))
    assert all(plain(o) != printed for _, o in wrong_options(task))


@pytest.mark.parametrize("task_id", PY_FILL_PRINTS)
def test_python_fill_only_the_right_option_prints_what_is_asked(
    task_id: str, tmp_path: Path
) -> None:
    task = TASKS[task_id]
    assert (
        python_outcome(filled(task["code"], fill_answer(task)), tmp_path) == PY_FILL_PRINTS[task_id]
    )
    for label, option in wrong_options(task):
        outcome = python_outcome(filled(task["code"], option), tmp_path)
        assert outcome != PY_FILL_PRINTS[task_id], option
        assert outcome == PY_WRONG.get((task_id, label), outcome), (label, option)


# ---- SQL ------------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", SQL_OPTION_ROWS)
def test_sql_choice_only_the_right_query_returns_the_rows(task_id: str) -> None:
    task = TASKS[task_id]
    assert Counter(sql_rows(plain(right_option(task)))) == Counter(SQL_OPTION_ROWS[task_id])
    for _, option in wrong_options(task):
        rows = sql_rows(plain(option))
        assert rows == "!error" or Counter(rows) != Counter(SQL_OPTION_ROWS[task_id]), option


def _shown(rows: list[tuple[Any, ...]] | str, how: str) -> str:
    assert not isinstance(rows, str), rows
    if how == "rows":
        return str(len(rows))
    ((*values,),) = rows
    return " | ".join("NULL" if v is None else str(v) for v in values)


@pytest.mark.parametrize("task_id", SQL_SHOWS)
def test_sql_choice_the_query_shown_gives_the_right_option(task_id: str) -> None:
    task = TASKS[task_id]
    then, how, expected = SQL_SHOWS[task_id]
    shown = _shown(sql_rows(code_block(task["question"]), then), how)
    assert shown == expected == plain(right_option(task))
    assert all(plain(o) != shown for _, o in wrong_options(task))


@pytest.mark.parametrize("task_id", SQL_FILL_ROWS)
def test_sql_fill_only_the_right_option_returns_the_rows(task_id: str) -> None:
    task = TASKS[task_id]
    then, ordered, expected = SQL_FILL_ROWS[task_id]

    def same(rows: list[tuple[Any, ...]] | str) -> bool:
        if isinstance(rows, str):
            return False
        return rows == expected if ordered else Counter(rows) == Counter(expected)

    assert same(sql_rows(filled(task["code"], fill_answer(task)), then))
    for _, option in wrong_options(task):
        assert not same(sql_rows(filled(task["code"], option), then)), option


# ---- Linux shell -----------------------------------------------------------------------------


def _with_files(where: Path) -> Path:
    where.mkdir(exist_ok=True)
    for name, text in FILES.items():
        (where / name).write_text(text)
    return where


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return _with_files(tmp_path)


def test_shell_pwd_prints_the_folder_and_the_other_options_do_not(folder: Path) -> None:
    task = TASKS["shell-mc-1"]
    assert shell_outcome(plain(right_option(task)), folder) == str(folder)
    for _, option in wrong_options(task):
        assert shell_outcome(plain(option), folder) != str(folder), option


@pytest.mark.parametrize("task_id", SHELL_SHOWS)
def test_shell_choice_the_command_prints_the_right_option(task_id: str, folder: Path) -> None:
    task = TASKS[task_id]
    shown, script, expected = SHELL_SHOWS[task_id]
    if shown is None:
        script = script.format(block=code_block(task["question"]))
    else:
        assert shown in task["question"] and shown in script
    printed = shell_outcome(script, folder)
    assert printed == expected == plain(right_option(task))
    assert all(plain(o) != printed for _, o in wrong_options(task))


@pytest.mark.parametrize("task_id", SHELL_FILL)
def test_shell_fill_only_the_right_option_does_what_is_asked(task_id: str, tmp_path: Path) -> None:
    task = TASKS[task_id]
    setup, run, expected = SHELL_FILL[task_id]

    def outcome(option: str, where: Path) -> str:
        line = filled(task["code"], option).strip()
        script = f"{setup or 'true'} && {run.format(code=line)}"
        return shell_outcome(script, _with_files(where))

    assert outcome(fill_answer(task), tmp_path / "right") == expected
    for label, option in wrong_options(task):
        assert outcome(option, tmp_path / label) != expected, option


# ---- Git ------------------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", GIT_CHOICE)
def test_git_choice_the_right_option_is_what_git_does(task_id: str, tmp_path: Path) -> None:
    task = TASKS[task_id]
    label, script, expected = GIT_CHOICE[task_id]
    assert task["answer"] == label
    assert git_outcome(script, tmp_path) == expected
    if task_id in GIT_OUTPUT_OPTIONS:
        assert plain(right_option(task)) == expected


@pytest.mark.parametrize("task_id", GIT_FILL)
def test_git_fill_only_the_right_option_does_what_is_asked(task_id: str, tmp_path: Path) -> None:
    task = TASKS[task_id]
    setup, run, expected = GIT_FILL[task_id]

    def outcome(option: str, where: Path) -> str:
        line = filled(task["code"], option).strip()
        where.mkdir()
        return git_outcome(f"{setup} && {run.format(code=line)}", where)

    assert outcome(fill_answer(task), tmp_path / "right") == expected
    for label, option in wrong_options(task):
        assert outcome(option, tmp_path / label) != expected, option


# ---- Statistics -----------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", STATS)
def test_statistics_choice_the_right_option_is_the_computed_figure(task_id: str) -> None:
    assert plain(right_option(TASKS[task_id])) == STATS[task_id]()


@pytest.mark.parametrize("figure", STATS_TEXT_FIGURES)
def test_statistics_figures_in_the_texts_are_right(figure: str) -> None:
    computed, stated = STATS_TEXT_FIGURES[figure]
    assert computed == pytest.approx(stated)
