"""The answer path's statements, compiled once and run on SQLite's own cursor.

Why: on the SQLite writer, SQLAlchemy's work around a statement (its cache key, an execution
context, a result object) costs several times what SQLite spends running a small indexed one.
On the benchmark machine, 18–43 µs of CPU against 4–11 µs for the driver alone, and 7–15 µs
through this module (`python -m benchmarks.prepared`). A `/review` click runs about eight,
all in the one writer thread that every click waits for. The statements stay Core
expressions, written and read like the rest of the store's; this module only runs them, with
the same SQL text and the same type conversions (each type's own bind and result processors
for the dialect), and turns a driver error into SQLAlchemy's, as `Connection.execute` does.

An expanding IN is compiled once for each length of its list that comes up (SQLAlchemy's own
expansion). A statement this cannot run as compiled (defaults computed in Python, RETURNING,
an IN list longer than `MAX_EXPANDED`) and every engine but SQLite go through
`Connection.execute`: on PostgreSQL, the round trip to the server dwarfs what this saves. So
does a connection outside a transaction, which SQLAlchemy must begin first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import Connection, CursorResult
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.compiler import SQLCompiler

Processor = Callable[[Any], Any] | None
Params = Mapping[str, Any]


class _Row(tuple[Any, ...]):
    """A row: a tuple with its columns by name (`row.id`, `row._mapping["id"]`), like the
    rows of `Connection.execute` as the store reads them."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    @property
    def _mapping(self) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))


@dataclass(frozen=True, slots=True)
class _Plan:
    statement: Executable
    """Held so its id, the plan's key, is not reused while the plan lives."""
    sql: str
    sources: tuple[tuple[str, int | None], ...]
    """Where each `?` takes its value from: the parameter of that name, or (an expanding IN's
    list) the item at that index of it."""
    constants: Mapping[str, Any]
    """Values the statement carries itself (a literal, a LIMIT)."""
    binds: tuple[Processor, ...]
    row: type[tuple[Any, ...]] | None
    results: tuple[tuple[int, Callable[[Any], Any]], ...]
    """(column index, processor) of each result column the driver's value is not the one
    SQLAlchemy would give (a timestamp, a boolean)."""

    def arguments(self, params: Params) -> tuple[Any, ...]:
        values = []
        for (name, index), bind in zip(self.sources, self.binds, strict=True):
            value = params[name] if name in params else self.constants[name]
            if index is not None:
                value = value[index]
            values.append(value if bind is None or value is None else bind(value))
        return tuple(values)

    def make_row(self, raw: Sequence[Any]) -> tuple[Any, ...]:
        assert self.row is not None
        if not self.results:
            return self.row(raw)
        values = list(raw)
        for index, process in self.results:
            value = values[index]
            if value is not None:
                values[index] = process(value)
        return self.row(values)


PlanKey = tuple[int, tuple[str, ...], tuple[int, ...]]
"""(the statement's id, an INSERT's column keys, the length of each list parameter)."""

_PLANS: dict[PlanKey, _Plan | None] = {}
MAX_PLANS = 512
"""Plans are kept for the store's statements, built once each at import or per engine (a few
dozen), and for each length of an expanding IN's list that comes up (a batch's posts and
members). A statement built anew on every call would fill the cache: past this many,
statements not seen yet run through SQLAlchemy."""
MAX_EXPANDED = 16
"""A longer IN list runs through SQLAlchemy: each length is a plan of its own."""


def _plan(
    conn: Connection, statement: Executable, params: Params, keys: tuple[str, ...] = ()
) -> _Plan | None:
    """The statement compiled for SQLite, or None when it must run through SQLAlchemy. One
    plan serves every SQLite engine: `make_engine` sets them all up alike, and their SQL is
    the same."""
    lengths = tuple(len(v) for v in params.values() if isinstance(v, list | tuple))
    cache_key = (id(statement), keys, lengths)
    try:
        return _PLANS[cache_key]
    except KeyError:
        pass
    if len(_PLANS) >= MAX_PLANS or any(n > MAX_EXPANDED for n in lengths):
        return None
    built = _PLANS[cache_key] = _compile(conn, statement, params, keys)
    return built


