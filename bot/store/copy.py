"""`quizbot db copy`: move a deployment into another, empty database (SQLite to PostgreSQL)
and prove nothing was lost.

Both sides at the schema head; every table streamed in foreign-key order into ONE target
transaction, so a failed copy leaves the target empty and can be run again. Then checked from
fresh reads: row counts, and every member's totals from `score` and `member_total`. A target
holding exactly the source's rows (a copy stopped during its check) is checked, not refused.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, Row, Table, func, inspect, make_url, select
from sqlalchemy.exc import DBAPIError

from bot.host_errors import HostError
from bot.store import dialect, faults
from bot.store.db import build_engine, sqlite_file, writer
from bot.store.migrate import current_state, problem, read_state, target_metadata, upgrade_database
from bot.store.preflight import check_database, check_lasting, check_readable
from bot.store.process_claim import claim_database_file
from bot.store.tables import MemberTotal, Score, table_of

BATCH_ROWS = 5000  # rows per read from the source and per insert into the target
PROGRESS_EVERY = 100_000  # rows between progress lines within one big table

SOURCE, TARGET = "SRC_URL", "DST_URL"


class CopyError(HostError):
    """The copy cannot start or did not verify; `setting` names the side at fault."""


@dataclass(frozen=True, slots=True)
class CopyReport:
    rows: dict[str, int]  # per table of the schema, 0 included
    members_checked: int  # whose leaderboard totals were compared


Say = Callable[[str], None]


def copy_database(src_url: str, dst_url: str, say: Say, batch: int = BATCH_ROWS) -> CopyReport:
    """Copy every row of `src_url` into the empty `dst_url`, then verify; else CopyError."""
    # Read-only: opening a missing source would create an empty one.
    with _blamed_on(SOURCE):
        check_readable(src_url, SOURCE)
        # Held to the end: no bot may write (or start on) the file while it is copied.
        claim = claim_database_file(src_url, reader=True)
    source: Engine | None = None
    target: Engine | None = None
    try:
        if _same_database(src_url, dst_url):
            # Else it would pass as an earlier copy of itself.
            raise CopyError(TARGET, "the target is the source itself", "name a new, empty database")
        source = build_engine(src_url)
        _check_source(source, src_url)
        with _blamed_on(TARGET):
            check_lasting(dst_url, TARGET)  # a copy into memory is gone when it ends
            check_database(dst_url, TARGET)  # the copy writes it: it must be writable
        target = build_engine(dst_url)
        if not _target_is_empty(target):
            return _check_earlier_copy(source, target, say)
        with _blamed_on(TARGET):
            result = upgrade_database(target, backup=False)
        if result.created:
            say(f"created the schema at revision {result.after} in the target")
        rows = _copy_rows(source, target, say, batch)
        return _verified(rows, _verify(source, target, rows), say)
    finally:
        for engine in (source, target):
            if engine is not None:
                engine.dispose()
        claim.release()


def _same_database(src_url: str, dst_url: str) -> bool:
    """One SQLite file (however spelled or linked), or one PostgreSQL database."""
    src, dst = sqlite_file(src_url), sqlite_file(dst_url)
    if src is not None or dst is not None:
        return bool(src and dst and src.exists() and dst.exists() and src.samefile(dst))
    a, b = make_url(src_url), make_url(dst_url)
    return (a.host or "", a.port or 5432, a.database) == (b.host or "", b.port or 5432, b.database)


def _verified(rows: dict[str, int], members: int, say: Say) -> CopyReport:
    say(
        f"verified: {len(rows)} tables and {sum(rows.values()):,} rows equal on both sides, "
        f"and the leaderboard totals of {members:,} members"
    )
    return CopyReport(rows, members)


@contextlib.contextmanager
def _blamed_on(setting: str) -> Iterator[None]:
    """A HostError raised inside (preflight, the schema upgrade) names `setting` instead."""
    try:
        yield
    except HostError as exc:
        raise CopyError(setting, exc.problem, exc.fix) from None


def _tables() -> list[Table]:
    return list(target_metadata().sorted_tables)


def _check_source(source: Engine, url: str) -> None:
    with source.connect() as conn, conn.begin():
        state = read_state(conn)
        found = problem(conn, state)  # not quizbot's, or a version it cannot trust
    if found is not None:
        raise CopyError(SOURCE, found.problem, found.fix.replace("DATABASE_URL", "SRC_URL"))
    if state.empty:
        raise CopyError(SOURCE, f"the source {_shown(source)} is empty", "check SRC_URL")
    if state.too_new:
        raise CopyError(
            SOURCE,
            f"the source {_shown(source)} is at schema revision {state.revision}, newer than "
            f"this quizbot knows (its newest is {state.head})",
            "copy it with the newer quizbot that upgraded it",
        )
    if not state.is_head:
        # The command to paste, unless the URL holds a password (never printed).
        upgrade = (
            "quizbot db upgrade, with DATABASE_URL set to SRC_URL"
            if source.url.password is not None
            else f"DATABASE_URL='{url}' quizbot db upgrade"
        )
        raise CopyError(
            SOURCE,
            f"the source {_shown(source)} is at schema revision {state.revision or '0.1.0'}, "
            f"not this quizbot's {state.head}",
            f"upgrade it first: {upgrade}",
        )


def _target_is_empty(target: Engine) -> bool:
    """No tables, or this schema at the head without rows; False: with rows (an earlier
    copy?); another schema is someone's data, refused."""
    state = current_state(target)
    if state.empty:
        return True
    known = {table.name for table in _tables()}
    if state.revision != state.head or not state.tables <= known:
        strangers = sorted(state.tables - known)
        what = f"tables {', '.join(strangers[:5])}" if strangers else "another schema revision"
        raise _not_empty(target, what)
    with target.connect() as conn:
        return not any(_count(conn, table) for table in _tables())


