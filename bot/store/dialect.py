"""Everything engine-specific in the store: upserts, `greatest`, the timestamp column type, an
SQLite connection's PRAGMAs and BEGIN, a PostgreSQL session's settings and advisory locks.

`lock` keeps writers that read before they write apart: SQLite has one writer at a time
(`BEGIN IMMEDIATE`), so nothing to do; PostgreSQL runs writers side by side at READ COMMITTED,
so such a unit first takes a transaction-scoped advisory lock. The constraints stay the last
word either way; the locks spare members a refusal when two of their clicks meet.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

from sqlalchemy import (
    ARRAY,
    BigInteger,
    ColumnElement,
    Connection,
    DateTime,
    Dialect,
    Engine,
    Integer,
    Table,
    TypeDecorator,
    bindparam,
    event,
    func,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

T = TypeVar("T")


class UtcDateTime(TypeDecorator[datetime]):
    """A timestamp stored naive UTC (the schema 0.1.0 made) and handed in and out aware: the
    one place the two forms meet. Not applied in `text()` or a bare `func`."""

    impl = DateTime(timezone=False)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else value.replace(tzinfo=UTC)


UTC_TIMESTAMP = UtcDateTime()
"""Every timestamp column's type. Spelled out also because recent SQLModel maps `datetime` to
an aware type that rejects naive values, while older versions store naive."""

_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def _insert(conn: Connection, table: Table) -> Any:
    try:
        return _INSERTS[conn.dialect.name](table)
    except KeyError:
        raise NotImplementedError(f"no upsert for the {conn.dialect.name} engine") from None


def insert_ignoring_conflicts(
    conn: Connection, table: Table, key: Iterable[str] | None = None
) -> Insert:
    """INSERT that skips rows whose key (`key`, else any unique key) already exists (an
    idempotent record, a claim)."""
    return _insert(conn, table).on_conflict_do_nothing(
        index_elements=None if key is None else list(key)
    )


def upsert(
    conn: Connection,
    table: Table,
    key: Iterable[str],
    update: Callable[[Any], Mapping[str, Any]] | None = None,
    *,
    where: Callable[[Any], ColumnElement[bool]] | None = None,
) -> Insert:
    """INSERT, or on a conflict on `key` UPDATE. `update` gets the `excluded` pseudo-row (the
    row that was refused) and returns the new column values; None copies every non-key
    column from it. `where`, also given `excluded`, limits which conflicting rows change."""
    stmt = _insert(conn, table)
    keys = list(key)
    new = stmt.excluded
    values = (
        {c.name: new[c.name] for c in table.columns if c.name not in keys}
        if update is None
        else update(new)
    )
    return stmt.on_conflict_do_update(
        index_elements=keys, set_=values, where=None if where is None else where(new)
    )


def greatest(conn: Connection, a: Any, b: Any) -> ColumnElement[Any]:
    """The greater of two values, NULL only when both are NULL."""
    bigger = func.max(a, b) if conn.dialect.name == "sqlite" else func.greatest(a, b)
    # SQLite's max() is NULL when either argument is; PostgreSQL's greatest() ignores NULLs.
    return func.coalesce(bigger, a, b)


_LOCK_ONE = text("SELECT pg_advisory_xact_lock(:key)").bindparams(
    bindparam("key", type_=BigInteger)
)
_LOCK_SHARED_ONE = text("SELECT pg_advisory_xact_lock_shared(:key)").bindparams(
    bindparam("key", type_=BigInteger)
)
# unnest keeps the array's order, so the locks are taken in it.
_LOCK_MANY = text("SELECT pg_advisory_xact_lock(k) FROM unnest(:keys) AS t(k)").bindparams(
    bindparam("keys", type_=ARRAY(BigInteger))
)
_LOCK_SHARED_MANY = text(
    "SELECT pg_advisory_xact_lock_shared(k) FROM unnest(:keys) AS t(k)"
).bindparams(bindparam("keys", type_=ARRAY(BigInteger)))


def lock_key(scope: str, key: object) -> int:
    """The advisory lock's 64-bit number for `key` in `scope` (a hash: two keys sharing one
    only wait for each other needlessly)."""
    digest = hashlib.blake2b(f"quizbot:{scope}:{key!r}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def lock(conn: Connection, scope: str, keys: Iterable[object], *, shared: bool = False) -> None:
    """Hold `keys` of `scope` (e.g. "answer", [(post_id, user_id)]) until this unit of work
    ends: another unit locking one of them waits for it to commit or roll back (a `shared`
    lock waits only for, and only holds off, an exclusive one). Taken in a fixed order, so two
    units locking several keys cannot deadlock. A no-op on SQLite (see the module docstring).
    Call it before reading what the keys guard."""
    if conn.dialect.name == "sqlite":
        return
    numbers = sorted({lock_key(scope, key) for key in keys})
    if not numbers:
        return
    if len(numbers) == 1:
        conn.execute(_LOCK_SHARED_ONE if shared else _LOCK_ONE, {"key": numbers[0]})
    else:
        conn.execute(_LOCK_SHARED_MANY if shared else _LOCK_MANY, {"keys": numbers})


# -- PostgreSQL: locks held for as long as a process runs ------------------------------------

_TRY_SESSION_LOCK = text("SELECT pg_try_advisory_lock(:key)").bindparams(
    bindparam("key", type_=BigInteger)
)
_SESSION_UNLOCK = text("SELECT pg_advisory_unlock(:key)").bindparams(
    bindparam("key", type_=BigInteger)
)
_TRY_PAIR = text("SELECT pg_try_advisory_lock(CAST(:ns AS integer), CAST(:id AS integer))")
_TRY_PAIR_SHARED = text(
    "SELECT pg_try_advisory_lock_shared(CAST(:ns AS integer), CAST(:id AS integer))"
)
# Who else holds locks of a namespace in this database: pg_locks shows every session's.
_PAIRS_HELD_BY_OTHERS = text(
    "SELECT DISTINCT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted"
    " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND classid::bigint = :ns AND objsubid = 2 AND pid <> pg_backend_pid()"
)


def has_session_locks(engine: Engine) -> bool:
    """Whether processes sharing the database hold things through it (PostgreSQL's session
    advisory locks, on a `session_lock_connection`). SQLite runs one process per database
    file (bot/store/process_claim.py): holding something within the process is enough."""
    return engine.dialect.name == "postgresql"


def try_session_lock(conn: Connection, key: int) -> bool:
    """Take the session lock `key` (a `lock_key`) on a `session_lock_connection`, without
    waiting; False if another session holds it. Held until `session_unlock` or the
    connection ends."""
    return bool(conn.execute(_TRY_SESSION_LOCK, {"key": key}).scalar_one())


def session_unlock(conn: Connection, key: int) -> None:
    """Let go of the session lock `key` taken by `try_session_lock` on `conn`."""
    conn.execute(_SESSION_UNLOCK, {"key": key})


def try_pair_lock(conn: Connection, namespace: int, key: int, *, shared: bool = False) -> bool:
    """Take the session lock (`namespace`, `key`), two 32-bit integers: a key space apart from
    `lock_key`'s 64-bit one, whose holders `pair_locks_held_by_others` can list. Without
    waiting; False if another session holds it (exclusively, for a `shared` one)."""
    statement = _TRY_PAIR_SHARED if shared else _TRY_PAIR
    return bool(conn.execute(statement, {"ns": namespace, "id": key}).scalar_one())


def pair_locks_held_by_others(conn: Connection, namespace: int) -> set[int]:
    """The keys of `namespace` that other sessions on this database hold (`try_pair_lock`)."""
    return set(conn.execute(_PAIRS_HELD_BY_OTHERS, {"ns": namespace}).scalars())


_UNLOCK_ALL = "SELECT pg_advisory_unlock_all()"
_KEEPALIVES = (
    "SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3"
)


def session_lock_connection(engine: Engine) -> Connection:
    """A PostgreSQL connection of its own for session advisory locks (they outlive transactions).
    Autocommit, so it never holds back vacuum; with TCP keepalives, so the server frees the
    locks of a vanished host within a minute, not the OS's two hours."""
    conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    try:
        conn.exec_driver_sql(_KEEPALIVES)
    except BaseException:
        drop_connection(conn)
        raise
    return conn


