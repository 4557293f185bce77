"""`python -m bot` in a subprocess, as a user runs it: the one helper for the tests of the
command line (each test still builds the environment it is about)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from bot.settings import FIXES

ROOT = Path(__file__).resolve().parent.parent


def quizbot_env(**settings: str) -> dict[str, str]:
    """This process's environment without any quizbot setting (`settings.FIXES`, and
    CONTENT_CACHE), so no developer's shell leaks into a test, with this checkout's code on
    PYTHONPATH (whatever the folder the command runs in); then `settings`."""
    env = {k: v for k, v in os.environ.items() if k not in FIXES and k != "CONTENT_CACHE"}
    return env | {"PYTHONPATH": str(ROOT)} | settings


def run_quizbot_cli(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    input: str | None = None,
    timeout: float = 60,
    check: bool = False,
    prefix: Sequence[str] = (),
    stdout: int | IO[str] | IO[bytes] = subprocess.PIPE,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`python -m bot ARGS`, after `prefix` (a command that drops privileges, say), with `env`
    (default: `quizbot_env()`), stdout and stderr as text. The timeout fails a test that would
    hang instead of waiting for ever."""
    return subprocess.run(
        [*prefix, sys.executable, "-m", "bot", *args],
        env=quizbot_env() if env is None else dict(env),
        cwd=cwd,
        input=input,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
        check=check,
        preexec_fn=preexec_fn,
    )
