"""A version table quizbot cannot trust, and databases that are not quizbot's (issue 26).

`alembic_version` dropped (or emptied) on a schema newer than 0.1.0, or holding two rows, gave
raw Alembic and SQLAlchemy tracebacks from `db current`, `db upgrade` and `run`. Each now says
in one `quizbot: …` line what is wrong and what to do, and what it says to do works. A foreign
SQLite file is never called "a quizbot 0.1.0 database" (nor a newer quizbot's).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from pathlib import Path

import pytest
from alembic import command

from bot.cli import main
from bot.store import make_engine
from bot.store.migrate import alembic_config, head_revision
from tests.test_cli_db import OLD_DB, ROOT, assert_one_database_line, run_quizbot

pytestmark = pytest.mark.sqlite_only  # SQLite files the test edits with sqlite3


def sql(path: Path, *statements: str) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for statement in statements:
            conn.execute(statement)
        conn.commit()


def rows(path: Path, query: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute(query).fetchall()


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database at this quizbot's head, named by DATABASE_URL; cwd is tmp_path."""
    path = tmp_path / "data" / "quizbot.db"
    make_engine(f"sqlite:///{path}").dispose()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    return path


def at_revision(path: Path, revision: str) -> None:
    """The 0.1.0 database upgraded to `revision` only (not the head)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OLD_DB, path)
    engine = make_engine(f"sqlite:///{path}", create=False)
    try:
        with engine.begin() as conn:
            command.stamp(alembic_config(conn), "0001_baseline")
            command.upgrade(alembic_config(conn), revision)
    finally:
        engine.dispose()


DROPPED = "DROP TABLE alembic_version"
EMPTIED = "DELETE FROM alembic_version"
DOUBLED = "INSERT INTO alembic_version VALUES ('0001_baseline')"


def db_lines(capsys: pytest.CaptureFixture[str], expected: str) -> list[str]:
    """`db current` and `db upgrade`: one line each, the same."""
    return [
        assert_one_database_line(main(["db", command]), capsys, expected)
        for command in ("current", "upgrade")
    ]


@pytest.mark.parametrize("change", [DROPPED, EMPTIED], ids=["dropped", "emptied"])
def test_a_head_schema_without_its_version_says_how_to_record_it(
    db: Path, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(db, change)
    before = db.read_bytes()
    current, upgrade = db_lines(capsys, "has quizbot's tables but no schema version")
    assert current == upgrade
    assert f"its tables are this quizbot's schema {head_revision()}" in current
    assert db.read_bytes() == before and not list(db.parent.glob("*.backup-*"))

    # What the line says to do works.
    mend = current.split("`")[1]
    sql(db, *mend.split("; "))
    assert main(["db", "current"]) == 0
    assert capsys.readouterr().out == f"{head_revision()} (head)\n"


def test_two_versions_say_which_to_keep(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sql(db, DOUBLED)
    current, _ = db_lines(capsys, "has 2 schema versions")
    assert "'0001_baseline'" in current and f"'{head_revision()}'" in current
    mend = current.split("`")[1]
    assert mend == f"DELETE FROM alembic_version WHERE version_num <> '{head_revision()}'"
    sql(db, mend)
    assert main(["db", "upgrade"]) == 0
    assert "nothing to do" in capsys.readouterr().out


@pytest.mark.parametrize("change", [DROPPED, DOUBLED], ids=["dropped", "doubled"])
def test_an_older_schema_without_a_trusted_version_says_to_restore_a_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "data" / "quizbot.db"
    at_revision(path, "0003_server_banks")
    sql(path, change)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    for line in db_lines(capsys, "quizbot: the database"):
        assert "not this quizbot's schema" in line and "restore the database from a backup" in line
        assert "`" not in line  # no SQL that would record a version it is not at


@pytest.mark.slow
@pytest.mark.parametrize("change", [DROPPED, DOUBLED], ids=["dropped", "doubled"])
def test_run_says_the_same_one_line(db: Path, change: str) -> None:
    sql(db, change)
    env = {
        "DATABASE_URL": f"sqlite:///{db}",
        "DISCORD_TOKEN": "not-a-real-token",
        "CONTENT_DIR": str(ROOT / "content"),
        "CONTENT_CACHE": "",
        "LOG_LEVEL": "WARNING",
        "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10",  # never reached
    }
    result = run_quizbot("run", env=env, cwd=db.parent.parent, python_path=ROOT)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"quizbot: the database sqlite:///{db} has ")
    assert "(DATABASE_URL) — its tables are this quizbot's schema" in line


def test_an_unreadable_version_table_is_one_line(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sql(
        db,
        DROPPED,
        "CREATE TABLE alembic_version (x INTEGER)",
        "INSERT INTO alembic_version VALUES (1)",
    )
    db_lines(capsys, "has an alembic_version table quizbot cannot read")


def test_a_foreign_sqlite_file_is_not_called_a_quizbot_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.db"
    sql(
        path,
        "CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)",
        "INSERT INTO note VALUES (1, 'x')",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    for line in db_lines(capsys, "it is not a quizbot database"):
        assert "0.1.0" not in line
    assert rows(path, "SELECT name FROM sqlite_master WHERE type = 'table'") == [("note",)]


def test_another_alembic_applications_database_is_not_called_newer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "other.db"
    sql(
        path,
        "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)",
        "INSERT INTO alembic_version VALUES ('ae1027a6acf')",
        "CREATE TABLE users (id INTEGER PRIMARY KEY)",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    for line in db_lines(capsys, "it is not a quizbot database"):
        assert "newer" not in line and "'ae1027a6acf'" in line
