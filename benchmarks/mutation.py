"""Mutation score: how many small changes to the code the tests notice (issue 27).

    python -m benchmarks.mutation                     # bot/quiz, then the Aiken importer
    python -m benchmarks.mutation quiz --workers 1    # one target
    python -m benchmarks.mutation aiken --survivors   # and print each surviving mutant's diff

It runs mutmut (3.x) on a scratch copy of the work tree, so the tree gets no mutants/ folder and
pyproject.toml is not touched: the copy's pyproject.toml gets the target's [tool.mutmut] block
(the files to mutate, and the tests that cover them; those tests are fast and need no
PostgreSQL). mutmut changes one operator, constant or call at a time, runs the tests that reach
the changed function, and records whether they failed.

Reported per target: killed, survived, and the rest; and the kill rate,
killed / (killed + survived + no tests). A mutant "no tests" is one in a function that no
selected test calls: it goes unnoticed as a survivor does, so it counts against the score.
Timeouts (a mutant that loops), "suspicious", "skipped" and "caught by type check" are left out
of the rate and printed beside it. Some survivors change nothing a user can see (an equivalent
mutant, e.g. a default argument every caller overrides): read them with --survivors.

Needs mutmut (`pip install -e '.[mutation]'`). One worker by default (a shared 2-core
machine): about a minute for bot/quiz and half a minute for the Aiken importer. A test that
should kill a mutant must build what it checks inside the test, not in `parametrize`: mutmut
switches the mutant on while the test runs, so a value built at collection is the unmutated one.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    mutate: tuple[str, ...]
    """Glob patterns of the files mutmut changes."""
    tests: tuple[str, ...]
    """The test files or folders that cover them."""


TARGETS: dict[str, Target] = {
    "quiz": Target(mutate=("bot/quiz/*",), tests=("tests/quiz",)),
    "aiken": Target(
        mutate=("bot/content/importers/aiken.py",),
        tests=(
            "tests/content/importers/test_aiken.py",
            "tests/content/importers/test_aiken_edges.py",
        ),
    ),
}

_SKIP_ANYWHERE = shutil.ignore_patterns("__pycache__", ".*_cache", "*.egg-info")
_SKIP_AT_ROOT = {".git", ".venv", "mutants", "data", "build", "dist"}
"""The bot's own data/ (a database) is not copied; tests' data folders are."""


def _copy_ignore(folder: str, names: list[str]) -> set[str]:
    skipped = set(_SKIP_ANYWHERE(folder, names))
    if Path(folder) == REPO_ROOT:
        skipped |= _SKIP_AT_ROOT & set(names)
    return skipped


def mutmut_config(target: Target) -> str:
    """The [tool.mutmut] block for one target (the copy's pyproject.toml gets it)."""

    def toml_list(items: tuple[str, ...]) -> str:
        return "[" + ", ".join(json.dumps(item) for item in items) + "]"

    return (
        "[tool.mutmut]\n"
        'source_paths = ["bot"]\n'
        'also_copy = ["content"]\n'  # the shipped banks, which some tests load
        f"only_mutate = {toml_list(target.mutate)}\n"
        f"pytest_add_cli_args_test_selection = {toml_list(target.tests)}\n"
        # -n0: mutmut reads which tests run which code in its own process, not in xdist workers.
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-n0"]\n'
        "use_git_change_detection = false\n"
    )


def with_config(pyproject: str, block: str) -> str:
    """`pyproject` with its [tool.mutmut] table (if any) replaced by `block`."""
    kept: list[str] = []
    skipping = False
    for line in pyproject.splitlines(keepends=True):
        if line.startswith("["):
            skipping = line.strip() == "[tool.mutmut]"
        if not skipping:
            kept.append(line)
    return "".join(kept).rstrip("\n") + "\n\n" + block


@dataclass(frozen=True)
class Score:
    counts: dict[str, int]
    seconds: float
    survivors: list[str]

    @property
    def missed(self) -> int:
        return self.counts.get("survived", 0) + self.counts.get("no_tests", 0)

    @property
    def rate(self) -> float:
        judged = self.counts.get("killed", 0) + self.missed
        return self.counts.get("killed", 0) / judged if judged else 0.0


def run_target(name: str, target: Target, workers: int, show: bool) -> Score:
    mutmut = Path(sys.executable).with_name("mutmut")
    with tempfile.TemporaryDirectory(prefix=f"mutation-{name}-") as scratch:
        work = Path(scratch) / "tree"
        shutil.copytree(REPO_ROOT, work, ignore=_copy_ignore)
        pyproject = work / "pyproject.toml"
        pyproject.write_text(with_config(pyproject.read_text("utf-8"), mutmut_config(target)))
        started = time.monotonic()
        ran = subprocess.run(
            [str(mutmut), "run", "--max-children", str(workers)],
            cwd=work,
            capture_output=True,
            text=True,
        )
        if ran.returncode != 0:  # e.g. the tests fail unmutated: show why
            sys.exit(f"mutmut run failed ({ran.returncode}):\n{ran.stdout[-4000:]}{ran.stderr}")
        seconds = time.monotonic() - started
        subprocess.run(
            [str(mutmut), "export-cicd-stats"], cwd=work, check=True, capture_output=True
        )
        counts = json.loads((work / "mutants" / "mutmut-cicd-stats.json").read_text("utf-8"))
        listing = subprocess.run(
            [str(mutmut), "results"], cwd=work, check=True, capture_output=True, text=True
        ).stdout
        survivors = [
            m.group(1)
            for m in re.finditer(r"^\s*(\S+): (survived|no tests)$", listing, re.MULTILINE)
        ]
        if show:
            for mutant in survivors:
                shown = subprocess.run(
                    [str(mutmut), "show", mutant], cwd=work, capture_output=True, text=True
                )
                print(shown.stdout)
    return Score(counts=counts, seconds=seconds, survivors=survivors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="*", help=f"any of {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--workers", type=int, default=1, help="mutants tested at once")
    parser.add_argument("--survivors", action="store_true", help="print each survivor's diff")
    args = parser.parse_args()
    unknown = [name for name in args.targets if name not in TARGETS]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}: choose from {', '.join(TARGETS)}")
    for name in args.targets or list(TARGETS):
        score = run_target(name, TARGETS[name], args.workers, args.survivors)
        c = score.counts
        others = ", ".join(
            f"{key.replace('_', ' ')} {c.get(key, 0)}"
            for key in ("timeout", "suspicious", "skipped", "segfault")
        )
        print(
            f"{name}: {c.get('killed', 0)} killed, {c.get('survived', 0)} survived, "
            f"{c.get('no_tests', 0)} no tests of {c.get('total', 0)} mutants "
            f"(left out: {others}); kill rate {score.rate:.1%}, in {score.seconds:.0f} s"
        )
        for mutant in score.survivors:
            print(f"    not killed: {mutant}")


if __name__ == "__main__":
    main()
