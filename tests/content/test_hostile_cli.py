"""Hostile banks through the real commands, in a process capped at 1 GB of address space.

Before the bounds, `quizbot content check` (and `run`, `practice`) grew to tens of GB on a
bank with `[99999999999]` in a template until the kernel killed it. Under the cap such a run
now dies with a MemoryError traceback instead, so each test here fails on that regression
rather than taking the machine down. The timeout is only a safety net.
"""

from __future__ import annotations

import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.content.limits import MAX_PROBLEMS_PER_FILE
from tests.cli_run import quizbot_env, run_quizbot_cli

from .test_bounds import alias_bomb, task
from .test_loader import GOOD_BANK, write

MEMORY_CAP = 1 << 30
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.hostile-test-token"
# Longer than any bounded report (at most 100 problems of a few hundred characters each).
SHORT = 40_000


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def capped_quizbot(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`python -m bot ARGS` in `cwd`, with only the settings given, under the memory cap."""
    clean = quizbot_env(
        CONTENT_CACHE="",
        DATABASE_URL=f"sqlite:///{cwd / 'quizbot.db'}",
        LOG_LEVEL="ERROR",
        **env,
    )
    return run_quizbot_cli(*args, cwd=cwd, env=clean, timeout=120, preexec_fn=_cap_memory)


def _fill(code: str, answers: str = "[A]") -> str:
    return GOOD_BANK.replace("value = [1](text.[2]())", code).replace(
        "answers: [A, C]", f"answers: {answers}"
    )


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as fh:
        fh.truncate(size)  # takes no disk space: reading it all would take `size` of memory


BANKS: dict[str, Callable[[Path], Path]] = {
    "huge-blank": lambda d: write(d, _fill("x = [1] + [99999999999]")),
    "million-blank": lambda d: write(d, _fill("x = [1000000]")),
    "thousands-of-blanks": lambda d: write(d, _fill("".join(f"[{n}]" for n in range(1, 3000)))),
    "enormous-option-list": lambda d: write(
        d, GOOD_BANK.replace("options: [B]", "options: [" + ",".join(["B"] * 100_000) + "]")
    ),
    "alias-bomb": lambda d: write(
        d,
        "bank: Hostile\ntopic: Testing\nanchors:\n"
        + alias_bomb()
        + "tasks:\n"
        + task("t-one").replace("options: [red, green]", "options: *a9")
        + "    mistakes: *a9\n  - *a9\n  - *a9\n",
    ),
    "deep-nesting": lambda d: write(d, "bank: " + "[" * 500_000 + "\n"),
    "20-MB-file": lambda d: write(d, GOOD_BANK + "# padding\n" * 2_000_000),
    "5-GB-sparse-file": lambda d: (_sparse(d / "bank.yaml", 5 << 30), d / "bank.yaml")[1],
    "many-problems": lambda d: write(d, GOOD_BANK + "".join(f"k{n}: v\n" for n in range(5000))),
}


def assert_refused_briefly(result: subprocess.CompletedProcess[str], files: list[Path]) -> None:
    """Exit 1 and a short report: at most the bound of problems per file, each naming it."""
    assert result.returncode == 1, result.stderr[-2000:]
    assert result.stderr == ""
    assert len(result.stdout) < SHORT * len(files)
    *problems, summary = result.stdout.splitlines()
    for file in files:
        count = sum(line.startswith(f"{file}") for line in problems)
        assert 1 <= count <= MAX_PROBLEMS_PER_FILE + 1, file
    assert len(problems) <= len(files) * (MAX_PROBLEMS_PER_FILE + 1)
    assert summary.endswith(f" in {len(files)} file{'s' if len(files) > 1 else ''}")


@pytest.mark.parametrize(
    "name", ["huge-blank", "enormous-option-list", "alias-bomb", "5-GB-sparse-file"]
)
def test_content_check_refuses_a_hostile_bank_briefly(name: str, tmp_path: Path) -> None:
    banks = tmp_path / "banks"
    banks.mkdir()
    file = BANKS[name](banks)

    result = capped_quizbot(["content", "check", str(banks)], tmp_path)

    assert_refused_briefly(result, [file])


def test_content_check_refuses_every_hostile_bank_at_once_briefly(tmp_path: Path) -> None:
    files = []
    for name, make in BANKS.items():
        folder = tmp_path / "banks" / name
        folder.mkdir(parents=True)
        files.append(make(folder))

    result = capped_quizbot(["content", "check", str(tmp_path / "banks")], tmp_path)

    assert_refused_briefly(result, files)
    assert result.stdout.endswith("+ problems in 9 files\n")  # one file had more than it lists


@pytest.mark.parametrize("command", [["practice"], ["run"]])
def test_practice_and_run_refuse_the_issues_bank_briefly(
    command: list[str], tmp_path: Path
) -> None:
    file = write(tmp_path / "banks", _fill("x = [1] + [99999999999]"))
    api = "http://127.0.0.1:9/api/v10"  # never reached: the banks are loaded first

    result = capped_quizbot(
        command, tmp_path, CONTENT_DIR=str(file), DISCORD_TOKEN=TOKEN, DISCORD_API_BASE=api
    )

    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert len(result.stdout + result.stderr) < SHORT
    assert (
        f"{file}:30: task t-fill, field code: blank [99999999999] is out of range: blanks go 1..5"
    ) in result.stderr
