"""Leaderboard and /stats query times on a large database, with their query plans.

    python -m benchmarks.queries [--members 100000] [--attempts 1000000] [--db PATH]

One server (the worst case: every row is in the leaderboard's guild), 100k members, 1M attempts
spread over 60 days, a score row per finished (post, member). Prints p50/p95/max in ms.

The rows are written around the store, so the leaderboard totals the store's writes maintain
are then built once with `Store.rebuild_totals` (timed). "today"/"week" are those of the last
post (often a nearly empty day); "full day"/"full week" are a busy day and week 30 days back.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import Executable
from sqlalchemy.dialects import sqlite

from bot.store import Store, make_engine

GUILD = 1
ZONE = ZoneInfo("Europe/Berlin")


def populate(path: Path, members: int, attempts: int, seed: int = 7) -> datetime:
    """Write the rows with plain sqlite3 executemany: the ORM would take minutes for 1M rows."""
    make_engine(f"sqlite:///{path}").dispose()  # creates the schema and indexes
    rng = random.Random(seed)
    now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    start = now - timedelta(days=60)
    posts = max(1, attempts // 50)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    with conn:
        conn.executemany(
            "INSERT INTO member (guild_id, user_id, name, first_seen) VALUES (?, ?, ?, ?)",
            ((GUILD, u, f"member{u}", start) for u in range(1, members + 1)),
        )
        post_times = [
            start + timedelta(seconds=60 * 60 * 24 * 60 * p // posts) for p in range(posts)
        ]
        conn.executemany(
            "INSERT INTO post (id, guild_id, channel_id, task_id, posted_at)"
            " VALUES (?, ?, ?, ?, ?)",
            ((p + 1, GUILD, 10, f"task-{p % 500}", t) for p, t in enumerate(post_times)),
        )
        attempt_rows: list[tuple[object, ...]] = []
        score_rows: list[tuple[object, ...]] = []
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
        conn.executemany(
            "INSERT INTO attempt (post_id, guild_id, user_id, attempt_no, picks, correct,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            attempt_rows,
        )
        conn.executemany(
            "INSERT INTO score (post_id, user_id, guild_id, points, solved, first_try,"
            " wrong_tries, hint_seen, forfeited, finished_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            score_rows,
        )
    conn.execute("ANALYZE")
    conn.close()
    return post_times[-1] + timedelta(hours=12)


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    fn()  # warm the page cache, as a running bot would have it
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def last_ranked(path: Path) -> int:
    """The member ranked last of all time: the slowest `me` to count."""
    conn = sqlite3.connect(path)
    (user,) = conn.execute(
        "SELECT user_id FROM score WHERE guild_id = ? GROUP BY user_id HAVING sum(points) > 0"
        " ORDER BY sum(points), sum(solved), max(CASE WHEN points > 0 THEN finished_at END)"
        " DESC, user_id DESC LIMIT 1",
        (GUILD,),
    ).fetchone()
    conn.close()
    return int(user)


def show_plans(path: Path) -> None:
    """EXPLAIN QUERY PLAN of the leaderboard and /stats statements (those the store has)."""
    from bot.store import leaderboard as leaderboard_module
    from bot.store import stats as stats_module

    params = {
        "guild_id": GUILD,
        "user_id": 5,
        "me": 5,
        "limit": 10,
        "kind": "week",
        "start": "2000-01-01",
        "end": "2100-01-01",
        "before": "9999-01-01 00:00:00.000000",
    }
    conn = sqlite3.connect(path)

    def show(title: str, sql: str, args: dict[str, object] | tuple[object, ...]) -> None:
        print(f"\nquery plan: {title}\n")
        for row in conn.execute("EXPLAIN QUERY PLAN " + sql, args):
            print(f"    {row[-1]}")

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
    for title, (module, name) in statements.items():
        stmt = getattr(module, name, None)
        if isinstance(stmt, Executable):
            compiled = stmt.compile(dialect=sqlite.dialect())
            bound = compiled.construct_params(params)
            show(title, str(compiled), tuple(bound[n] for n in compiled.positiontup or ()))
    conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    folder = tempfile.TemporaryDirectory()
    path = args.db or Path(folder.name) / "bench.db"
    t0 = time.perf_counter()
    now = populate(path, args.members, args.attempts)
    print(
        f"populated {args.members:,} members, {args.attempts:,} attempts "
        f"in {time.perf_counter() - t0:.1f}s ({path.stat().st_size / 2**20:.0f} MiB)"
    )
    store = Store(make_engine(f"sqlite:///{path}"))
    if hasattr(store, "rebuild_totals"):
        t0 = time.perf_counter()
        store.rebuild_totals(GUILD, ZONE)
        print(f"built the leaderboard totals in {time.perf_counter() - t0:.1f}s")
    rng = random.Random(1)
    last = last_ranked(path)
    busy = now - timedelta(days=30)
    members = args.members

    def board(period: str, at: datetime, user: Callable[[], int]) -> Callable[[], object]:
        return lambda: store.leaderboard(GUILD, period, ZONE, at, user())

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
        "stats (random member)": lambda: store.member_stats(
            GUILD, rng.randrange(members) + 1, ZONE, now
        ),
    }
    print("\n| query | p50 ms | p95 ms | max ms |\n| --- | ---: | ---: | ---: |")
    for name, fn in cases.items():
        ms = sorted(timed(fn, args.runs))
        p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
        print(f"| {name} | {statistics.median(ms):.1f} | {p95:.1f} | {ms[-1]:.1f} |")
    if hasattr(store, "rebuild_totals"):
        # What a time zone change costs (it holds the write lock: answers wait meanwhile).
        t0 = time.perf_counter()
        store.update_guild_config(GUILD, timezone="America/Los_Angeles")
        print(f"\nre-zoning the day and week totals took {time.perf_counter() - t0:.2f}s")
    show_plans(path)
    folder.cleanup()


if __name__ == "__main__":
    main()
