"""`/insights tasks` on a large database: the item analysis' read and the analysis itself.

    python -m benchmarks.insights_tasks [--attempts 1000000] [--members 100000] [--runs 3]

One server holding every row (the worst case), built as `benchmarks.queries` builds it (500
tasks, a post per 50 attempts over 60 days), with the tasks' Elo ratings the answers would
have stored. Times what the command waits for, as `QuizService.item_stats` runs it: the read
(`store/items.first_attempts`, with the stored ratings) and the analysis
(`reports/items.item_stats`), then a page (`page_of`). Prints each part's wall seconds, the
CPU seconds of the whole (steadier on a shared machine) and the peak memory it allocated.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

from sqlalchemy import text

from benchmarks.machine import loadavg, machine_info
from benchmarks.queries import GUILD, generate, populate
from bot.quiz.ratings import replay
from bot.reports.items import item_stats, page_of
from bot.store import Store, make_engine
from bot.store.items import first_attempts


def store_ratings(store: Store) -> int:
    """The ratings the answer path would have stored: every first try replayed in order."""
    with store.read() as conn:
        tries = first_attempts(conn, GUILD).attempts
    members, tasks = replay((t.user_id, t.task_id, t.correct) for t in tries)
    with store.engine.begin() as conn:
        conn.execute(
            text("INSERT INTO task_rating VALUES (:g, :k, :v, :n)"),
            [{"g": GUILD, "k": k, "v": r.value, "n": r.answers} for k, r in tasks.items()],
        )
        conn.execute(
            text("INSERT INTO member_rating VALUES (:g, :k, :v, :n)"),
            [{"g": GUILD, "k": k, "v": r.value, "n": r.answers} for k, r in members.items()],
        )
    return len(tries)


def run_once(store: Store) -> tuple[float, float, float, int, float]:
    """(read s, analysis s, page s, tasks analysed, CPU s of all three)."""
    cpu = time.process_time()
    t0 = time.perf_counter()
    with store.read() as conn:
        read = first_attempts(conn, GUILD)
    t1 = time.perf_counter()
    items = item_stats(read)
    t2 = time.perf_counter()
    page_of(items, 1)
    t3 = time.perf_counter()
    return t1 - t0, t2 - t1, t3 - t2, len(items), time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--attempts", type=int, default=1_000_000)
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(machine_info())
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rows, _ = generate(args.members, args.attempts)
        url = populate(Path(tmp) / "quizbot.db", rows)
        del rows
        engine = make_engine(url)
        store = Store(engine)
        firsts = store_ratings(store)
        print(
            f"built {args.attempts:,} attempts ({firsts:,} first tries, {args.members:,} members)"
            f" in {time.perf_counter() - t0:.1f} s; load {loadavg()}"
        )
        runs = []
        peak = 0
        # A warm-up first (the page cache, as a running bot has it), then the timed runs, then
        # one under tracemalloc (slower: for its memory only).
        for n in range(args.runs + 2):
            traced = n == args.runs + 1
            if traced:
                tracemalloc.start()
            runs.append(run_once(store))
            if traced:
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
        engine.dispose()
    timed = runs[1 : args.runs + 1]
    for name, index in (("read", 0), ("analysis", 1), ("page", 2)):
        values = [r[index] for r in timed]
        print(
            f"{name:>9}: median {statistics.median(values):.2f} s (runs: "
            + ", ".join(f"{v:.2f}" for v in values)
            + ")"
        )
    total = [r[0] + r[1] + r[2] for r in timed]
    cpu = [r[4] for r in timed]
    print(
        f"    total: median {statistics.median(total):.2f} s, CPU {statistics.median(cpu):.2f} s,"
        f" over {runs[0][3]} tasks; peak traced memory {peak / 1e6:.0f} MB"
    )


if __name__ == "__main__":
    main()
