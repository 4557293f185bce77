"""What a statement of the answer path costs through SQLAlchemy, through `bot.store.prepared`,
and on the driver alone (SQLite).

    python -m benchmarks.prepared                 # 5,000 runs of each, on a temporary file
    python -m benchmarks.prepared --runs 20000 --dir /dev/shm

A member answers a post three times and starts a review session, so the reads return rows
of every kind (timestamps, booleans, labels, a UNION). Each statement then runs `--runs`
times in one transaction, each way in turn, twice (the first pass warms up); reported: the
median of the second pass's per-run CPU time (`time.thread_time`) in µs. The writes run in a
transaction that is rolled back.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from benchmarks.machine import machine_info
from bot.quiz.engine import grade
from bot.store import AnswerRequest, Store, make_engine, prepared
from bot.store.answers import _INSERT_ATTEMPTS, _POST, _TOUCH_SESSIONS
from bot.store.member_progress import PROGRESS_ONE
from bot.store.review_cards import _DUE_QUEUE
from bot.store.sessions import _SESSION
from tests.factories import choice

GUILD, USER = 1, 7
NOW = datetime(2026, 12, 2, 12, tzinfo=UTC)


def played(store: Store) -> tuple[int, int]:
    """A post answered wrong, wrong, right, and a review session: (post id, session id)."""
    task = choice("t-bench", texts=("right", "wrong", "also wrong", "far off"))
    post = store.create_post(GUILD, 10, task, 99, closes_at=None, now=NOW)
    for pick in ("B", "C", "A"):
        store.answer(
            AnswerRequest(post.id, GUILD, USER, "member", (pick,)),
            lambda p, r, progress: grade(task, progress, r.picks),
            NOW,
        )
    unit = store.open_session_unit(GUILD, USER, "review", 10, task, NOW)
    session_post = store.commit_group([], lambda *a: None, NOW, [unit]).units[0]
    return post.id, session_post.session_id


def median_us(run: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.thread_time()
        run()
        times.append(time.thread_time() - start)
    return statistics.median(times) * 1e6


def read_ways(conn: Connection, statement: Any, params: dict[str, Any]) -> list[Callable[[], Any]]:
    driver = conn.connection.driver_connection
    plan = prepared._plan(conn, statement, params)
    assert plan is not None and driver is not None
    return [
        lambda: conn.execute(statement, params).all(),
        lambda: prepared.rows(conn, statement, params),
        lambda: driver.execute(plan.sql, plan.arguments(params)).fetchall(),
    ]


def write_ways(conn: Connection, statement: Any, row: dict[str, Any]) -> list[Callable[[], Any]]:
    """Each write under a savepoint rolled back after it, so an insert never clashes with the
    last one; `timed` takes the savepoint's own cost off."""
    driver = conn.connection.driver_connection
    plan = prepared._plan(conn, statement, row, tuple(row) if statement.is_insert else ())
    assert plan is not None and driver is not None
    return [
        lambda: conn.execute(statement, [row]),
        lambda: prepared.write(conn, statement, [row]),
        lambda: driver.executemany(plan.sql, [plan.arguments(row)]),
    ]


def timed(conn: Connection, ways: list[Callable[[], Any]], runs: int, undo: bool) -> list[float]:
    driver = conn.connection.driver_connection
    assert driver is not None

    def around(way: Callable[[], Any]) -> Callable[[], Any]:
        if not undo:
            return way

        def run() -> None:
            driver.execute("SAVEPOINT b")
            way()
            driver.execute("ROLLBACK TO b")
            driver.execute("RELEASE b")

        return run

    for way in ways:  # warm-up
        median_us(around(way), runs)
    base = median_us(around(lambda: None), runs) if undo else 0.0
    return [median_us(around(way), runs) - base for way in ways]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5000)
    parser.add_argument(
        "--dir", type=Path, help="where the database file goes (a temporary folder)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        engine = make_engine(f"sqlite:///{folder}/bench.db")
        post_id, session_id = played(Store(engine))
        at = NOW.replace(tzinfo=None)
        attempt = {
            "post_id": post_id,
            "guild_id": GUILD,
            "user_id": USER + 1,
            "attempt_no": 1,
            "picks": "A",
            "correct": True,
            "created_at": at,
        }
        cases: list[tuple[str, Any, dict[str, Any], bool]] = [
            ("a post with its session and version (`answers._POST`)", _POST, {"id": post_id}, True),
            (
                "a member's progress on a post, a UNION (`member_progress.PROGRESS_ONE`)",
                PROGRESS_ONE,
                {"post": post_id, "user": USER},
                True,
            ),
            ("a session (`sessions._SESSION`)", _SESSION, {"sid": session_id}, True),
            (
                "the due cards (`review_cards._DUE_QUEUE`)",
                _DUE_QUEUE,
                {"g": GUILD, "u": USER, "at": at, "limit": 20},
                True,
            ),
            ("an attempt (`answers._INSERT_ATTEMPTS`)", _INSERT_ATTEMPTS, attempt, False),
            (
                "a session touched (`answers._TOUCH_SESSIONS`)",
                _TOUCH_SESSIONS,
                {"sid": session_id, "at": at},
                False,
            ),
        ]
        print(f"machine: {machine_info()}; {args.runs} runs each, median CPU µs per run")
        print("| statement | SQLAlchemy | prepared | the driver alone |")
        print("|---|---:|---:|---:|")
        with engine.connect() as conn, conn.begin():
            for name, statement, params, read in cases:
                ways = (read_ways if read else write_ways)(conn, statement, params)
                cells = timed(conn, ways, args.runs, undo=not read)
                print(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + " |")
            conn.rollback()
        engine.dispose()


if __name__ == "__main__":
    main()
