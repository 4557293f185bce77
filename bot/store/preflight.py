"""Before the bot goes online: can it open *and write* the database? One HostError if not.

A read-only database opens fine, and the bot would then fail every answer. Permission bits lie
(root, read-only mounts, `?mode=ro`), so the check opens SQLite as the engine will and takes the
write lock in a transaction it rolls back. PostgreSQL is only connected to. Commands that only
read use `check_readable`, which creates and writes nothing. `setting` names what the host set
(DATABASE_URL, or `db copy`'s SRC_URL and DST_URL).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from bot.host_errors import HostError
from bot.store import dialect
from bot.store.db import PYSQLITE_OPTIONS, connect_url, is_memory, sqlite_file

SETTING: Final = "DATABASE_URL"
PROBE_TIMEOUT_S: Final = 1.0  # another writer holding the lock this long: still writable
_PROBE_TABLE: Final = "quizbot_write_probe"


def check_database(url: str, setting: str = SETTING) -> None:
    """Raise HostError if the database at `url` cannot be written. Creates the data folder
    (as the engine would); an in-memory database passes."""
    path = _sqlite_path(url, setting)
    if path is None:
        return
    _check_path(path, setting)
    mode = make_url(url).query.get("mode")
    if mode in ("ro", "rw") and not database_exists(path, setting):
        # SQLite's "unable to open database file" would read as a permission problem.
        raise HostError(
            setting,
            f"there is no database at {path}, and the URL's mode={mode} does not let quizbot "
            "create one",
            f"check {setting}'s path, or drop mode={mode} from it to start a new database",
        )
    _raise_problem(path, _probe(url), setting)


def check_lasting(url: str, setting: str = SETTING) -> None:
    """Raise HostError if `url` is in memory: gone when the bot stops (`run` refuses it)."""
    if make_url(url).get_backend_name() == "sqlite" and is_memory(url):
        raise HostError(
            setting,
            f"{url} is an in-memory database: everything stored in it is lost when quizbot stops",
            f"point {setting} at a database file, e.g. sqlite:///data/quizbot.db",
        )


def check_readable(url: str, setting: str = SETTING) -> None:
    """Raise HostError if the database at `url` is missing or cannot be read; writes nothing."""
    path = _sqlite_path(url, setting)
    if path is None:
        return
    _check_not_a_folder(path, setting)
    if not database_exists(path, setting):
        fix = f"check {setting}"
        if setting == SETTING:
            fix += "; quizbot db upgrade (or quizbot run) creates a new one"
        raise HostError(setting, f"there is no database at {path}", fix)
    _raise_problem(path, _read_probe(path, url), setting)


def _sqlite_path(url: str, setting: str) -> Path | None:
    """The SQLite file to check; None for memory, or PostgreSQL (checked here by connecting)."""
    if make_url(url).get_backend_name() == "postgresql":
        _check_server(url, setting)
        return None
    return sqlite_file(url)


def _raise_problem(path: Path, error: sqlite3.Error | None, setting: str) -> None:
    if error is not None:
        problem = database_problem(path, error, setting)
        if problem is not None:
            raise problem


def database_problem(path: Path, error: sqlite3.Error, setting: str = SETTING) -> HostError | None:
    """What SQLite's error on `path` means for the operator; None if usable (busy)."""
    code = getattr(error, "sqlite_errorcode", None) or 0
    primary = code & 0xFF  # extended codes keep the primary code in the low byte
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return None
    known = {  # by extended code first, then primary
        sqlite3.SQLITE_NOTADB: (
            f"{path} is not an SQLite database",
            f"point {setting} at the bot's database file, or at a new file name to start "
            "an empty database",
        ),
        sqlite3.SQLITE_READONLY_DIRECTORY: (
            f"the folder {path.parent} is read-only",
            "give the bot's user write access to the folder: SQLite keeps its -wal and -shm "
            "files beside the database",
        ),
        sqlite3.SQLITE_READONLY: (
            f"the database {path} is read-only",
            "give the bot's user write access to the file and its folder (and drop any "
            "mode=ro from the URL)",
        ),
        sqlite3.SQLITE_CANTOPEN: (
            f"cannot open or create the database {path}",
            "give the bot's user read and write access to the file and its folder",
        ),
        sqlite3.SQLITE_CORRUPT: (
            f"the database {path} is damaged",
            "restore it from a backup, or move it aside to start an empty one",
        ),
    }
    other = (
        f"cannot use the database {path} ({error})",
        "check the file, its folder and the free disk space",
    )
    problem, fix = known.get(code) or known.get(primary, other)
    return HostError(setting, problem, fix)


