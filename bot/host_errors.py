"""Problems with how the host set the bot up (a setting, a file, a token), not bugs: the CLI
prints one line each, `quizbot: <problem> (<SETTING>) — <fix>`, and exits 1 without a
traceback. The messages never contain the token (nor a database password).
"""

from __future__ import annotations

from collections.abc import Sequence


class HostError(Exception):
    def __init__(self, setting: str, problem: str, fix: str) -> None:
        super().__init__(setting, problem, fix)
        self.setting = setting
        self.problem = problem
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.problem} ({self.setting}) — {self.fix}"

    def lines(self) -> list[str]:
        return [str(self)]


class HostErrors(HostError):
    """Several at once (e.g. every bad setting), so one start reports all of them."""

    def __init__(self, errors: Sequence[HostError]) -> None:
        if not errors:
            raise ValueError("HostErrors needs at least one error")
        first = errors[0]
        super().__init__(first.setting, first.problem, first.fix)
        self.errors = list(errors)

    def lines(self) -> list[str]:
        return [str(error) for error in self.errors]
