"""Leaderboard and /stats query times on a large database, with their query plans.

    python -m benchmarks.queries [--members 100000] [--attempts 1000000] [--db PATH]
    python -m benchmarks.queries --database postgresql

One server (the worst case: every row is in the leaderboard's guild), 100k members, 1M attempts
spread over 60 days, a score row per finished (post, member). Prints p50/p95/max in ms.

The rows are written around the store (SQLite: sqlite3 executemany; PostgreSQL: COPY), so the
leaderboard totals the store's writes maintain are then built once (`board_totals.rebuild_totals`,
timed). "today"/"week" are those of the last post (often a nearly empty day); "full day"/"full
week" are a busy day and week 30 days back. The queries are the store's own unit functions.

`--database postgresql` starts a throwaway PostgreSQL 15 server (tests/pg_server.py), durable
as in production and with PostgreSQL's default shared_buffers (128MB), on a database migrated
by the store, and shows EXPLAIN's plans instead of SQLite's.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import Executable, text
from sqlalchemy.dialects import sqlite

from benchmarks.machine import loadavg, machine_info
from bot.store import Store, board_totals, leaderboard, make_engine, stats
from tests.pg_server import throwaway_server
from tests.store_calls import configure, read, write

GUILD = 1
ZONE = ZoneInfo("Europe/Berlin")


Rows = list[tuple[object, ...]]
COLUMNS: dict[str, tuple[str, ...]] = {
    "member": ("guild_id", "user_id", "name", "first_seen"),
    "post": ("id", "guild_id", "channel_id", "task_id", "posted_at"),
    "attempt": ("post_id", "guild_id", "user_id", "attempt_no", "picks", "correct", "created_at"),
    "score": (
        "post_id",
        "user_id",
        "guild_id",
        "points",
        "solved",
        "first_try",
        "wrong_tries",
        "hint_seen",
        "forfeited",
        "finished_at",
    ),
}
"""The columns written, per table, in the order of `generate`'s rows."""


