"""Commands that touch no database load no SQL library: `quizbot content check` and `--help`
start in under half the time (and the tests run hundreds of them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.cli_run import ROOT, quizbot_env

SQL = ("sqlalchemy", "sqlmodel", "alembic", "psycopg")
PROBE = """
import contextlib, io, sys
from bot.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(code, *sorted({m.split(".")[0] for m in sys.modules}))
"""


@pytest.mark.parametrize(
    "args", [["content", "check", str(ROOT / "content")], ["content", "list"], []]
)
def test_commands_without_a_database_load_no_sql_library(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=quizbot_env(CONTENT_DIR=str(ROOT / "content")),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    code, *loaded = done.stdout.split() or ["no output"]
    assert code == "0", done.stderr
    assert set(loaded).isdisjoint(SQL), sorted(set(loaded) & set(SQL))
