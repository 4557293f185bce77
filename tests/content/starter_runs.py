"""Run a starter bank's code as its reader would: Python, SQLite, bash and git, each in a
temporary folder, with a timeout, and no setting of the developer's leaking in."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path
from typing import Any

TIMEOUT = 20
# Every SQL task states this data in its text.
SQL_DATA = """
CREATE TABLE students (id INTEGER PRIMARY KEY, name TEXT, city TEXT);
INSERT INTO students VALUES (1, 'Ana', 'Oslo'), (2, 'Ben', 'Lima'), (3, 'Caro', 'Oslo'),
                            (4, 'Dev', NULL);
CREATE TABLE scores (student_id INTEGER, course TEXT, points INTEGER);
INSERT INTO scores VALUES (1, 'math', 90), (1, 'art', 70), (2, 'math', 60), (3, 'math', 80),
                          (3, 'art', NULL);
"""
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Tester",
    "GIT_AUTHOR_EMAIL": "tester@example.com",
    "GIT_COMMITTER_NAME": "Tester",
    "GIT_COMMITTER_EMAIL": "tester@example.com",
    "GIT_EDITOR": "true",
    "GIT_PAGER": "cat",
}


def plain(option: str) -> str:
    """An option as its output: `[1, 2]` in code marks reads [1, 2]."""
    return option[1:-1] if len(option) > 2 and option[0] == option[-1] == "`" else option


def code_block(text: str) -> str:
    """The one fenced code block of a question."""
    (block,) = re.findall(r"```[a-z]*\n(.*?)```", text, re.DOTALL)
    return str(block)


def filled(code: str, option: str) -> str:
    assert code.count("[1]") == 1, code
    return code.replace("[1]", option)


def python_outcome(code: str, cwd: Path) -> str:
    """What the program prints, or `!ErrorName` when it ends with an exception."""
    result = subprocess.run(
        [sys.executable, "-I", "-c", code],
        cwd=cwd,
        env={"PATH": os.defpath},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    if result.returncode:
        return "!" + result.stderr.strip().splitlines()[-1].split(":")[0]
    return result.stdout.strip()


def shell_outcome(script: str, cwd: Path, env: Mapping[str, str] | None = None) -> str:
    """What the script prints; `[stderr]` is appended when it printed an error too."""
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(cwd), **(env or {})},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    out = result.stdout.rstrip("\n")
    return out + "\n[stderr]" if result.stderr.strip() else out


def git_outcome(script: str, cwd: Path) -> str:
    return shell_outcome("git init -q -b main . && " + script, cwd, GIT_ENV)


def sql_rows(script: str, query: str | None = None) -> list[tuple[Any, ...]] | str:
    """The rows of the script's last statement (or of `query`, run after it) on the tasks'
    data, or `!error` when SQLite refuses it."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.executescript(SQL_DATA)
        try:
            *before, last = [s for s in script.split(";") if s.strip()]
            for statement in before:
                db.execute(statement)
            rows = db.execute(last).fetchall()
            return db.execute(query).fetchall() if query else rows
        except sqlite3.Error:
            return "!error"