def _check_server(url: str, setting: str) -> None:
    from bot.store.db import CONNECT_TIMEOUT_S

    engine = create_engine(
        url, poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}
    )
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
    except DBAPIError as exc:
        reason = " ".join(str(exc.orig).split()) if exc.orig is not None else str(exc)
        where = make_url(url).render_as_string(hide_password=True)
        raise HostError(
            setting,
            f"cannot connect to the PostgreSQL database {where} ({reason})",
            "check that the server runs and that the URL's host, port, database, user and "
            "password are right",
        ) from None
    finally:
        engine.dispose()


def database_exists(path: Path, setting: str = SETTING) -> bool:
    """Whether `path` exists; HostError if a folder on the way may not be looked into."""
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise HostError(
            setting,
            f"cannot reach the database {path} ({exc.strerror or exc})",
            "give the bot's user access to every folder on the way to it (read and execute)",
        ) from None
    return True


def _check_not_a_folder(path: Path, setting: str) -> None:
    """What SQLite would only report as "unable to open database file"."""
    if database_exists(path, setting) and path.is_dir():
        raise HostError(
            setting,
            f"{path} is a folder, not a database file",
            f"point {setting} at a file in it, e.g. sqlite:///{path / 'quizbot.db'}",
        )
    if database_exists(path, setting) and not path.is_file():
        # A FIFO would block the open for ever; /dev/null fails the switch to WAL.
        raise HostError(
            setting,
            f"{path} is not a database file (it is a device, a pipe or a socket)",
            f"point {setting} at the bot's database file",
        )


def _check_path(path: Path, setting: str) -> None:
    """What SQLite would only report as "unable to open database file"."""
    _check_not_a_folder(path, setting)
    for ancestor in path.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise HostError(
                    setting,
                    f"{path} lies inside {ancestor}, which is a file, not a folder",
                    "choose a database path inside a folder, e.g. sqlite:///data/quizbot.db",
                )
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise HostError(
            setting,
            f"cannot create the folder {path.parent} ({exc.strerror or exc})",
            "create it, or give the bot's user write access to the folder above it",
        ) from None


def _probe(url: str) -> sqlite3.Error | None:
    """Open the database as the engine would and start a write; roll it back either way."""
    engine = create_engine(
        connect_url(url), poolclass=NullPool, connect_args={"timeout": PROBE_TIMEOUT_S}
    )
    try:
        connection = engine.raw_connection()
        try:
            sqlite = connection.driver_connection
            assert isinstance(sqlite, sqlite3.Connection)
            dialect.probe_sqlite_write(sqlite, _PROBE_TABLE)
        finally:
            connection.close()
    except DBAPIError as exc:  # raised while connecting, wrapping the driver's error
        if isinstance(exc.orig, sqlite3.Error):
            return exc.orig
        raise
    except sqlite3.Error as exc:
        return exc
    finally:
        engine.dispose()
    return None


def _read_probe(path: Path, url: str) -> sqlite3.Error | None:
    """Open the file read-only and read its schema (where a non-database shows), with the
    URL's own SQLite options: one SQLite refuses is a line here, not a traceback later."""
    options = {
        name: value
        for name, value in make_url(url).query.items()
        if name not in PYSQLITE_OPTIONS and isinstance(value, str)
    }
    uri = f"{path.absolute().as_uri()}?{urlencode(options | {'mode': 'ro'})}"
    try:
        sqlite = sqlite3.connect(uri, uri=True, timeout=PROBE_TIMEOUT_S)
    except sqlite3.Error as exc:
        return exc
    try:
        dialect.read_sqlite_schema(sqlite)
    except sqlite3.Error as exc:
        return exc
    finally:
        sqlite.close()
    return None
