"""One process per share of the servers: a bot refuses to start where another already serves
the same servers from the same database (members would get two replies a click, and a differing
`SHARD_COUNT` leaves some servers to no process at all).

- SQLite: an exclusive `flock` on `<database>.lock` (holding the holder's pid, for the message),
  which the kernel lets go however the process ends.
- PostgreSQL: session advisory locks on a connection of its own. A process serving every shard
  holds `EVERY` exclusively; any other holds `EVERY` and `COUNT` (its shard count) shared, and
  `SHARD` exclusively on each of its shards.

A server restart lets go of the locks while the process runs on, so the runner renews the claim
(`ProcessClaim.renew`): a lost hold is taken again, or, if another process took it, this one
stops with the line it would have met at start-up.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import DBAPIError

from bot.host_errors import HostError
from bot.sharding import ShardPlan
from bot.store import dialect
from bot.store.db import sqlite_file
from bot.store.faults import one_line

log = logging.getLogger(__name__)

SCALING_OUT: Final = "README.md, section 'Scaling out'"

# Namespaces of `dialect.try_pair_lock` ("qui" and a role), apart from `dialect.lock_key`'s.
EVERY: Final = 0x71756901
COUNT: Final = 0x71756902
SHARD: Final = 0x71756903

MAX_SHARD_LOCKS: Final = 1024  # more shards are not checked one by one (the lock table is shared)


class ProcessClaim:
    """What this process holds while it runs; `release` is idempotent and never raises. A
    file's claim cannot be lost while the process lives: nothing to renew."""

    def __init__(self, release: Callable[[], None] | None = None) -> None:
        self._release = release

    def renew(self) -> Renewal:
        """Take the claim again if its hold was lost. Raises HostError if another process
        holds it now."""
        return Renewal()

    def release(self) -> None:
        release, self._release = self._release, None
        if release is not None:
            release()


@dataclass(frozen=True, slots=True)
class Renewal:
    retaken: bool = False  # the hold was lost (its connection cut) and is taken again
    unreachable: str | None = None  # the database's error: nothing held until a later renewal


_ALIVE = text("SELECT 1")


class _ShardClaim(ProcessClaim):
    """The advisory locks of `claim_shards`; the mutex keeps `renew` from taking anything
    after `release`."""

    def __init__(self, engine: Engine, shards: ShardPlan, conn: Connection) -> None:
        super().__init__()
        self._engine = engine
        self._shards = shards
        self._conn: Connection | None = conn
        self._released = False
        self._mutex = threading.Lock()

    def renew(self) -> Renewal:
        with self._mutex:
            if self._released:
                return Renewal()
            try:
                if self._conn is not None:
                    try:
                        self._conn.execute(_ALIVE)
                        return Renewal()  # a live session still holds every lock it took
                    except DBAPIError:
                        self._drop()
                self._conn = _claimed_connection(self._engine, self._shards)
            except DBAPIError as exc:
                return Renewal(unreachable=one_line(exc))
            return Renewal(retaken=True)

    def release(self) -> None:
        with self._mutex:
            self._released = True
            self._drop()

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            dialect.drop_connection(conn)


def claim_database_file(url: str, *, reader: bool = False) -> ProcessClaim:
    """Hold an SQLite file for this process (before the engine opens it), or HostError if
    another holds it. A `reader` (`db copy`'s source) creates nothing: no lock file, no bot."""
    file = sqlite_file(url)
    if file is None:
        return ProcessClaim()
    # Resolved: a link to the file, or a relative spelling, is the same database.
    return _claim_file(file.resolve(), reader=reader)


def claim_shards(engine: Engine, shards: ShardPlan) -> ProcessClaim:
    """Hold this process's shards on PostgreSQL, or HostError naming the setting to change."""
    if not dialect.has_session_locks(engine):
        return ProcessClaim()
    return _ShardClaim(engine, shards, _claimed_connection(engine, shards))


