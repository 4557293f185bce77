"""The command line's progress line: on a terminal it shows what runs and for how long, and is
erased before any output and at the end; anywhere else (a pipe, a log, CI) it writes nothing."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

from bot.terminal_progress import ERASE, ProgressLine
from tests.cli_run import run_quizbot_cli


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    pause = threading.Event()
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return
        pause.wait(0.01)
    raise AssertionError("the progress line was never drawn")


def test_on_a_terminal_it_shows_the_step_and_time_then_erases_itself() -> None:
    terminal, clock = Terminal(), Clock()
    with ProgressLine("copying the database", terminal, clock=clock, every=0.01) as line:
        clock.now = 3.0
        line.step("  session: 20,000 of 50,000 rows")
        wait_for(lambda: "(3 s)" in terminal.getvalue())
        out = line.guard(terminal)
        out.write("session: 50,000 rows\n")
    text = terminal.getvalue()
    assert ERASE + "copying the database: session: 20,000 of 50,000 rows (3 s)" in text
    # Erased before the output, so the line never runs into it, and at the end.
    assert ERASE + "session: 50,000 rows\n" in text
    # What stays on the screen: the output, never a stale progress line.
    assert text.split(ERASE)[-1] in ("", "session: 50,000 rows\n")


def test_quick_work_shows_no_line() -> None:
    terminal = Terminal()
    with ProgressLine("checking content", terminal, every=0.01):
        pass
    assert terminal.getvalue() == ""


def test_not_on_a_terminal_it_writes_nothing_and_leaves_streams_alone() -> None:
    stream, clock = io.StringIO(), Clock()
    with ProgressLine("importing", stream, clock=clock, every=0.01) as line:
        clock.now = 5.0
        threading.Event().wait(0.05)
        assert line.guard(stream) is stream
    assert stream.getvalue() == ""


def test_a_piped_check_carries_no_progress_line() -> None:
    result = run_quizbot_cli("content", "check", "content")
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stdout + result.stderr
