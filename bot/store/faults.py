"""Database faults while the bot runs: the one place the engines' error codes (SQLite's result
codes, PostgreSQL's SQLSTATEs and lost connections) become domain errors.

A unit of work the database refuses (`Store.read`/`Store.write` wrap each in `translated`)
stored nothing, so the member is told what they lost and that it did not count
(`StoreBusyError`, `StoreUnavailableError` in bot/quiz/errors.py, whose messages are decided
there). The host is told once, in one log line without a traceback, naming the fault and
DATABASE_URL: a WARNING for a lock held too long (it passes by itself), an ERROR for what the
host must fix (a full disk, a damaged or read-only file, an I/O error, a database server that
cannot be reached).

On PostgreSQL a lost or refused connection (the server stopped, restarting, unreachable) and
a pool with no free connection are "unavailable"; a lock or statement timeout, a deadlock and
a serialization failure are "busy". The pool pings each connection before use and drops dead
ones, so the next unit of work after the server is back simply succeeds. A COMMIT whose
connection is lost may still have committed. A group commit with answers then looks for its
first recorded answer on a new connection (`Store.commit_group`): if it is there, the group
counts, with one more line saying so. Any other unit, or when the server cannot be asked yet,
is reported as refused (nothing is ever acknowledged that the database does not hold), which
at worst refuses what was in fact stored. Nothing is asked on the path without faults.

An SQLite file deleted or renamed over while the bot runs (`db.FileWatch`) is "unavailable"
too: every write is refused from then on, reported in one line when it is first noticed.

Anything else (a constraint, an SQL error) is not a fault of the database but a refused row or
a bug, and passes through unchanged. At start-up, `preflight` reports the same codes as
HostErrors before the bot goes online.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from bot.quiz.errors import StoreAction, StoreBusyError, StoreError, StoreUnavailableError

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Fault:
    """What an SQLite error code means for the host."""

    what: str
    """The fault, for the log ("the disk is full")."""
    fix: str
    """What the host should do about it."""
    busy: bool = False
    """It passes by itself (the member may just try again)."""


BUSY: Final = Fault(
    "the database is busy: another connection held its lock for longer than the busy timeout",
    "it passes by itself; if it keeps happening, look for another process using the database "
    "(run one bot per database)",
    busy=True,
)
FULL: Final = Fault(
    "the disk is full",
    "free space on the database's disk (or raise the database's max_page_count, if set)",
)
DAMAGED: Final = Fault(
    "the database file is damaged",
    "stop the bot and restore the database from a backup (README, Troubleshooting)",
)
READ_ONLY: Final = Fault(
    "the database has become read-only",
    "give the bot's user write access to the file and its folder (a read-only remount?)",
)
IO_ERROR: Final = Fault(
    "a disk I/O error",
    "check the disk and the file system the database lies on",
)
CANNOT_OPEN: Final = Fault(
    "the database file cannot be opened",
    "check that the file and its folder still exist and the bot's user may read and write them",
)

GONE: Final = Fault(
    "the database file was deleted or replaced while the bot ran",
    "put the file back (with its -wal) or restore it from a backup, then restart the bot",
)


class FileGoneError(Exception):
    """The SQLite file an engine opened is no longer at its path (`db.FileWatch`). `first`:
    the first refusal since it went, the one to report."""

    def __init__(self, path: Path, first: bool) -> None:
        super().__init__(f"{path} is no longer the file the database was opened from")
        self.path = path
        self.first = first


_BY_CODE: Final[dict[int, Fault]] = {
    sqlite3.SQLITE_BUSY: BUSY,
    sqlite3.SQLITE_LOCKED: BUSY,
    sqlite3.SQLITE_FULL: FULL,
    sqlite3.SQLITE_CORRUPT: DAMAGED,
    sqlite3.SQLITE_NOTADB: DAMAGED,
    sqlite3.SQLITE_READONLY: READ_ONLY,
    sqlite3.SQLITE_IOERR: IO_ERROR,
    sqlite3.SQLITE_CANTOPEN: CANNOT_OPEN,
}


UNREACHABLE: Final = Fault(
    "the database server cannot be reached (stopped, restarting, or the network is down)",
    "start the PostgreSQL server or fix the network to it; the bot reconnects by itself",
)
NO_CONNECTION: Final = Fault(
    "no database connection came free within the pool timeout",
    "look for slow statements or a server that stopped answering; it passes by itself",
)
TOO_MANY_CONNECTIONS: Final = Fault(
    "the database server refuses more connections",
    "raise the server's max_connections, or run fewer processes against it",
)

# PostgreSQL SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html); the
# two-character classes after the full codes.
_BY_SQLSTATE: Final[dict[str, Fault]] = {
    "55P03": BUSY,  # lock_not_available: lock_timeout
    "57014": BUSY,  # query_canceled: statement_timeout
    "40001": BUSY,  # serialization_failure
    "40P01": BUSY,  # deadlock_detected
    "53100": FULL,  # disk_full
    "53300": TOO_MANY_CONNECTIONS,
    "25006": READ_ONLY,  # read_only_sql_transaction (a standby, default_transaction_read_only)
    "58030": IO_ERROR,
    "XX001": DAMAGED,  # data_corrupted
    "XX002": DAMAGED,  # index_corrupted
    "57P01": UNREACHABLE,  # admin_shutdown
    "57P02": UNREACHABLE,  # crash_shutdown
    "57P03": UNREACHABLE,  # cannot_connect_now (starting up, shutting down)
    "08": UNREACHABLE,  # connection_exception
}


def sqlite_error(error: BaseException) -> sqlite3.Error | None:
    """The driver's error inside SQLAlchemy's wrapper (or the error itself)."""
    driver = error.orig if isinstance(error, DBAPIError) else error
    return driver if isinstance(driver, sqlite3.Error) else None


def _psycopg_error(error: BaseException) -> BaseException | None:
    """psycopg's error inside SQLAlchemy's wrapper (psycopg is loaded once a PostgreSQL
    engine exists, and is an optional install)."""
    psycopg = sys.modules.get("psycopg")
    driver = error.orig if isinstance(error, DBAPIError) else error
    if psycopg is None or not isinstance(driver, psycopg.Error):
        return None
    return driver


def classify(error: BaseException) -> Fault | None:
    """The fault an error reports; None for anything that is not a fault of the database."""
    if isinstance(error, PoolTimeoutError):
        return NO_CONNECTION
    driver = sqlite_error(error)
    code = getattr(driver, "sqlite_errorcode", None)
    if code is not None:
        return _BY_CODE.get(code & 0xFF)  # extended codes keep the primary code in the low byte
    pg = _psycopg_error(error)
    if pg is None:
        return None
    state = getattr(pg, "sqlstate", None)
    if state:
        return _BY_SQLSTATE.get(state) or _BY_SQLSTATE.get(state[:2])
    psycopg = sys.modules["psycopg"]
    if isinstance(pg, psycopg.OperationalError) or (
        isinstance(error, DBAPIError) and error.connection_invalidated
    ):
        # No SQLSTATE: the connection failed or was lost (refused, closed, timed out).
        return UNREACHABLE
    return None


def error_name(error: BaseException) -> tuple[str, BaseException]:
    """The error's code for a log or host line, and the error whose text it quotes."""
    driver = sqlite_error(error)
    if driver is not None:
        return getattr(driver, "sqlite_errorname", "SQLITE_ERROR"), driver
    pg = _psycopg_error(error)
    if pg is not None:
        state = getattr(pg, "sqlstate", None)
        return (f"SQLSTATE {state}" if state else type(pg).__name__), pg
    return type(error).__name__, error


