"""The start-up check of the SQLite file: each way it can be unusable is one line naming
DATABASE_URL, found before the bot goes online (and found as root too)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import inspect

from bot.clock import utcnow
from bot.host_errors import HostError
from bot.store import Store, answers, make_engine, preflight
from bot.store.preflight import check_database, check_readable, database_problem
from tests.store_calls import write

AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
ROOT_WRITES_ANYWAY = "root ignores permission bits, so chmod cannot make a read-only database"

# The start-up checks of an SQLite file: not run on PostgreSQL.
pytestmark = pytest.mark.sqlite_only


def refused(url: str) -> str:
    with pytest.raises(HostError) as caught:
        check_database(url)
    assert caught.value.setting == "DATABASE_URL"
    return str(caught.value)


def existing_database(path: Path) -> Path:
    engine = make_engine(f"sqlite:///{path}")
    write(Store(engine), answers.upsert_member, 1, 2, "ada", utcnow())
    engine.dispose()
    return path


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[Path]:
    """A folder the test makes read-only; writable again afterwards, so tmp_path cleans up."""
    folder = tmp_path / "ro"
    folder.mkdir()
    yield folder
    folder.chmod(0o755)
    for child in folder.iterdir():
        child.chmod(0o644)


def test_a_new_database_in_a_missing_folder_passes_and_gets_its_folder(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "quizbot.db"
    check_database(f"sqlite:///{path}")
    assert path.parent.is_dir()
    engine = make_engine(f"sqlite:///{path}")  # the engine takes over from there
    assert "member" in inspect(engine).get_table_names()
    engine.dispose()


def test_an_existing_database_passes_unchanged(tmp_path: Path) -> None:
    path = existing_database(tmp_path / "quizbot.db")
    before = path.read_bytes()
    check_database(f"sqlite:///{path}")
    assert path.read_bytes() == before  # the write probe was rolled back
    with sqlite3.connect(path) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert "quizbot_write_probe" not in tables


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_memory_databases_are_not_probed(url: str) -> None:
    # (PostgreSQL is connected to: tests/store/test_pg_faults.py.)
    check_database(url)


def test_a_folder_where_the_file_should_be(tmp_path: Path) -> None:
    line = refused(f"sqlite:///{tmp_path}")
    assert line.startswith(f"{tmp_path} is a folder, not a database file (DATABASE_URL) — ")
    assert f"sqlite:///{tmp_path / 'quizbot.db'}" in line


def test_a_path_under_a_regular_file(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("not a folder")
    line = refused(f"sqlite:///{blocker / 'sub' / 'quizbot.db'}")
    assert f"lies inside {blocker}, which is a file, not a folder (DATABASE_URL)" in line
    assert blocker.read_text() == "not a folder"


def test_a_database_in_a_folder_the_bot_may_not_look_into(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    stat = Path.stat

    def denied(self: Path, **kwargs: bool) -> object:
        # Root may look into any folder, so the refusal is made by hand, as the OS makes it.
        if locked in self.parents:
            raise PermissionError(13, "Permission denied", str(self))
        return stat(self, **kwargs)

    monkeypatch.setattr(Path, "stat", denied)
    database = locked / "inner" / "quizbot.db"
    expected = (
        f"cannot reach the database {database} (Permission denied) (DATABASE_URL) — give the "
        "bot's user access to every folder on the way to it (read and execute)"
    )
    assert refused(f"sqlite:///{database}") == expected
    with pytest.raises(HostError) as caught:
        check_readable(f"sqlite:///{database}")
    assert str(caught.value) == expected


def test_a_file_that_is_not_a_database(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n" * 200)
    line = refused(f"sqlite:///{notes}")
    assert line.startswith(f"{notes} is not an SQLite database (DATABASE_URL) — ")
    assert notes.read_text() == "shopping list\n" * 200


def test_a_database_opened_read_only_by_its_url(tmp_path: Path) -> None:
    """The read-only case that holds as root: SQLite itself refuses the write."""
    path = existing_database(tmp_path / "quizbot.db")
    line = refused(f"sqlite:///file:{path}?mode=ro&uri=true")
    assert line.startswith(f"the database {path} is read-only (DATABASE_URL) — ")


def test_a_database_another_process_is_writing_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Busy means someone can write it; the bot's own busy timeout handles the wait."""
    monkeypatch.setattr(preflight, "PROBE_TIMEOUT_S", 0.05)
    path = existing_database(tmp_path / "quizbot.db")
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        check_database(f"sqlite:///{path}")
    finally:
        other.close()


