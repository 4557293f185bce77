"""Everything engine-specific in the store, in one place.

The rest of the store speaks SQLAlchemy Core on the SQLModel tables. What Core cannot say the
same way on every engine lives here: upserts (`INSERT … ON CONFLICT`, spelled the same by
SQLite and PostgreSQL but built by each dialect's own `insert`), and the greater of two values
(SQLite's two-argument `max`, PostgreSQL's `greatest`). A second engine is a change to this
module, not to the statements that use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sqlalchemy import ColumnElement, Connection, Integer, Table, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql.dml import Insert

_INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def _insert(conn: Connection, table: Table) -> Any:
    try:
        return _INSERTS[conn.dialect.name](table)
    except KeyError:
        raise NotImplementedError(f"no upsert for the {conn.dialect.name} engine") from None


def insert_ignoring_conflicts(conn: Connection, table: Table) -> Insert:
    """INSERT that skips rows whose key already exists (an idempotent record)."""
    return _insert(conn, table).on_conflict_do_nothing()


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