def generate(members: int, attempts: int, seed: int = 7) -> tuple[dict[str, Rows], datetime]:
    """Every table's rows, and the moment the benchmark asks at (after the last post)."""
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    start = now - timedelta(days=60)
    posts = max(1, attempts // 50)
    post_times = [start + timedelta(seconds=60 * 60 * 24 * 60 * p // posts) for p in range(posts)]
    attempt_rows: Rows = []
    score_rows: Rows = []
    pairs: set[tuple[int, int]] = set()
    while len(attempt_rows) < attempts:
        post = rng.randrange(posts) + 1
        user = rng.randrange(members) + 1
        if (post, user) in pairs:
            continue
        pairs.add((post, user))
        wrong = min(rng.choice((0, 0, 1, 1, 2, 3)), attempts - len(attempt_rows) - 1)
        at = post_times[post - 1] + timedelta(minutes=rng.randrange(600))
        for n in range(1, wrong + 1):
            attempt_rows.append((post, GUILD, user, n, "A", False, at))
        if wrong < 3:
            attempt_rows.append((post, GUILD, user, wrong + 1, "B", True, at))
        points = [20, 13, 7, 0][wrong]
        score_rows.append(
            (post, user, GUILD, points, wrong < 3, wrong == 0, wrong, False, False, at)
        )
    rows = {
        "member": [(GUILD, u, f"member{u}", start) for u in range(1, members + 1)],
        "post": [(p + 1, GUILD, 10, f"task-{p % 500}", t) for p, t in enumerate(post_times)],
        "attempt": attempt_rows,
        "score": score_rows,
    }
    return rows, post_times[-1] + timedelta(hours=12)


def populate(path: Path, rows: dict[str, Rows]) -> str:
    """Write the rows with plain sqlite3 executemany: the ORM would take minutes for 1M rows.
    The database's URL."""
    url = f"sqlite:///{path}"
    make_engine(url).dispose()  # creates the schema and indexes
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    with conn:
        for table, table_rows in rows.items():
            columns = COLUMNS[table]
            conn.executemany(
                f"INSERT INTO {table} ({', '.join(columns)})"
                f" VALUES ({', '.join('?' * len(columns))})",
                table_rows,
            )
    conn.execute("ANALYZE")
    conn.close()
    return url


def populate_postgres(url: str, rows: dict[str, Rows]) -> None:
    """COPY the rows into a database the store migrated, then ANALYZE (as autovacuum would)."""
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            dbapi = conn.connection.dbapi_connection
            assert dbapi is not None
            with dbapi.cursor() as cur:
                for table, table_rows in rows.items():
                    columns = ", ".join(COLUMNS[table])
                    with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:  # type: ignore[attr-defined]
                        for row in table_rows:
                            copy.write_row(row)
            conn.execute(text("SELECT setval('post_id_seq', (SELECT max(id) FROM post))"))
            conn.execute(text("ANALYZE"))
    finally:
        engine.dispose()


def vacuum_analyze(store: Store) -> float:
    """What autovacuum does within a minute of a bulk write (here: the rebuilt totals): the
    planner's statistics, and the visibility map index-only scans rely on. Its seconds."""
    t0 = time.perf_counter()
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    return time.perf_counter() - t0


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    fn()  # warm the page cache, as a running bot would have it
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def last_ranked(store: Store) -> int:
    """The member ranked last of all time: the slowest `me` to count."""
    with store.read() as conn:
        user = conn.execute(
            text(
                "SELECT user_id FROM score WHERE guild_id = :guild GROUP BY user_id"
                " HAVING sum(points) > 0 ORDER BY sum(points),"
                " sum(CASE WHEN solved THEN 1 ELSE 0 END),"
                " max(CASE WHEN points > 0 THEN finished_at END) DESC, user_id DESC LIMIT 1"
            ),
            {"guild": GUILD},
        ).scalar_one()
    return int(user)


def plan_statements() -> dict[str, Executable]:
    """The leaderboard and /stats statements the store has, by title."""
    from bot.store import leaderboard as leaderboard_module
    from bot.store import stats as stats_module

    statements = {
        "leaderboard all (totals)": (leaderboard_module, "_TOTAL_BOARD"),
        "leaderboard today/week (period totals)": (leaderboard_module, "_PERIOD_BOARD"),
        "leaderboard today/week (exact fallback: aggregates scores)": (
            leaderboard_module,
            "_EXACT_PERIOD",
        ),
        "stats: summary": (stats_module, "_STATS_SUMMARY"),
        "stats: streak step": (stats_module, "_LAST_ANSWER_BEFORE"),
    }
    found = {}
    for title, (module, name) in statements.items():
        stmt = getattr(module, name, None)
        if isinstance(stmt, Executable):
            found[title] = stmt
    return found


def _plan_params(start: object, end: object, before: object) -> dict[str, object]:
    """The bound values the query plans are shown for: a busy member (5) and one week."""
    return {
        "guild_id": GUILD,
        "user_id": 5,
        "me": 5,
        "limit": 10,
        "kind": "week",
        "start": start,
        "end": end,
        "before": before,
    }


def show_postgres_plans(store: Store, now: datetime) -> None:
    """EXPLAIN of the same statements on PostgreSQL, with a busy member and a full week."""
    params = _plan_params(now - timedelta(days=37), now - timedelta(days=30), now)
    with store.read() as conn:
        for title, stmt in plan_statements().items():
            compiled = stmt.compile(dialect=store.engine.dialect)
            bound = compiled.construct_params(params)
            print(f"\nquery plan: {title}\n")
            for (line,) in conn.exec_driver_sql("EXPLAIN " + str(compiled), bound):
                print(f"    {line}")


def show_plans(path: Path) -> None:
    """EXPLAIN QUERY PLAN of the leaderboard and /stats statements (those the store has)."""
    params = _plan_params("2000-01-01", "2100-01-01", "9999-01-01 00:00:00.000000")
    conn = sqlite3.connect(path)

    def show(title: str, sql: str, args: dict[str, object] | tuple[object, ...]) -> None:
        print(f"\nquery plan: {title}\n")
        for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args):
            print(f"    {row[-1]}")

    for title, stmt in plan_statements().items():
        compiled = stmt.compile(dialect=sqlite.dialect())
        bound = compiled.construct_params(params)
        show(title, str(compiled), tuple(bound[n] for n in compiled.positiontup or ()))
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--db", type=Path, help="SQLite: the file to write (default: temporary)")
    parser.add_argument("--database", choices=["sqlite", "postgresql"], default="sqlite")
    args = parser.parse_args()
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.database == "postgresql":
            server = stack.enter_context(
                throwaway_server(durable=True, settings={"shared_buffers": "128MB"})
            )
            url = server.new_database()
        else:
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            url = f"sqlite:///{args.db or Path(folder) / 'bench.db'}"
        measure(url, args.members, args.attempts, args.runs)


def measure(url: str, members: int, attempts: int, runs: int) -> None:
    """Populate the database at `url`, then time and explain the queries."""
    t0 = time.perf_counter()
    rows, now = generate(members, attempts)
    postgres = url.startswith("postgresql")
    if postgres:
        populate_postgres(url, rows)
    else:
        populate(Path(url.removeprefix("sqlite:///")), rows)
    del rows
    store = Store(make_engine(url))
    with store.read() as conn:
        size = (
            conn.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
            if postgres
            else Path(url.removeprefix("sqlite:///")).stat().st_size
        )
    print(
        f"populated {members:,} members, {attempts:,} attempts "
        f"in {time.perf_counter() - t0:.1f}s ({size / 2**20:.0f} MiB)"
    )
    t0 = time.perf_counter()
    write(store, board_totals.rebuild_totals, GUILD, ZONE)
    print(f"built the leaderboard totals in {time.perf_counter() - t0:.1f}s")
    if postgres:
        print(f"VACUUM ANALYZE (as autovacuum would) in {vacuum_analyze(store):.1f}s")
    rng = random.Random(1)
    last = last_ranked(store)
    busy = now - timedelta(days=30)

    def board(period: str, at: datetime, user: Callable[[], int]) -> Callable[[], object]:
        return lambda: leaderboard.leaderboard(store, GUILD, period, ZONE, at, user(), 10)

    cases: dict[str, Callable[[], object]] = {
        "leaderboard today": board("today", now, lambda: 5),
        "leaderboard week": board("week", now, lambda: 5),
        "leaderboard all": board("all", now, lambda: 5),
        "leaderboard today, full day, random asker": board(
            "today", busy, lambda: rng.randrange(members) + 1
        ),
        "leaderboard week, full week, random asker": board(
            "week", busy, lambda: rng.randrange(members) + 1
        ),
        "leaderboard all, random asker": board("all", now, lambda: rng.randrange(members) + 1),
        "leaderboard all, last-ranked asker": board("all", now, lambda: last),
        "stats (random member)": lambda: read(
            store, stats.member_stats, GUILD, rng.randrange(members) + 1, ZONE, now
        ),
    }
    print("\n| query | p50 ms | p95 ms | max ms |\n| --- | ---: | ---: | ---: |")
    for name, fn in cases.items():
        ms = sorted(timed(fn, runs))
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        print(f"| {name} | {statistics.median(ms):.1f} | {p95:.1f} | {ms[-1]:.1f} |")
    # What a time zone change costs (it holds the write lock: answers wait meanwhile).
    t0 = time.perf_counter()
    configure(store, GUILD, timezone="America/Los_Angeles")
    print(f"\nre-zoning the day and week totals took {time.perf_counter() - t0:.2f}s")
    if postgres:
        show_postgres_plans(store, now)
    else:
        show_plans(Path(url.removeprefix("sqlite:///")))
    store.engine.dispose()


if __name__ == "__main__":
    main()