def drop_connection(conn: Connection) -> None:
    """Close a session-lock connection for good, not into the pool, letting its locks go first
    (the server frees a closed session's a moment later: a process started right after would
    still find them held). Never raises."""
    try:
        if not conn.invalidated:
            conn.exec_driver_sql(_UNLOCK_ALL)
    except DBAPIError:
        pass
    try:
        conn.invalidate()
        conn.close()
    except DBAPIError:
        pass


def postgres_session_settings(
    *, lock_timeout_ms: int, statement_timeout_ms: int, idle_in_transaction_timeout_ms: int
) -> str:
    """The `options` a PostgreSQL connection is opened with: its session's timeouts."""
    return " ".join(
        (
            f"-c lock_timeout={int(lock_timeout_ms)}",
            f"-c statement_timeout={int(statement_timeout_ms)}",
            f"-c idle_in_transaction_session_timeout={int(idle_in_transaction_timeout_ms)}",
        )
    )


def snapshot_reads(engine: Engine) -> Engine:
    """`engine` for read units of work that see one consistent snapshot for the whole
    transaction: SQLite's deferred BEGIN gives one; PostgreSQL needs REPEATABLE READ, which
    never fails a transaction that only reads."""
    if engine.dialect.name == "postgresql":
        return engine.execution_options(isolation_level="REPEATABLE READ")
    return engine


