"""Database faults while the bot runs: the one place SQLite's error codes become domain errors.

A unit of work the database refuses (`Store.read`/`Store.write` wrap each in `translated`)
stored nothing, so the member is told what they lost and that it did not count
(`StoreBusyError`, `StoreUnavailableError` in bot/quiz/errors.py, whose messages are decided
there). The host is told once, in one log line without a traceback, naming the fault and
DATABASE_URL: a WARNING for a lock held too long (it passes by itself), an ERROR for what the
host must fix (a full disk, a damaged or read-only file, an I/O error).

Anything else (a constraint, an SQL error) is not a fault of the database but a refused row or
a bug, and passes through unchanged. At start-up, `preflight` reports the same codes as
HostErrors before the bot goes online.
"""

from __future__ import annotations

import contextlib
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError

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


def sqlite_error(error: BaseException) -> sqlite3.Error | None:
    """The driver's error inside SQLAlchemy's wrapper (or the error itself)."""
    driver = error.orig if isinstance(error, DBAPIError) else error
    return driver if isinstance(driver, sqlite3.Error) else None


def classify(error: BaseException) -> Fault | None:
    """The fault an error reports; None for anything that is not a fault of the database."""
    driver = sqlite_error(error)
    code = getattr(driver, "sqlite_errorcode", None)
    if code is None:
        return None
    return _BY_CODE.get(code & 0xFF)  # extended codes keep the primary code in the low byte


def store_error(error: BaseException, url: URL, action: StoreAction) -> StoreError | None:
    """The domain error for a database fault, logged once (see the module docstring); None
    when `error` is no such fault."""
    fault = classify(error)
    if fault is None:
        return None
    driver = sqlite_error(error)
    name = getattr(driver, "sqlite_errorname", "SQLITE_ERROR")
    work = "a read" if action is StoreAction.READ else "a write"
    where = url.render_as_string(hide_password=True)
    log.log(
        logging.WARNING if fault.busy else logging.ERROR,
        "database fault: %s (%s: %s) at %s (DATABASE_URL); %s was refused and stored "
        "nothing — %s",
        fault.what,
        name,
        driver,
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
    except (DBAPIError, sqlite3.Error) as exc:
        error = store_error(exc, url, action)
        if error is None:
            raise
        raise error from exc
