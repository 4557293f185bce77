"""Engine creation: SQLite in WAL mode with real transactions (the hooks: `dialect.
install_sqlite_hooks`), or a PostgreSQL pool at READ COMMITTED sized for the service, its
connections carrying the timeouts and pinged before use (a server that came back is reconnected
to by itself). Reads take a snapshot (`reader`); writers on PostgreSQL are kept apart where they
must be by `dialect.lock`.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

from bot.database_defaults import DEFAULT_DATABASE_URL as DEFAULT_DATABASE_URL
from bot.database_defaults import DEFAULT_SYNCHRONOUS as DEFAULT_SYNCHRONOUS
from bot.database_defaults import SYNCHRONOUS_MODES as SYNCHRONOUS_MODES
from bot.store import dialect

log = logging.getLogger(__name__)

SUPPORTED_DATABASES = ("sqlite", "sqlite+pysqlite", "postgresql+psycopg")
"""Drivers the store accepts."""

BUSY_TIMEOUT_MS = 5000
"""How long a unit of work waits for a lock before the database counts as busy."""


POOL_SIZE = 7
"""PostgreSQL connections kept open: 4 readers, the writer, one for the scheduler or a command,
and the one holding the process's shards (bot/store/process_claim.py)."""
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
"""SQLite's own URI options (https://sqlite.org/uri.html) and the values it checks. SQLAlchemy
hands them over only in the URI form, which `connect_url` writes (else `?mode=ro` would be
dropped and the file opened writable)."""


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
                "the PostgreSQL driver is not installed: "
                "pip install -e '.[postgres]' (in the checkout)"
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


def build_engine(
    url: str,
    *,
    synchronous: str = DEFAULT_SYNCHRONOUS,
    busy_timeout_ms: int = BUSY_TIMEOUT_MS,
) -> Engine:
    """An engine for `url`, the schema untouched (`migrate.make_engine` also upgrades it);
    creates the data directory. Waits `busy_timeout_ms` for a lock (PostgreSQL:
    `lock_timeout`). `sqlite://` shares one connection across threads (StaticPool), so `Store`
    serialises its units of work on it."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        return _postgres_engine(url, busy_timeout_ms)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url)
    _check_synchronous(synchronous)
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    file = sqlite_file(parsed)
    if file is None:
        kwargs["poolclass"] = StaticPool
    else:
        file.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(connect_url(parsed), **kwargs)
    dialect.install_sqlite_hooks(engine, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms)
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine (same pool) whose transactions begin with `BEGIN IMMEDIATE` on SQLite
    (on PostgreSQL: READ COMMITTED, the default)."""
    return engine.execution_options(**{dialect.BEGIN_OPTION: "IMMEDIATE"})


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
