"""Engine creation: SQLite in WAL mode with real transactions, or a PostgreSQL pool.

Python's sqlite3 module (before 3.12's `autocommit`) opens transactions lazily and only for
DML, which breaks SAVEPOINT and repeatable reads. So the driver's own transaction handling is
switched off (`isolation_level = None`) and BEGIN is emitted from SQLAlchemy's `begin` event,
as the SQLAlchemy SQLite docs recommend (the statements: `dialect.set_up_sqlite_connection`,
`dialect.begin_sqlite`). Writers need `BEGIN IMMEDIATE`: it takes the write
lock up front (waiting up to `busy_timeout`), whereas a deferred transaction that reads and
then writes fails at once with SQLITE_BUSY when another writer got in between.

PostgreSQL (`postgresql+psycopg://…`, the `postgres` extra) runs at READ COMMITTED with a
pool sized for the service (POOL_SIZE); its connections carry the timeouts (a lock waited for
longer than the busy timeout, a statement running away) and `application_name=quizbot`, and
are pinged before use, so a server that went away and came back is reconnected to by itself.
Reads take a REPEATABLE READ snapshot (`reader`), as SQLite's deferred transaction gives one.
Writers there are serialised where they must be by `dialect.lock`, not by one write lock.

An SQLite file can be deleted or renamed over while the bot runs; its open connections go on
writing into the unlinked file, which a restart loses. `FileWatch` notices (the file's device
and inode: a stat before each write and two after its commit) so that nothing more is
acknowledged (`Store.write`).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import warnings
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from bot.files import Identity, identity
from bot.store import dialect
from bot.store.faults import FileGoneError

log = logging.getLogger(__name__)

DEFAULT_DATABASE_URL = "sqlite:///data/quizbot.db"
"""The one default: an SQLite file under ./data, created on first start."""

SUPPORTED_DATABASES = ("sqlite", "sqlite+pysqlite", "postgresql+psycopg")
"""Drivers the store accepts."""

BEGIN_OPTION = "quizbot_sqlite_begin"
"""Execution option naming the BEGIN flavour: "IMMEDIATE" for write units of work."""

BUSY_TIMEOUT_MS = 5000
"""How long a unit of work waits for a lock before the database counts as busy."""

DEFAULT_SYNCHRONOUS = "FULL"
SYNCHRONOUS_MODES = (DEFAULT_SYNCHRONOUS, "NORMAL")
"""`PRAGMA synchronous` values the store runs with (the SQLITE_SYNCHRONOUS setting).

FULL (the default): every commit is on disk (fsync of the WAL) before it returns, so an
acknowledged answer survives a power loss. NORMAL in WAL mode fsyncs only at checkpoints: the
last commits may roll back on power loss or an OS crash (never a corruption, and not on a crash
of the bot alone). BENCHMARKS.md, "Durability", measures the cost with the group commit."""


POOL_SIZE = 7
"""PostgreSQL connections kept open: the service's reader threads (4) and its writer thread,
one for the scheduler or a command, and the one that holds the process's shards for as long as
it runs (bot/store/process_claim.py)."""
MAX_OVERFLOW = 4
"""Connections opened beyond POOL_SIZE in a burst (closed again when returned)."""
POOL_TIMEOUT_S = 10
"""How long a unit of work waits for a free connection before the database counts as
unavailable."""
CONNECT_TIMEOUT_S = 5
"""How long connecting to the server may take."""
STATEMENT_TIMEOUT_MS = 60_000
"""A statement running longer is cancelled (the unit of work is then refused as busy);
migrations lift it."""
IDLE_IN_TRANSACTION_TIMEOUT_MS = 300_000
"""A session left inside a transaction this long is ended by the server (its locks freed)."""


PYSQLITE_OPTIONS = frozenset(
    {"timeout", "isolation_level", "detect_types", "check_same_thread", "cached_statements", "uri"}
)
"""URL options SQLAlchemy passes to `sqlite3.connect` itself."""
SQLITE_URI_OPTIONS: dict[str, tuple[str, ...] | None] = {
    "mode": ("ro", "rw", "rwc", "memory"),
    "cache": ("shared", "private"),
    "immutable": None,
    "nolock": None,
    "psow": None,
    "vfs": None,
    "modeof": None,
}
"""SQLite's own URI options (https://sqlite.org/uri.html) and, where it checks them, their
values. SQLAlchemy hands them to SQLite only in the URI form (`file:…?mode=ro&uri=true`):
without `uri=true` it drops them with a warning (`?mode=ro` would open the file writable), and
with it but no `file:` SQLite takes the whole `b.db?mode=ro` for a file name. `connect_url`
writes such a URL in the form that honours its options."""


def _check_synchronous(synchronous: str) -> None:
    if synchronous not in SYNCHRONOUS_MODES:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}")


def check_url(url: str) -> str:
    """`url` if the store can use it; ValueError with the reason otherwise."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError("not a database URL") from None
    except ValueError:
        # SQLAlchemy's int() of the port. Never echoed: with an @ in the password, the "port"
        # it read is the rest of the password (user:p@ss:word@host).
        raise ValueError(f"not a database URL: its port is not a number{_ENCODE_HINT}") from None
    if parsed.drivername not in SUPPORTED_DATABASES:
        raise ValueError(f"unsupported database {parsed.drivername!r}")
    if parsed.host and "@" in parsed.host:
        # The host then begins with the end of the password, and every later message showing
        # the URL (hide_password hides only the part before the first @) would print it.
        raise ValueError(f"the URL's host holds an @{_ENCODE_HINT}")
    if parsed.get_backend_name() == "sqlite":
        _check_sqlite_url(parsed)
    else:
        try:
            parsed.get_dialect().import_dbapi()
        except ImportError:
            raise ValueError(
                "the PostgreSQL driver is not installed: pip install 'quizbot[postgres]'"
            ) from None
    return url


