"""What the engines' error codes (SQLite's result codes, PostgreSQL's SQLSTATEs, lost
connections) mean for the host: a `Fault` each, with what to fix. `store.translated` turns them
into domain errors while the bot runs; `preflight` and `migrate` report them at start-up.
A lock or statement timeout, a deadlock or a serialization failure is "busy" (it passes); a
lost or refused connection or an empty pool is "unavailable". Anything else (a constraint, an
SQL error) is no fault of the database."""

from __future__ import annotations

import sqlite3
import sys
from dataclasses import dataclass
from typing import Final

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError


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
