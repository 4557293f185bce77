"""Engine creation: SQLite in WAL mode with real transactions.

Python's sqlite3 module (before 3.12's `autocommit`) opens transactions lazily and only for
DML, which breaks SAVEPOINT and repeatable reads. So the driver's own transaction handling is
switched off (`isolation_level = None`) and BEGIN is emitted from SQLAlchemy's `begin` event,
as the SQLAlchemy SQLite docs recommend. Writers need `BEGIN IMMEDIATE`: it takes the write
lock up front (waiting up to `busy_timeout`), whereas a deferred transaction that reads and
then writes fails at once with SQLITE_BUSY when another writer got in between.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import StaticPool

DEFAULT_DATABASE_URL = "sqlite:///data/quizbot.db"
"""The one default: an SQLite file under ./data, created on first start."""

SUPPORTED_DATABASES = ("sqlite", "sqlite+pysqlite", "postgresql+psycopg")
"""Drivers the store accepts (postgresql+psycopg ahead of its support landing, so the
setting does not change when it does)."""

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


def _pragmas(synchronous: str, busy_timeout_ms: int) -> tuple[str, ...]:
    if synchronous not in SYNCHRONOUS_MODES:
        raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}")
    return (
        f"PRAGMA busy_timeout = {int(busy_timeout_ms)}",
        "PRAGMA journal_mode = WAL",
        f"PRAGMA synchronous = {synchronous}",
        "PRAGMA foreign_keys = ON",
    )


def check_url(url: str) -> str:
    """`url` if the store can use it; ValueError with the reason otherwise."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ValueError("not a database URL") from None
    if parsed.drivername not in SUPPORTED_DATABASES:
        raise ValueError(f"unsupported database {parsed.drivername!r}")
    return url


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
    `busy_timeout_ms` for a lock (tests shorten it).

    `sqlite://` (in memory) shares one connection across threads (StaticPool), so it suits
    tests; `Store` serialises its units of work on such an engine.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(url)
    else:
        pragmas = _pragmas(synchronous, busy_timeout_ms)
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
        if is_memory(parsed.database):
            kwargs["poolclass"] = StaticPool
        else:
            assert parsed.database is not None
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **kwargs)
        _install_sqlite_hooks(engine, pragmas)
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
    """The same engine (same pool) whose transactions begin with `BEGIN IMMEDIATE`."""
    return engine.execution_options(**{BEGIN_OPTION: "IMMEDIATE"})


def is_memory(database: str | None) -> bool:
    return not database or database == ":memory:" or "mode=memory" in database


def _install_sqlite_hooks(engine: Engine, pragmas: tuple[str, ...]) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in pragmas:
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if mode == "IMMEDIATE" else "BEGIN")