@pytest.mark.skipif(AS_ROOT, reason=ROOT_WRITES_ANYWAY)
def test_a_read_only_file(read_only: Path) -> None:
    path = existing_database(read_only / "quizbot.db")
    path.chmod(0o444)
    line = refused(f"sqlite:///{path}")
    assert line.startswith(f"the database {path} is read-only (DATABASE_URL) — ")


@pytest.mark.skipif(AS_ROOT, reason=ROOT_WRITES_ANYWAY)
def test_a_read_only_folder(read_only: Path) -> None:
    path = existing_database(read_only / "quizbot.db")
    read_only.chmod(0o555)
    line = refused(f"sqlite:///{path}")
    assert line.startswith(f"the folder {read_only} is read-only (DATABASE_URL) — ")
    assert "-wal" in line


@pytest.mark.skipif(AS_ROOT, reason=ROOT_WRITES_ANYWAY)
def test_a_new_database_in_a_read_only_folder(read_only: Path) -> None:
    read_only.chmod(0o555)
    line = refused(f"sqlite:///{read_only / 'quizbot.db'}")
    assert line.startswith(f"cannot open or create the database {read_only / 'quizbot.db'} ")


def sqlite_error(code: int, message: str) -> sqlite3.OperationalError:
    """What SQLite raises, for the codes a root test run cannot provoke."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    return error


@pytest.mark.parametrize(
    ("code", "problem"),
    [
        (sqlite3.SQLITE_READONLY_DIRECTORY, "the folder /srv/q is read-only"),
        (sqlite3.SQLITE_READONLY, "the database /srv/q/quizbot.db is read-only"),
        (sqlite3.SQLITE_CANTOPEN, "cannot open or create the database /srv/q/quizbot.db"),
        (sqlite3.SQLITE_NOTADB, "/srv/q/quizbot.db is not an SQLite database"),
        (sqlite3.SQLITE_CORRUPT, "the database /srv/q/quizbot.db is damaged"),
        (sqlite3.SQLITE_FULL, "cannot use the database /srv/q/quizbot.db (disk full)"),
    ],
)
def test_sqlite_errors_are_classified_by_their_code(code: int, problem: str) -> None:
    error = database_problem(Path("/srv/q/quizbot.db"), sqlite_error(code, "disk full"))
    assert error is not None
    assert error.setting == "DATABASE_URL"
    assert error.problem == problem


def test_a_busy_database_is_no_problem() -> None:
    assert database_problem(Path("q.db"), sqlite_error(sqlite3.SQLITE_BUSY, "locked")) is None


def test_the_read_only_check_creates_and_writes_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "none" / "quizbot.db"
    with pytest.raises(HostError, match=f"there is no database at {missing}"):
        check_readable(f"sqlite:///{missing}")
    assert list(tmp_path.iterdir()) == []
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n")
    with pytest.raises(HostError, match=r"is not an SQLite database") as refused:
        check_readable(f"sqlite:///{notes}", "SRC_URL")
    assert refused.value.setting == "SRC_URL" and "point SRC_URL at" in refused.value.fix
    assert notes.read_text() == "not a database\n"
    existing = tmp_path / "quizbot.db"
    make_engine(f"sqlite:///{existing}").dispose()
    check_readable(f"sqlite:///{existing}")