def one_line(error: BaseException) -> str:
    """The error's code and the driver's whole text, on one line, for a log line."""
    name, driver = error_name(error)
    text = str(driver).strip().replace("\n", " ")
    return f"{name}: {text}"


def store_error(error: BaseException, url: URL, action: StoreAction) -> StoreError | None:
    """The domain error for a database fault, logged once (see the module docstring); None
    when `error` is no such fault."""
    fault = classify(error)
    if fault is None:
        return None
    work = "a read" if action is StoreAction.READ else "a write"
    where = url.render_as_string(hide_password=True)
    log.log(
        logging.WARNING if fault.busy else logging.ERROR,
        "database fault: %s (%s) at %s (DATABASE_URL); %s was refused and stored nothing — %s",
        fault.what,
        one_line(error),
        where,
        work,
        fault.fix,
    )
    kind = StoreBusyError if fault.busy else StoreUnavailableError
    return kind(action, fault.what)


@contextlib.contextmanager
def translated(url: URL, action: StoreAction) -> Iterator[None]:
    """Turn a database fault raised inside into its domain error (and log it once)."""
    try:
        yield
    except FileGoneError as exc:
        if exc.first:
            log.error(
                "database fault: %s (%s) at %s (DATABASE_URL); every write is refused from "
                "now on, so nothing is acknowledged that the next start would not find — %s",
                GONE.what,
                exc.path,
                url.render_as_string(hide_password=True),
                GONE.fix,
            )
        raise StoreUnavailableError(action, GONE.what) from exc
    except (DBAPIError, sqlite3.Error, PoolTimeoutError) as exc:
        error = store_error(exc, url, action)
        if error is None:
            raise
        raise error from exc