def commit_reply_can_be_lost(engine: Engine) -> bool:
    """PostgreSQL: a COMMIT the server carried out can lose its reply (the server crashed, the
    network broke). SQLite commits in this process: a failed commit did not commit."""
    return engine.dialect.name == "postgresql"


def lift_statement_timeout(conn: Connection) -> None:
    """No statement timeout for the rest of this transaction (a migration may take long)."""
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")


def advance_id_sequence(conn: Connection, table: Table) -> None:
    """After rows were inserted with explicit ids (a copy), make the next generated id follow
    the largest one. SQLite derives it from the rows itself; PostgreSQL's sequence must be
    moved, or the next post would collide with a copied one."""
    if conn.dialect.name != "postgresql":
        return
    key = list(table.primary_key.columns)
    if len(key) != 1 or key[0].autoincrement is False or not isinstance(key[0].type, Integer):
        return
    column = key[0]
    conn.execute(
        select(
            func.setval(
                func.pg_get_serial_sequence(table.name, column.name),
                func.coalesce(func.max(column), 1),
                func.max(column).is_not(None),
            )
        ).select_from(table)
    )


# -- SQLite: a connection's settings, its BEGIN, files read and copied outside the engine ---

_WAL = "PRAGMA journal_mode = WAL"
_WAL_RETRY_S = 0.01


def set_up_sqlite_connection(
    connection: sqlite3.Connection, *, synchronous: str, busy_timeout_ms: int
) -> None:
    """Make a new driver connection the store's: transactions begun by SQLAlchemy's `begin`
    event, not by the driver, which opens them lazily and only for DML (breaking SAVEPOINT
    and repeatable reads); the busy timeout; WAL; `synchronous`; foreign keys."""
    connection.isolation_level = None
    cursor = connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        _switch_to_wal(cursor, busy_timeout_ms)
        cursor.execute(f"PRAGMA synchronous = {synchronous}")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor, busy_timeout_ms: int) -> None:
    """Switching a new file to WAL needs its exclusive lock, and SQLite answers SQLITE_BUSY
    at once, without the busy handler, to a connection that holds the shared lock while
    another waits for the exclusive one (it would deadlock). Shards started together on a
    new database all do that, so the switch is retried for as long as the busy timeout."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            cursor.execute(_WAL).fetchone()
            return
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(_WAL_RETRY_S)


BEGIN_OPTION = "quizbot_sqlite_begin"
"""Execution option naming the BEGIN flavour: "IMMEDIATE" for write units of work."""


def install_sqlite_hooks(engine: Engine, *, synchronous: str, busy_timeout_ms: int) -> None:
    """Each new connection set up (`set_up_sqlite_connection`), and each transaction begun by
    SQLAlchemy, not the driver: BEGIN IMMEDIATE where `BEGIN_OPTION` says so, taking the write
    lock up front, since a deferred transaction that reads then writes fails at once with
    SQLITE_BUSY when another writer got in between."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        set_up_sqlite_connection(
            dbapi_connection, synchronous=synchronous, busy_timeout_ms=busy_timeout_ms
        )

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(BEGIN_OPTION) == "IMMEDIATE"
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def sqlite_wal_mode(connection: sqlite3.Connection) -> bool:
    """Whether the driver connection's file is in WAL mode (a read-only one keeps its own)."""
    mode = connection.execute("PRAGMA journal_mode").fetchone()
    return mode is not None and str(mode[0]).lower() == "wal"


def leave_wal_mode(connection: sqlite3.Connection) -> None:
    """Make an SQLite file one self-contained file again (a copy inherits WAL mode): reading
    it with any tool then leaves no -wal/-shm files beside it."""
    connection.execute("PRAGMA journal_mode = DELETE")


def read_sqlite_schema(connection: sqlite3.Connection) -> None:
    """Read the file's schema: where a file that is no database shows (sqlite3.Error)."""
    connection.execute("SELECT count(*) FROM sqlite_master").fetchone()


def probe_sqlite_write(connection: sqlite3.Connection, table: str) -> None:
    """Write to the file and roll it back (sqlite3.Error if it cannot be written). Only a
    real write (creating `table`) reaches the journal, or the WAL's folder, and the file."""
    connection.isolation_level = None
    read_sqlite_schema(connection)
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(f"CREATE TABLE {table} (x)")
    finally:
        connection.execute("ROLLBACK")


_BUILT: dict[tuple[str, str], Any] = {}


def built_once(conn: Connection, name: str, build: Callable[[Connection], T]) -> T:
    """The statement(s) `build` makes for this connection's engine, built on first use and kept
    under `name`: building an upsert (its `excluded` row) costs far more than running it, and
    the write units run these on every batch."""
    key = (conn.dialect.name, name)
    try:
        return cast(T, _BUILT[key])
    except KeyError:
        built = _BUILT[key] = build(conn)
        return built