def _check_earlier_copy(source: Engine, target: Engine, say: Say) -> CopyReport:
    """Check an earlier copy (as many rows as the source in every table); any other target
    with rows is someone's data: refused untouched, never called incomplete."""
    with source.connect() as src, target.connect() as dst:
        counts = {table.name: (_count(src, table), _count(dst, table)) for table in _tables()}
    if any(here != there for here, there in counts.values()):
        # Named by what the target holds: a table that differs may be empty there.
        held = {name: there for name, (_, there) in counts.items() if there}
        differ = [name for name in held if counts[name][0] != held[name]] or list(held)
        shown = ", ".join(
            f"{name} has {held[name]:,} row{'' if held[name] == 1 else 's'}" for name in differ[:3]
        )
        raise _not_empty(target, shown + (", ..." if len(differ) > 3 else ""))
    rows = {name: here for name, (here, _) in counts.items()}
    say("the target already holds as many rows as the source: an earlier copy; checking it")
    try:
        members = _verify(source, target, rows)
    except CopyError:
        raise _not_empty(target, "its leaderboard totals differ from the source's") from None
    return _verified(rows, members, say)


def _not_empty(target: Engine, what: str) -> CopyError:
    return CopyError(
        TARGET,
        f"the target {_shown(target)} is not empty ({what})",
        "copy into a new, empty database (createdb), never over an existing one",
    )


def _copy_rows(source: Engine, target: Engine, say: Say, batch: int) -> dict[str, int]:
    rows: dict[str, int] = {}
    with source.connect() as read:
        try:
            totals = {table.name: _count(read, table) for table in _tables()}
        except DBAPIError as exc:
            raise _failure(SOURCE, "counting the rows", exc) from exc
        at = "the commit"
        try:
            with writer(target).begin() as write:
                for table in _tables():
                    at = table.name
                    total = totals[table.name]
                    copied = 0
                    shown = 0
                    for chunk in _batches(read, table, batch):
                        write.execute(table.insert(), [row._asdict() for row in chunk])
                        copied += len(chunk)
                        if copied - shown >= PROGRESS_EVERY and copied < total:
                            say(f"  {table.name}: {copied:,} of {total:,} rows")
                            shown = copied
                    dialect.advance_id_sequence(write, table)
                    rows[table.name] = copied
                    say(f"{table.name}: {copied:,} rows")
                at = "the commit"
        except DBAPIError as exc:
            raise _failure(TARGET, at, exc) from exc
    return rows


def _batches(read: Connection, table: Table, batch: int) -> Iterator[Sequence[Row[Any]]]:
    """`table`'s rows in key order, `batch` at a time; an error here is the source's."""
    order = list(table.primary_key.columns) or list(table.columns)
    try:
        result = read.execution_options(yield_per=batch).execute(select(table).order_by(*order))
        yield from result.partitions()
    except DBAPIError as exc:
        raise _failure(SOURCE, table.name, exc) from exc


def _failure(side: str, at: str, error: DBAPIError) -> CopyError:
    name, driver = faults.error_name(error)
    reason = (str(driver).strip().splitlines() or [""])[0]  # PostgreSQL's next lines: the SQL
    doing = "reading the source" if side == SOURCE else "writing the target"
    return CopyError(
        side,
        f"the copy failed at {at}, {doing} ({name}: {reason}); nothing was copied",
        "the target is as empty as before: remove the cause, then run the copy again",
    )


def _verify(source: Engine, target: Engine, copied: dict[str, int]) -> int:
    with source.connect() as src, target.connect() as dst:
        for table in _tables():
            before, after = _count(src, table), _count(dst, table)
            if not before == after == copied[table.name]:
                raise CopyError(
                    TARGET,
                    f"{table.name} has {before:,} rows in the source but {after:,} in the target",
                    "the target is incomplete: drop it and run the copy again",
                )
        totals = _totals(src)
        if _totals(dst) != totals:
            raise CopyError(
                TARGET,
                "the leaderboard totals differ between the source and the target",
                "the target is incomplete: drop it and run the copy again",
            )
    return len(totals)


def _totals(conn: Connection) -> dict[tuple[int, int], tuple[Any, ...]]:
    """Every member's (points, solved) summed from `score`, and as `member_total` keeps them."""
    score = table_of(Score)
    kept = table_of(MemberTotal)
    summed = conn.execute(
        select(
            score.c.guild_id,
            score.c.user_id,
            func.sum(score.c.points),
            func.count().filter(score.c.solved.is_(True)),
        ).group_by(score.c.guild_id, score.c.user_id)
    )
    totals: dict[tuple[int, int], tuple[Any, ...]] = {
        (g, u): (int(points), int(solved), None, None) for g, u, points, solved in summed
    }
    for g, u, points, solved in conn.execute(
        select(kept.c.guild_id, kept.c.user_id, kept.c.points, kept.c.solved)
    ):
        summed_points, summed_solved, _, _ = totals.get((g, u), (0, 0, None, None))
        totals[(g, u)] = (summed_points, summed_solved, points, solved)
    return totals


def _count(conn: Connection, table: Table) -> int:
    if not inspect(conn).has_table(table.name):
        return 0
    return conn.execute(select(func.count()).select_from(table)).scalar_one()


def _shown(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)
