"""What is wrong with a bank, located precisely enough to fix without hunting."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


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


class ContentError(Exception):
    """The banks have problems; `problems` lists every one of them."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        count = len(self.problems)
        lines = "\n".join(str(p) for p in self.problems)
        super().__init__(f"{count} problem{'' if count == 1 else 's'} in the content:\n{lines}")
