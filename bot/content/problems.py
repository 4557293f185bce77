"""What is wrong with a bank, located precisely enough to fix without hunting; a file's
problems are listed in line order and cut after `MAX_PROBLEMS_PER_FILE`, so no file floods a log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.content.limits import MAX_PROBLEMS_PER_FILE


@dataclass(frozen=True, slots=True)
class Problem:
    file: Path
    line: int | None  # None: the file itself is the problem
    task: str | None  # the id of the task it lies in, when it has one
    field: str | None  # e.g. `solution.steps[0].text`
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        parts = (self.task and f"task {self.task}", self.field and f"field {self.field}")
        what = ", ".join(p for p in parts if p)
        return f"{where}: {what}: {self.message}" if what else f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class MoreProblems(Problem):
    """The last line of a file's problems when the file has more than are listed."""

    @classmethod
    def of(cls, file: Path) -> MoreProblems:
        message = (
            f"… and more problems in this file (only the first {MAX_PROBLEMS_PER_FILE} are "
            "listed): fix these and check again"
        )
        return cls(file, None, None, None, message)


@dataclass(frozen=True, slots=True)
class Unconfirmed(Problem):
    """A task an importer guessed (`confirmed: false`): not served, yet no error in the file."""

    @classmethod
    def of(cls, file: Path, line: int | None, task: str) -> Unconfirmed:
        message = (
            "not confirmed: the importer guessed which option fills which blank. Check "
            "`answers`, then delete the line `confirmed: false`"
        )
        return cls(file, line, task, "confirmed", message)


def file_report(file: Path, problems: Iterable[Problem]) -> list[Problem]:
    """One file's problems in line order, cut after the first `MAX_PROBLEMS_PER_FILE`."""
    ordered = sorted(problems, key=lambda p: p.line or 0)
    if len(ordered) <= MAX_PROBLEMS_PER_FILE:
        return ordered
    return [*ordered[:MAX_PROBLEMS_PER_FILE], MoreProblems.of(file)]


def tally(problems: Sequence[Problem]) -> str:
    """ "3 problems", or "100+ problems" when a file had more than it lists."""
    count = sum(not isinstance(p, MoreProblems) for p in problems)
    more = "+" if any(isinstance(p, MoreProblems) for p in problems) else ""
    return f"{count}{more} problem{'' if count == 1 and not more else 's'}"


class ContentError(Exception):
    """The banks have problems; `problems` lists every one of them (up to the per-file bound)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        lines = "\n".join(str(p) for p in self.problems)
        super().__init__(f"{tally(self.problems)} in the content:\n{lines}")
