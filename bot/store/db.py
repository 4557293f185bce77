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

_PRAGMAS = (
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA journal_mode = WAL",
    # Safe in WAL mode (no corruption on power loss, at worst the last commits roll back),
    # and it removes the fsync from every commit.
    "PRAGMA synchronous = NORMAL",
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


def make_engine(url: str, *, create: bool = True) -> Engine:
    """The application's one engine; creates the data directory. With `create`, brings the
    schema to the current revision (`migrate.upgrade_database`: creates a new database's
    tables, upgrades an older one after backing its file up, refuses one newer than the code
    with `SchemaTooNewError`).

    `sqlite://` (in memory) shares one connection across threads (StaticPool), so it suits
    tests; `Store` serialises its units of work on such an engine.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(url)
    else:
        kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
        if is_memory(parsed.database):
            kwargs["poolclass"] = StaticPool
        else:
            assert parsed.database is not None
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **kwargs)
        _install_sqlite_hooks(engine)
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


def _install_sqlite_hooks(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in _PRAGMAS:
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if mode == "IMMEDIATE" else "BEGIN")
