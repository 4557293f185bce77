"""What is wrong with a bank, located precisely enough to fix without hunting.

Also how a file's problems are reported: in line order, and at most `MAX_PROBLEMS_PER_FILE` of
them, then one `MoreProblems` line, so a hostile file cannot flood the terminal or the log.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.content.limits import MAX_PROBLEMS_PER_FILE


@dataclass(frozen=True, slots=True)
class Problem:
    file: Path
    line: int | None
    """1-based line of the offending key or value; None when the file itself is the problem."""
    task: str | None
    """The task's id, when the problem lies inside a task that has one."""
    field: str | None
    """Path of the offending field within the task (or bank), e.g. `solution.steps[0].text`."""
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        what = ", ".join(
            part
            for part in (
                f"task {self.task}" if self.task else "",
                f"field {self.field}" if self.field else "",
            )
            if part
        )
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
    """A task an importer could not be sure of (`confirmed: false`): the bot will not serve it
    and `content check` fails until a person has checked it, but it is no error in the file,
    so `content list` still lists the task."""

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
