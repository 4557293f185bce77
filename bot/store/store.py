"""The unit-of-work core: a read, a write, and the answers' group commit (`commit_group`).

Sync on purpose (the service runs it in worker threads); what runs inside a unit is one store
module per job (`posts`, `answers`, `leaderboard`, ...), each a function of a `Connection`.
Here a database fault becomes a domain error (`translated`), and a write into an SQLite file
that is no longer at its path is refused (`_FileWatch`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.pool import StaticPool

from bot.quiz.errors import StoreAction, StoreBusyError, StoreError, StoreUnavailableError
from bot.store import answers, dialect, faults
from bot.store.answers import Answered, AnswerRequest
from bot.store.db import reader, sqlite_file, writer

_UTC = ZoneInfo("UTC")
log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Unit(Generic[T]):
    """A write unit of work not yet run: `Store.commit_group` runs it in the transaction of
    a group commit, with the answers and other units queued with it (or alone).
    `action` is what a refusal of the database loses (its StoreError's message)."""

    run: Callable[[Connection], T]
    action: StoreAction


@dataclass(frozen=True, slots=True)
class Group:
    """What one group commit did: each answer's result and each unit's, in order; a slot
    holds the exception that answer or unit alone failed with."""

    answered: list[Answered | Exception]
    units: list[Any]


class Store:
    """The units of work. Thread-safe: each checks out its own pooled connection. Reads see
    one snapshot; writes begin IMMEDIATE on SQLite, so read-then-write units are serialised by
    its write lock (on PostgreSQL they serialise on what they share: `dialect.lock`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.default_zone = _UTC
        """The zone of a "local day" for a server without a configured zone (a review card is
        rated once per local day); the service sets its own default zone here."""
        self._reader = reader(engine)
        self._members = answers.KnownMembers()
        """Member names this store committed: an answer under the same name writes no member."""
        self._writer = writer(engine).execution_options(**{answers.KNOWN_MEMBERS: self._members})
        if not event.contains(engine, "rollback_savepoint", _forget_members):
            event.listen(engine, "rollback_savepoint", _forget_members)
        self._file = _FileWatch.of(engine)
        # An in-memory engine has a single shared connection; interleaving two threads'
        # transactions on it would mix them, so units of work take turns.
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if isinstance(engine.pool, StaticPool) else contextlib.nullcontext()
        )

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read unit of work (deferred BEGIN: a consistent snapshot). For store modules.

        A database fault raises StoreBusyError or StoreUnavailableError (`translated`)."""
        with (
            translated(self.engine.url, StoreAction.READ),
            self._serial,
            self._reader.connect() as conn,
            conn.begin(),
        ):
            yield conn

    @contextlib.contextmanager
    def write(self, action: StoreAction = StoreAction.WRITE) -> Iterator[Connection]:
        """A write unit of work (BEGIN IMMEDIATE); commits on exit, rolls back on error.

        A database fault rolls it back and raises what `translated` says, naming `action`.
        The SQLite file is looked at before and after the commit (`_FileWatch`): a commit into
        a file a restart no longer finds is never acknowledged.
        """
        with translated(self.engine.url, action), self._serial:
            if self._file is not None:
                self._file.check()
            with self._writer.connect() as conn:
                try:
                    with conn.begin():
                        yield conn
                    if self._file is not None:
                        self._file.check(committed=True)
                    self._members.committed(conn)
                finally:
                    answers.KnownMembers.discard(conn)

    def commit_group(
        self,
        requests: Sequence[AnswerRequest],
        now: datetime,
        units: Sequence[Unit[Any]],
    ) -> Group:
        """The answers (`answers.record_batch`), then the units, in ONE write transaction: one
        wait for the disk for all that arrived together. A failing answer or unit gets its
        exception in its slot (a unit rolled back to its savepoint); a fault of the transaction
        raises, nothing written, naming what the first of the group loses. A lost COMMIT reply
        (PostgreSQL) whose answers the database shows stored returns the results."""
        if not requests and not units:
            return Group([], [])  # not worth taking the write lock for
        action = StoreAction.ANSWER if requests else units[0].action
        try:
            return self._commit_group(action, answers.record_batch, requests, now, units)
        except IntegrityError:
            if not requests:
                raise  # a lone unit's refused row: it was the whole transaction
            # Rolled back whole; the replay isolates the refused answer (a savepoint each, a
            # cost the common path does not pay). A unit's own refusal never gets here.
            return self._commit_group(action, answers.replay_batch, requests, now, units)

    def _commit_group(
        self,
        action: StoreAction,
        record: Callable[..., list[Answered | Exception]],
        requests: Sequence[AnswerRequest],
        now: datetime,
        units: Sequence[Unit[Any]],
    ) -> Group:
        """`commit_group`'s one transaction, recording the answers with `record` (the batch,
        or its replay one savepoint each)."""
        group: Group | None = None
        try:
            with self.write(action) as conn:
                answered = record(conn, requests, now, self.default_zone) if requests else []
                alone = not requests and len(units) == 1
                group = Group(answered, [_run_in(conn, unit, alone) for unit in units])
        except StoreUnavailableError:
            # Set only if the fault came with the COMMIT: the server may have committed and
            # lost the reply (it crashed, the network broke). Members must not be told "not
            # recorded" of what was recorded: the database itself says which it was.
            if group is None or not self._committed_after_all(requests, group, now):
                raise
        assert group is not None
        return group

    def _committed_after_all(
        self, requests: Sequence[AnswerRequest], group: Group, now: datetime
    ) -> bool:
        """Whether a group whose COMMIT failed with a lost connection is in the database
        (`answers.batch_committed`), asked on a new connection without a second fault line:
        False if the server cannot be asked yet (at worst a refusal of what was stored, as
        before). Only where a COMMIT's reply can be lost (`dialect.commit_reply_can_be_lost`);
        costs nothing on the path without faults."""
        if not dialect.commit_reply_can_be_lost(self.engine):
            return False
        try:
            with self._serial, self._reader.connect() as conn, conn.begin():
                stored = answers.batch_committed(conn, requests, group.answered, now)
        except (DBAPIError, PoolTimeoutError):
            return False
        if stored:
            log.warning(
                "the write refused above had committed after all (the database has its "
                "answers): its %d answers and units count, and their members get their results",
                len(requests) + len(group.units),
            )
        return stored


GONE = faults.Fault(
    "the database file was deleted or replaced while the bot ran",
    "put the file back (with its -wal) or restore it from a backup, then restart the bot",
)


class FileGoneError(Exception):
    """The SQLite file an engine opened is no longer at its path. `first`: the first refusal
    since it went, the one to report."""

    def __init__(self, path: Path, first: bool) -> None:
        super().__init__(f"{path} is no longer the file the database was opened from")
        self.path = path
        self.first = first


def store_error(error: BaseException, url: URL, action: StoreAction) -> StoreError | None:
    """The domain error for a database fault (`faults.classify`), logged once in one line
    without a traceback: the member is told what they lost, the host what to fix. None when
    `error` is no fault of the database (a refused row, a bug)."""
    fault = faults.classify(error)
    if fault is None:
        return None
    log.log(
        logging.WARNING if fault.busy else logging.ERROR,
        "database fault: %s (%s) at %s (DATABASE_URL); %s was refused and stored nothing — %s",
        fault.what,
        faults.one_line(error),
        url.render_as_string(hide_password=True),
        "a read" if action is StoreAction.READ else "a write",
        fault.fix,
    )
    kind = StoreBusyError if fault.busy else StoreUnavailableError
    return kind(action, fault.what)


@contextlib.contextmanager
def translated(url: URL, action: StoreAction) -> Iterator[None]:
    """The one place a database fault raised inside becomes a domain error (`store_error`)."""
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


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


class _FileWatch:
    """Whether the SQLite file an engine opened is still the one at its path.

    Deleted or renamed over, the file the open connections write to is not the one a restart
    opens, so what they commit is lost then: `check` (one stat, before and after each write)
    refuses the write instead. After a commit the -wal must be there too (deleted alone, it
    takes the commits not yet checkpointed). New connections are refused as well: SQLite would
    create an empty file at the path. A file moved back is written to again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wal_path = path.with_name(f"{path.name}-wal")
        self._opened = _stat(path)
        self._wal = self._opened is not None and self.wal_path.exists()
        self._gone = False
        self._lock = threading.Lock()

    @classmethod
    def of(cls, engine: Engine) -> _FileWatch | None:
        """The one watch of `engine`'s SQLite file; None for PostgreSQL or in memory."""
        watch = _WATCHES.get(engine)
        file = sqlite_file(engine.url) if watch is None else None
        if file is not None:
            watch = _WATCHES[engine] = cls(file)
            event.listen(engine, "do_connect", watch._refuse_connect)
            event.listen(engine, "connect", watch._connected)
        return watch

    def _connected(self, dbapi_connection: sqlite3.Connection, _record: object) -> None:
        wal = dialect.sqlite_wal_mode(dbapi_connection)
        with self._lock:
            if self._opened is None:
                self._opened = _stat(self.path)
            self._wal = self._wal or wal

    def _refuse_connect(self, *_args: object) -> None:
        if self._opened is not None and not self._same(self.path):
            raise self._refusal()

    def _same(self, path: Path) -> bool:
        now = _stat(path)
        return now is not None and self._opened is not None and os.path.samestat(now, self._opened)

    def check(self, *, committed: bool = False) -> None:
        """FileGoneError if the path no longer names the file opened (and, `committed` or
        while it is gone, if its -wal is missing). Before a write the -wal is looked at only
        once the file went: refusals then come before the write, not after it."""
        if self._opened is None:
            return
        if not self._same(self.path) or (
            (committed or self._gone) and self._wal and _stat(self.wal_path) is None
        ):
            raise self._refusal()
        if self._gone:
            with self._lock:
                back, self._gone = self._gone, False
            if back:
                log.warning(
                    "the database file %s is back at its path: writes are accepted again",
                    self.path,
                )

    def _refusal(self) -> FileGoneError:
        with self._lock:
            first, self._gone = not self._gone, True
        return FileGoneError(self.path, first)


_WATCHES: weakref.WeakKeyDictionary[Engine, _FileWatch] = weakref.WeakKeyDictionary()


def _forget_members(conn: Connection, _name: str, _context: object) -> None:
    """A savepoint rolled back: what its transaction wrote is not all there."""
    answers.KnownMembers.discard(conn)


def _run_in(conn: Connection, unit: Unit[Any], alone: bool) -> Any:
    """`unit`'s result, or the exception it failed with, rolled back to its savepoint. A
    fault of the database (not a refused row) is the whole transaction's: it propagates."""
    if alone:
        return unit.run(conn)
    try:
        with conn.begin_nested():
            return unit.run(conn)
    except IntegrityError as exc:
        return exc
    except SQLAlchemyError:
        raise
    except Exception as exc:  # the member's error, or a bug: that unit's alone
        return exc


__all__ = ["FileGoneError", "Group", "Store", "Unit", "translated"]
