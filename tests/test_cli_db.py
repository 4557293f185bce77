"""`quizbot db current/upgrade`, `quizbot run` on a too-new database, and an installed wheel.

These run the command line as a user does (subprocesses, no checkout on the path where it
matters): the upgrade must work from `pip install .` as in the Dockerfile, not only here.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

from bot.cli import main
from bot.store import make_engine
from bot.store.migrate import head_revision
from bot.store.process_claim import claim_database_file
from tests.cli_run import run_quizbot_cli
from tests.pg_server import PgServer

ROOT = Path(__file__).resolve().parent.parent
OLD_DB = ROOT / "tests" / "store" / "fixtures" / "quizbot-0.1.0.db"


def row_counts(path: Path) -> dict[str, int]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


@pytest.fixture
def old_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the 0.1.0 database, named by DATABASE_URL; cwd is tmp_path (no .env)."""
    path = tmp_path / "data" / "quizbot.db"
    path.parent.mkdir()
    shutil.copyfile(OLD_DB, path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    return path


def run_quizbot(
    *args: str, env: dict[str, str], cwd: Path, python_path: Path | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | env
    if python_path is not None:
        full_env["PYTHONPATH"] = str(python_path)
    return run_quizbot_cli(*args, cwd=cwd, env=full_env)


def make_too_new(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES ('0099_from_the_future')")
        conn.commit()


def test_db_current_then_upgrade_then_current(
    old_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = row_counts(old_db)
    assert main(["db", "current"]) == 0
    assert capsys.readouterr().out.startswith("unversioned (a quizbot 0.1.0 database)")

    assert main(["db", "upgrade"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"upgraded from unversioned (0.1.0) to {head_revision()}"
    (backup,) = old_db.parent.glob("quizbot.db.backup-*")
    assert out[1] == f"backup: {backup}"
    assert row_counts(backup) == before
    with contextlib.closing(sqlite3.connect(backup)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)

    assert main(["db", "current"]) == 0
    assert capsys.readouterr().out == f"{head_revision()} (head)\n"
    assert main(["db", "upgrade"]) == 0
    assert "nothing to do" in capsys.readouterr().out
    assert len(list(old_db.parent.glob("quizbot.db.backup-*"))) == 1


def test_db_current_does_not_create_a_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/none/quizbot.db")
    assert main(["db", "current"]) == 1
    assert "no database at" in capsys.readouterr().out
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("command", [["db", "upgrade"], ["run"]])
def test_a_too_new_database_stops_with_one_line(old_db: Path, command: list[str]) -> None:
    make_too_new(old_db)
    env = {
        "DATABASE_URL": f"sqlite:///{old_db}",
        "DISCORD_TOKEN": "not-a-real-token",
        "CONTENT_DIR": str(ROOT / "content"),
        "CONTENT_CACHE": "",
        "LOG_LEVEL": "WARNING",
        # Never reached; set so that a regression could not reach the real Discord.
        "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10",
    }
    result = run_quizbot(*command, env=env, cwd=old_db.parent.parent, python_path=ROOT)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("quizbot: the database sqlite:///")
    assert "'0099_from_the_future'" in line
    assert "(DATABASE_URL) — run the newer quizbot" in line
    assert list(old_db.parent.glob("*.backup-*")) == []


@pytest.mark.slow
def test_an_installed_wheel_finds_and_applies_the_migrations(tmp_path: Path) -> None:
    """`pip install .` (the Dockerfile's way): the scripts must be in the package's data."""
    # The files the Dockerfile copies, built outside the checkout (pip builds in the tree).
    source = tmp_path / "src"
    shutil.copytree(ROOT / "bot", source / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copyfile(ROOT / name, source / name)
    target = tmp_path / "site"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target),
         str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    shipped = target / "bot" / "store" / "migrations"
    assert (shipped / "versions" / "0001_baseline.py").is_file()
    assert (shipped / "script.py.mako").is_file()  # for writing the next revision
    work = tmp_path / "work"  # not the checkout: `bot` must come from the install
    work.mkdir()
    db = work / "quizbot.db"
    shutil.copyfile(OLD_DB, db)
    env = {"DATABASE_URL": f"sqlite:///{db}"}

    installed = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed["PYTHONPATH"] = str(target)
    where = subprocess.run(
        [sys.executable, "-c", "import bot.store.migrate as m; print(m.MIGRATIONS_DIR)"],
        cwd=work,
        env=installed,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(target)

    result = run_quizbot("db", "upgrade", env=env, cwd=work, python_path=target)
    assert result.returncode == 0, result.stderr
    assert f"to {head_revision()}" in result.stdout
    current = run_quizbot("db", "current", env=env, cwd=work, python_path=target)
    assert current.stdout == f"{head_revision()} (head)\n"
    assert len(list(work.glob("quizbot.db.backup-*"))) == 1


UNREACHABLE_PG = "postgresql+psycopg://quizbot:hunter2@127.0.0.1:1/quizbot"


def unusable_database_url(kind: str, tmp_path: Path) -> tuple[str, str]:
    """DATABASE_URL for a database a host got wrong, and what the one line must say."""
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "notes.txt").write_text("not a database\n" * 100)
    (tmp_path / "folder").mkdir()
    return {
        "folder": (f"sqlite:///{tmp_path / 'folder'}", "is a folder, not a database file"),
        "not-sqlite": (f"sqlite:///{tmp_path / 'notes.txt'}", "is not an SQLite database"),
        "unreachable": (UNREACHABLE_PG, "cannot connect to the PostgreSQL database"),
    }[kind]


def assert_one_database_line(
    code: int, capsys: pytest.CaptureFixture[str], expected: str, setting: str = "DATABASE_URL"
) -> str:
    captured = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in captured.err + captured.out
    assert "hunter2" not in captured.err
    (line,) = captured.err.splitlines()
    assert line.startswith("quizbot: ") and expected in line
    assert f" ({setting}) — " in line
    return line


def assert_refused_touching_nothing(
    argv: list[str],
    kind: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`quizbot <argv>` run from `tmp_path` on an unusable DATABASE_URL (`kind`): one line,
    and no file made, removed or changed."""
    url, expected = unusable_database_url(kind, tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", url)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert_one_database_line(main(argv), capsys, expected)
    assert sorted(p.name for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "notes.txt").read_text() == "not a database\n" * 100


@pytest.mark.parametrize("kind", ["folder", "not-sqlite", "unreachable"])
def test_db_current_on_an_unusable_database_is_one_line_and_writes_nothing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused_touching_nothing(["db", "current"], kind, tmp_path, monkeypatch, capsys)


def test_db_upgrade_of_a_database_another_process_holds_is_one_line(
    old_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An sqlite3 shell (or a second quizbot) inside a write transaction for longer than the
    busy timeout: the upgrade waits, then stops with one line; the file is left as it was."""
    before = row_counts(old_db)
    holder = sqlite3.connect(old_db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        line = assert_one_database_line(main(["db", "upgrade"]), capsys, "the database is busy")
    finally:
        holder.close()
    assert "nothing was changed" in line and "another process holds the database" in line
    assert row_counts(old_db) == before
    assert main(["db", "current"]) == 0  # still the 0.1.0 database, upgradable as before
    assert capsys.readouterr().out.startswith("unversioned (a quizbot 0.1.0 database)")


def test_db_upgrade_under_a_running_bot_is_one_line_and_changes_nothing(
    old_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bot running on the file expects the schema it opened: upgrading it from under the
    bot is refused before anything is opened or backed up."""
    before = old_db.read_bytes()
    running = claim_database_file(f"sqlite:///{old_db}")
    try:
        line = assert_one_database_line(
            main(["db", "upgrade"]), capsys, "another quizbot process"
        )
    finally:
        running.release()
    assert f"(process {os.getpid()}) is already running on {old_db}" in line
    assert old_db.read_bytes() == before
    assert sorted(p.name for p in old_db.parent.iterdir()) == ["quizbot.db", "quizbot.db.lock"]
    assert main(["db", "upgrade"]) == 0  # once the bot has stopped
    assert "upgraded from unversioned (0.1.0)" in capsys.readouterr().out


@pytest.mark.postgresql
def test_a_postgresql_role_that_may_not_create_tables_is_one_line(
    old_db: Path,
    pg_server: PgServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Since PostgreSQL 15 only a database's owner may create tables in its `public` schema:
    a database made with `createdb quizbot` (without `-O quizbot`) refuses the schema, to
    `db upgrade` (and so `run`) and to `db copy` alike."""
    owned = pg_server.new_database(empty=True)
    admin = create_engine(owned, poolclass=NullPool)
    with admin.begin() as conn:  # as PostgreSQL 15 makes a new database; older ones need it
        conn.execute(text("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
    admin.dispose()
    pg_server.admin("DROP ROLE IF EXISTS quizbot_guest", "CREATE ROLE quizbot_guest LOGIN")
    guest = make_url(owned).set(username="quizbot_guest").render_as_string(hide_password=False)
    source = f"sqlite:///{old_db}"
    make_engine(source).dispose()  # upgraded: the copy's source must be at the head
    try:
        monkeypatch.setenv("DATABASE_URL", guest)
        line = assert_one_database_line(main(["db", "upgrade"]), capsys, "may not create")
        assert "createdb -O" in line and "GRANT CREATE ON SCHEMA public" in line
        assert_one_database_line(
            main(["db", "copy", source, guest]), capsys, "may not create", "DST_URL"
        )
    finally:
        pg_server.drop_database(owned)
        pg_server.admin("DROP ROLE quizbot_guest")


def test_db_current_and_upgrade_find_the_file_of_a_uri_form_url(
    old_db: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sqlite:///file:…?uri=true` (SQLite's URI form) names the file after `file:`: it is
    the database that is looked at, and the backup named is a file beside it."""
    monkeypatch.chdir(old_db.parent)
    monkeypatch.setenv("DATABASE_URL", "sqlite:///file:quizbot.db?uri=true")
    assert main(["db", "current"]) == 0
    assert capsys.readouterr().out.startswith("unversioned (a quizbot 0.1.0 database)")

    assert main(["db", "upgrade"]) == 0
    out = capsys.readouterr().out.splitlines()
    (backup,) = old_db.parent.glob("quizbot.db.backup-*")
    assert out[1] == f"backup: {backup.name}"
    assert row_counts(backup)["score"] == row_counts(old_db)["score"]


def test_db_current_on_a_database_the_bot_may_not_reach_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    stat = Path.stat

    def denied(self: Path, **kwargs: bool) -> os.stat_result:
        # Root may look into any folder, so the refusal is made by hand, as the OS makes it.
        if locked in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", denied)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{locked}/quizbot.db")
    assert main(["db", "current"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"quizbot: cannot reach the database {locked}/quizbot.db (Permission denied) "
        "(DATABASE_URL) — give the bot's user access to every folder on the way to it (read "
        "and execute)\n"
    )