def _check_sqlite_url(parsed: URL) -> None:
    """What SQLAlchemy would refuse only when the engine is made (a traceback then), and
    options it or SQLite would ignore without a word."""
    if parsed.host:  # sqlite://data/quizbot.db: `data` is read as a host
        raise ValueError(
            "an SQLite URL has three slashes before a relative path (sqlite:///data/quizbot.db) "
            "and four before an absolute one (sqlite:////srv/quizbot.db)"
        )
    for name, value in parsed.query.items():
        if not isinstance(value, str):
            raise ValueError(f"the URL gives its option {name!r} more than once")
        if name in PYSQLITE_OPTIONS:
            continue
        if name not in SQLITE_URI_OPTIONS:
            known = ", ".join(sorted(PYSQLITE_OPTIONS | SQLITE_URI_OPTIONS.keys()))
            raise ValueError(f"the URL's option {name!r} is not an SQLite one ({known})")
        allowed = SQLITE_URI_OPTIONS[name]
        if allowed is not None and value not in allowed:
            raise ValueError(
                f"the URL's option {name}={value!r} is not one SQLite takes "
                f"({', '.join(f'{name}={v}' for v in allowed)})"
            )
    try:
        with warnings.catch_warnings():  # an unknown option: the engine warns of it, once
            warnings.simplefilter("ignore")
            connect = connect_url(parsed)
            connect.get_dialect()().create_connect_args(connect)
    except (ArgumentError, ValueError, TypeError) as exc:  # e.g. ?timeout=abc
        reason = (str(exc).strip().splitlines() or [""])[0]
        raise ValueError(f"the URL's options are not SQLite's ({reason})") from None


_ENCODE_HINT = (
    " (an @ in the password or user name must be written %40, a : %3A, a / %2F, "
    "e.g. user:p%40ss@host)"
)


def make_engine(
    url: str,
    *,
    create: bool = True,
    synchronous: str = DEFAULT_SYNCHRONOUS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Engine:
    """The application's one engine; creates the data directory. With `create`, brings the
    schema to the current revision (`migrate.upgrade_database`: creates a new database's
    tables, upgrades an older one after backing its file up, refuses one newer than the code
    with `SchemaTooNewError`).

    SQLite runs with `PRAGMA synchronous = <synchronous>` (see SYNCHRONOUS_MODES) and waits
    `busy_timeout_ms` for a lock (tests shorten it); so does PostgreSQL (its `lock_timeout`),
    whose connections are pooled (see the module docstring).

    `sqlite://` (in memory) shares one connection across threads (StaticPool), so it suits
    tests; `Store` serialises its units of work on such an engine.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        engine = _postgres_engine(url, busy_timeout_ms)
    elif parsed.get_backend_name() != "sqlite":
        engine = create_engine(url)
    else:
        _check_synchronous(synchronous)
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
        file = sqlite_file(parsed)
        if file is None:
            kwargs["poolclass"] = StaticPool
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(connect_url(parsed), **kwargs)
        watch = None
        if file is not None:
            watch = _WATCHES[engine] = FileWatch(file)
        _install_sqlite_hooks(engine, synchronous, busy_timeout_ms, watch)
    if create:
        # Imported here: the migrations module builds on this one (`writer`, `is_memory`).
        from bot.store.migrate import upgrade_database

        try:
            upgrade_database(engine)
        except BaseException:
            engine.dispose()
            raise
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) whose transactions begin with `BEGIN IMMEDIATE` on SQLite
    (on PostgreSQL: READ COMMITTED, the default)."""
    return engine.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})


def reader(engine: Engine) -> Engine:
    """The same engine (same pool) for read units of work: one consistent snapshot for the
    whole transaction (SQLite's deferred BEGIN gives one; PostgreSQL needs REPEATABLE READ,
    which never fails a transaction that only reads)."""
    return dialect.snapshot_reads(engine)


def is_postgres(url: str | URL) -> bool:
    return make_url(url).get_backend_name() == "postgresql"