def _compile(
    conn: Connection, statement: Executable, params: Params, keys: tuple[str, ...]
) -> _Plan | None:
    dialect = conn.dialect
    clause = cast(ClauseElement, statement)
    compiled = cast(SQLCompiler, clause.compile(dialect=dialect, column_keys=list(keys) or None))
    if (
        compiled.insert_prefetch
        or compiled.update_prefetch
        or compiled.returning
        or compiled.literal_execute_params
        or any(bind.callable for bind in compiled.binds.values())
        or any(not bind.expanding for bind in compiled.post_compile_params)
        or compiled.positiontup is None
    ):
        return None
    sql = compiled.string
    sources: tuple[tuple[str, int | None], ...]
    sources = tuple((name, None) for name in compiled.positiontup)
    if compiled.post_compile_params:
        # The SQL for these lengths of the IN lists, and which list item each `?` takes.
        expanded = compiled.construct_expanded_state(dict(params))
        items = {
            item: (name, index)
            for name, expansion in expanded.parameter_expansion.items()
            for index, item in enumerate(expansion)
        }
        sql = expanded.statement
        sources = tuple(items.get(name, (name, None)) for name in expanded.positiontup or ())
    binds = tuple(
        compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
        for name, _ in sources
    )
    constants = {
        name: bind.value
        for name, bind in compiled.binds.items()
        if not bind.required and bind.value is not None
    }
    row: type[tuple[Any, ...]] | None = None
    results: list[tuple[int, Callable[[Any], Any]]] = []
    columns = getattr(statement, "selected_columns", None)
    if columns is not None and not compiled.isinsert and not compiled.isupdate:
        # A column without a name (a bare subquery) is read by position only.
        fields = tuple(column.key or f"_column{i}" for i, column in enumerate(columns))
        row = type("Row", (_Row,), {"__slots__": (), "_fields": fields})
        for index, field in enumerate(fields):
            if field.isidentifier() and not field.startswith("_"):
                setattr(row, field, property(_item(index)))
        for index, column in enumerate(columns):
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                results.append((index, process))
    return _Plan(statement, sql, sources, constants, binds, row, tuple(results))


def _item(index: int) -> Callable[[tuple[Any, ...]], Any]:
    def get(row: tuple[Any, ...]) -> Any:
        return row[index]

    return get


def _driver(conn: Connection) -> sqlite3.Connection | None:
    if conn.dialect.name != "sqlite" or not conn.in_transaction():
        return None
    return cast(sqlite3.Connection, conn.connection.driver_connection)


def _wrapped(conn: Connection, sql: str, params: Any, exc: sqlite3.Error) -> DBAPIError:
    return cast(
        DBAPIError,
        DBAPIError.instance(sql, params, exc, sqlite3.Error, dialect=conn.dialect, ismulti=None),
    )


def driver_sql(conn: Connection, sql: str) -> None:
    """A statement without parameters on an SQLite connection's driver (its BEGIN)."""
    assert conn.dialect.name == "sqlite", "driver_sql is for SQLite connections"
    driver = cast(sqlite3.Connection, conn.connection.driver_connection)
    try:
        driver.execute(sql)
    except sqlite3.Error as exc:
        raise _wrapped(conn, sql, (), exc) from exc


def rows(conn: Connection, statement: Executable, params: Params) -> list[Any]:
    """All rows of a SELECT, each with its columns by position and by name."""
    driver = _driver(conn)
    plan = None if driver is None else _plan(conn, statement, params)
    if driver is None or plan is None or plan.row is None:
        return list(conn.execute(statement, params))
    arguments = plan.arguments(params)
    try:
        raw = driver.execute(plan.sql, arguments).fetchall()
    except sqlite3.Error as exc:
        raise _wrapped(conn, plan.sql, arguments, exc) from exc
    return [plan.make_row(values) for values in raw]


def first(conn: Connection, statement: Executable, params: Params) -> Any | None:
    found = rows(conn, statement, params)
    return found[0] if found else None


def scalar(conn: Connection, statement: Executable, params: Params) -> Any:
    """The first column of the first row, None without one."""
    row = first(conn, statement, params)
    return None if row is None else row[0]


def write(conn: Connection, statement: Executable, params: Params | Sequence[Params]) -> int:
    """An INSERT, UPDATE or DELETE, once or for each of a list of parameter sets (all with the
    same keys): the number of rows it changed."""
    run = _run_write(conn, statement, params)
    return run.rowcount if isinstance(run, sqlite3.Cursor) else int(run.rowcount)


def insert_one(conn: Connection, statement: Executable, values: Params) -> int:
    """A one-row INSERT into a table with an integer key: the new row's key."""
    run = _run_write(conn, statement, values)
    if isinstance(run, sqlite3.Cursor):
        assert run.lastrowid is not None
        return run.lastrowid
    inserted = run.inserted_primary_key
    assert inserted is not None
    return int(inserted[0])


def _run_write(
    conn: Connection, statement: Executable, params: Params | Sequence[Params]
) -> sqlite3.Cursor | CursorResult[Any]:
    many = not isinstance(params, Mapping)
    sets = cast(Sequence[Params], params) if many else [cast(Params, params)]
    driver = _driver(conn)
    keys = tuple(sets[0]) if sets and _is_insert(statement) else ()
    plan = None if driver is None or not sets else _plan(conn, statement, sets[0], keys)
    if driver is None or plan is None:
        return conn.execute(statement, params)
    arguments = [plan.arguments(p) for p in sets]
    try:
        if many:
            return driver.executemany(plan.sql, arguments)
        return driver.execute(plan.sql, arguments[0])
    except sqlite3.Error as exc:
        raise _wrapped(conn, plan.sql, arguments, exc) from exc


def _is_insert(statement: Executable) -> bool:
    return bool(getattr(statement, "is_insert", False))


__all__ = ["driver_sql", "first", "insert_one", "rows", "scalar", "write"]