def _claimed_connection(engine: Engine, shards: ShardPlan) -> Connection:
    conn = dialect.session_lock_connection(engine)
    try:
        _claim(conn, shards)
    except BaseException:
        dialect.drop_connection(conn)  # lets go of whatever was taken
        raise
    return conn


def _claim_file(database: Path, *, reader: bool = False) -> ProcessClaim:
    try:
        import fcntl  # POSIX only
    except ImportError:  # Windows: no flock; one bot per database stays the README's rule
        return ProcessClaim()
    lock_path = database.with_name(database.name + ".lock")
    try:
        if reader:
            # flock needs no write access; the holder's id is then left as it is.
            fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
        else:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if reader:
            return ProcessClaim()  # none (no bot ran there), or one we may not read
        raise HostError(
            "DATABASE_URL",
            f"cannot create {lock_path} ({exc.strerror})",
            "give the bot's user write access to the database's folder",
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _read_pid(fd)
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            # A file system without locks (some network mounts): the bot still runs.
            log.warning(
                "cannot lock %s (%s): a second bot on this database would not be noticed",
                lock_path,
                exc.strerror,
            )
            return ProcessClaim()
        who = f" (process {holder})" if holder else ""
        raise HostError(
            "DATABASE_URL",
            f"another quizbot process{who} is already running on {database}",
            "stop it first: one bot runs per SQLite database (for several processes, use "
            f"PostgreSQL and shards: {SCALING_OUT})",
        ) from None
    if not reader:
        with contextlib.suppress(OSError):  # the id is for the message only
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)

    def release() -> None:
        os.close(fd)  # the lock goes with the descriptor; the file stays for the next start

    return ProcessClaim(release)


def _read_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip())
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _claim(conn: Connection, shards: ShardPlan) -> None:
    if shards.count is None or shards.ids is None or len(shards.ids) == shards.count:
        if not dialect.try_pair_lock(conn, EVERY, 0):
            raise _taken_error(conn, shards)
        return
    if not dialect.try_pair_lock(conn, EVERY, 0, shared=True):
        raise HostError(
            "SHARD_IDS",
            "a quizbot process serving every shard is already running on this database",
            f"stop it, or give it SHARD_IDS of its own too ({SCALING_OUT})",
        )
    dialect.try_pair_lock(conn, COUNT, shards.count, shared=True)  # shared: never refused
    others = sorted(dialect.pair_locks_held_by_others(conn, COUNT) - {shards.count})
    if others:
        theirs = " and ".join(str(count) for count in others)
        raise HostError(
            "SHARD_COUNT",
            f"this process has SHARD_COUNT={shards.count}, but another quizbot process on "
            f"this database runs with SHARD_COUNT={theirs}",
            "give every process the same SHARD_COUNT; to change it, stop them all first "
            f"({SCALING_OUT})",
        )
    if len(shards.ids) > MAX_SHARD_LOCKS:
        log.info("running %d shards: not checked shard by shard", len(shards.ids))
        return
    for shard in shards.ids:
        if not dialect.try_pair_lock(conn, SHARD, shard):
            raise HostError(
                "SHARD_IDS",
                f"shard {shard} is already running in another quizbot process on this database",
                f"give each process different SHARD_IDS, each shard in one process ({SCALING_OUT})",
            )


def _taken_error(conn: Connection, shards: ShardPlan) -> HostError:
    """Why a process serving every shard cannot start: someone else runs here."""
    counts = sorted(dialect.pair_locks_held_by_others(conn, COUNT))
    setting = "SHARD_IDS" if shards.sharded else "SHARD_COUNT"
    if counts:
        theirs = " and ".join(str(count) for count in counts)
        problem = (
            f"quizbot processes with SHARD_IDS of SHARD_COUNT={theirs} are already running "
            "on this database, and this one would serve every shard"
        )
    else:
        problem = "another quizbot process is already running on this database"
    return HostError(
        setting,
        problem,
        f"stop the other process, or give each process its own SHARD_IDS of one "
        f"SHARD_COUNT ({SCALING_OUT})",
    )