def _postgres_engine(url: str, lock_timeout_ms: int) -> Engine:
    options = dialect.postgres_session_settings(
        lock_timeout_ms=lock_timeout_ms,
        statement_timeout_ms=STATEMENT_TIMEOUT_MS,
        idle_in_transaction_timeout_ms=IDLE_IN_TRANSACTION_TIMEOUT_MS,
    )
    return create_engine(
        url,
        pool_size=POOL_SIZE,
        max_overflow=MAX_OVERFLOW,
        pool_timeout=POOL_TIMEOUT_S,
        pool_pre_ping=True,
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_S,
            "application_name": "quizbot",
            "options": options,
        },
    )


def is_memory(url: str | URL) -> bool:
    """An SQLite URL whose database lives in memory (`sqlite://`, `sqlite:///:memory:`,
    `sqlite:///file:x?mode=memory&uri=true`): gone when the process stops."""
    parsed = make_url(url)
    database = parsed.database
    return (
        not database
        or database == ":memory:"
        or database.startswith("file::memory:")
        or "mode=memory" in database
        or parsed.query.get("mode") == "memory"
    )


def connect_url(url: str | URL) -> URL:
    """The URL to open an SQLite database with: one with SQLite's URI options (`?mode=ro`,
    see SQLITE_URI_OPTIONS) or `uri=true` is written in the URI form, `file:<path>?…&uri=true`,
    so that SQLite honours its options and the file is the one the path names. Other URLs
    are returned as they are."""
    parsed = make_url(url)
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return parsed
    options = parsed.query.keys() - PYSQLITE_OPTIONS
    if not options and "uri" not in parsed.query and not database.startswith("file:"):
        return parsed
    if not database.startswith("file:"):
        database = "file:" + quote(database, safe="/")
    return parsed.set(database=database).update_query_dict({"uri": "true"})


def database_file(database: str) -> Path:
    """The file an SQLite URL's database names. `sqlite:///file:data/q.db?mode=ro&uri=true`
    (SQLite's URI form) names it inside a URI: taken as a plain path, it would be a folder
    called `file:` in the working directory."""
    if database.startswith("file:"):
        return Path(unquote(urlsplit(database).path))
    return Path(database)


def sqlite_file(url: str | URL) -> Path | None:
    """The database file of an SQLite URL; None for other databases and in-memory ones."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or is_memory(parsed):
        return None
    assert parsed.database is not None
    return database_file(parsed.database)  # `file:q.db?uri=true` names q.db


class FileWatch:
    """Whether the SQLite file an engine opened is still the one at its path.

    Deleted (with its -wal and -shm) or renamed over, the file the open connections write to
    is no longer the one a restart opens: what they commit then is lost at the next start.
    The file opened first is remembered by device and inode; `check` compares the path's
    with it, one `os.stat`, before and after each write, and raises FileGoneError when they
    differ, so the write is refused instead of acknowledged. After a commit the -wal must be
    there too (a WAL file exists while any connection is open): deleted alone, it takes the
    commits not yet checkpointed with it. New connections are refused too (`refuse_connect`):
    SQLite would create a new, empty file at the path. The first refusal of an outage is
    reported (FileGoneError.first, logged by `faults.translated`); a file moved back (the
    same inode) is written to again.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.wal_path = path.with_name(f"{path.name}-wal")
        self._opened: Identity | None = None
        self._wal = False
        self._gone = False
        self._lock = threading.Lock()

    def connected(self, wal: bool) -> None:
        """A connection opened the file: the first one fixes which file it is."""
        with self._lock:
            if self._opened is None:
                self._opened = identity(self.path)
            self._wal = self._wal or wal

    def refuse_connect(self) -> None:
        """Before a new connection: FileGoneError if the path no longer names the file."""
        if self._opened is not None and identity(self.path) != self._opened:
            raise self._refusal()

    def check(self, *, committed: bool = False) -> None:
        """FileGoneError if the path no longer names the file opened (and, `committed`, or
        while it is gone, if its -wal is missing); else nothing. Before a write the -wal is
        looked at only once it went: refusals then come before the write, not after it."""
        opened = self._opened
        if opened is None:
            return
        if identity(self.path) != opened or (
            (committed or self._gone) and self._wal and identity(self.wal_path) is None
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


_WATCHES: weakref.WeakKeyDictionary[Engine, FileWatch] = weakref.WeakKeyDictionary()


def file_watch(engine: Engine) -> FileWatch | None:
    """The watch over the SQLite file `make_engine` opened `engine` on; None for PostgreSQL,
    an in-memory database, or an engine made elsewhere."""
    return _WATCHES.get(engine)


def _install_sqlite_hooks(
    engine: Engine, synchronous: str, busy_timeout_ms: int, watch: FileWatch | None
) -> None:
    if watch is not None:

        @event.listens_for(engine, "do_connect")
        def _on_do_connect(*_args: object) -> None:
            watch.refuse_connect()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        wal = dialect.set_up_sqlite_connection(
            dbapi_connection, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms
        )
        if watch is not None:
            watch.connected(wal)

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION)
        dialect.begin_sqlite(connection, immediate=mode == "IMMEDIATE")
