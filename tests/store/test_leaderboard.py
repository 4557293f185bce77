"""Leaderboards: local day and week boundaries, tie-breaking, and the asker's own rank."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import event

from bot.store import Rank, Store
from bot.store import leaderboard as leaderboard_unit
from tests.store.conftest import GUILD, finish, fresh_task, new_post
from tests.store_calls import read

BERLIN = ZoneInfo("Europe/Berlin")  # UTC+2 in May
LOS_ANGELES = ZoneInfo("America/Los_Angeles")  # UTC-7 in May


def solve_at(store: Store, user_id: int, at: datetime, wrong: int = 0, guild: int = GUILD) -> None:
    """One more post of a task of its own, finished by `user_id` at `at` (10 points first try,
    7, 3, 0 after 3)."""
    finish(store, new_post(store, at, guild_id=guild, task=fresh_task()), user_id, at, wrong)


def ranked(store: Store, period: str, tz: ZoneInfo, now: datetime) -> list[tuple[int, int]]:
    return [
        (r.user_id, r.points)
        for r in leaderboard_unit.leaderboard(store, GUILD, period, tz, now, None, 10).rows
    ]


def local(tz: ZoneInfo, *args: int) -> datetime:
    return datetime(*args, tzinfo=tz)  # type: ignore[misc]


def test_a_late_evening_answer_belongs_to_that_local_day_in_berlin(store: Store) -> None:
    solve_at(store, 1, local(BERLIN, 2024, 5, 7, 23, 30))  # 21:30 UTC, Tuesday
    solve_at(store, 2, local(BERLIN, 2024, 5, 8, 0, 30))  # 22:30 UTC, still Tuesday in UTC
    now = local(BERLIN, 2024, 5, 8, 12, 0)
    assert ranked(store, "today", BERLIN, now) == [(2, 10)]
    assert ranked(store, "today", ZoneInfo("UTC"), now) == []
    yesterday = local(BERLIN, 2024, 5, 7, 23, 59)
    assert ranked(store, "today", BERLIN, yesterday) == [(1, 10)]


def test_a_late_evening_answer_belongs_to_that_local_day_in_los_angeles(store: Store) -> None:
    solve_at(store, 1, local(LOS_ANGELES, 2024, 5, 7, 23, 30))  # 06:30 UTC on the 8th
    solve_at(store, 2, local(LOS_ANGELES, 2024, 5, 8, 0, 30))
    now = local(LOS_ANGELES, 2024, 5, 8, 20, 0)  # 03:00 UTC on the 9th
    assert ranked(store, "today", LOS_ANGELES, now) == [(2, 10)]
    assert ranked(store, "today", ZoneInfo("UTC"), now.astimezone(UTC) - timedelta(hours=4)) == [
        (1, 10),
        (2, 10),
    ]


def test_the_week_starts_on_local_monday_midnight(store: Store) -> None:
    # Monday 2024-05-06 00:00 is Sunday 22:00 UTC in Berlin and Monday 07:00 UTC in LA.
    solve_at(store, 1, local(BERLIN, 2024, 5, 5, 23, 30))  # Berlin: last week
    solve_at(store, 2, local(BERLIN, 2024, 5, 6, 0, 30))  # Berlin: this week (UTC: Sunday)
    solve_at(store, 3, local(LOS_ANGELES, 2024, 5, 5, 23, 30))  # LA: last week (UTC: Monday)
    solve_at(store, 4, local(LOS_ANGELES, 2024, 5, 6, 0, 30))  # LA: this week
    now = datetime(2024, 5, 8, 12, tzinfo=UTC)
    # Equal points and solves: listed in the order they were reached.
    assert [u for u, _ in ranked(store, "week", BERLIN, now)] == [2, 3, 4]
    assert [u for u, _ in ranked(store, "week", LOS_ANGELES, now)] == [4]
    assert [u for u, _ in ranked(store, "week", ZoneInfo("UTC"), now)] == [3, 4]
    next_week = datetime(2024, 5, 13, 12, tzinfo=UTC)
    assert ranked(store, "week", BERLIN, next_week) == []
    assert [u for u, _ in ranked(store, "all", BERLIN, next_week)] == [1, 2, 3, 4]


def test_ties_break_on_solved_then_who_got_there_first_then_id(store: Store) -> None:
    t = datetime(2024, 5, 8, 8, tzinfo=UTC)
    solve_at(store, 50, t + timedelta(hours=3))  # 10 points, 1 solve, reached at 11:00
    solve_at(store, 40, t, wrong=1)  # 7 + 3 = 10 points, 2 solves
    solve_at(store, 40, t + timedelta(hours=5), wrong=2)
    solve_at(store, 30, t + timedelta(hours=1))  # 10 points, 1 solve, reached at 09:00 ...
    solve_at(store, 30, t + timedelta(hours=6), wrong=3)  # ... a later 0-point fail changes nothing
    solve_at(store, 20, t + timedelta(hours=3))  # same as 50 in every way: lower id first
    solve_at(store, 60, t, wrong=3)  # no points: not ranked
    board = leaderboard_unit.leaderboard(
        store, GUILD, "today", ZoneInfo("UTC"), t + timedelta(hours=8), None, 10
    )
    assert [(r.rank, r.user_id, r.points, r.solved) for r in board.rows] == [
        (1, 40, 10, 2),
        (2, 30, 10, 1),
        (3, 20, 10, 1),
        (4, 50, 10, 1),
    ]
    assert board.rows[0].name == "user40"
    # The asker's rank is counted separately from the top list: both must agree.
    for row in board.rows:
        alone = leaderboard_unit.leaderboard(
            store, GUILD, "today", ZoneInfo("UTC"), t + timedelta(hours=8), row.user_id, 1
        )
        assert alone.me == row


def test_me_is_ranked_outside_the_top(store: Store) -> None:
    t = datetime(2024, 5, 8, 8, tzinfo=UTC)
    for user in range(1, 13):  # user n earns n solves of 10 points
        for n in range(user):
            solve_at(store, user, t + timedelta(minutes=n))
    now = t + timedelta(hours=1)
    board = leaderboard_unit.leaderboard(store, GUILD, "today", ZoneInfo("UTC"), now, 2, 10)
    assert [r.user_id for r in board.rows] == list(range(12, 2, -1))
    assert board.me == Rank(11, 2, "user2", 20, 2)
    inside = leaderboard_unit.leaderboard(store, GUILD, "today", ZoneInfo("UTC"), now, 12, 10)
    assert inside.me == inside.rows[0] == Rank(1, 12, "user12", 120, 12)
    assert (
        leaderboard_unit.leaderboard(store, GUILD, "today", ZoneInfo("UTC"), now, 99, 10).me is None
    )
    assert (
        leaderboard_unit.leaderboard(store, GUILD, "all", ZoneInfo("UTC"), now, None, 3).me is None
    )
    assert (
        len(leaderboard_unit.leaderboard(store, GUILD, "all", ZoneInfo("UTC"), now, None, 3).rows)
        == 3
    )


def test_period_filtering_and_server_isolation(store: Store) -> None:
    now = datetime(2024, 5, 8, 12, tzinfo=UTC)
    solve_at(store, 1, now - timedelta(hours=1))
    solve_at(store, 2, now - timedelta(days=1))  # this week, not today
    solve_at(store, 3, now - timedelta(days=30))  # only all-time
    solve_at(store, 1, now, guild=GUILD + 1)  # another server
    utc = ZoneInfo("UTC")
    assert ranked(store, "today", utc, now) == [(1, 10)]
    assert ranked(store, "week", utc, now) == [(2, 10), (1, 10)]
    assert ranked(store, "all", utc, now) == [(3, 10), (2, 10), (1, 10)]
    assert leaderboard_unit.leaderboard(store, GUILD, "all", utc, now, 1, 10).me == Rank(
        3, 1, "user1", 10, 1
    )
    assert leaderboard_unit.leaderboard(store, GUILD + 1, "all", utc, now, 1, 10).me == Rank(
        1, 1, "user1", 10, 1
    )


def query_plan(store: Store, read: Callable[[], object]) -> str:
    """SQLite's plan for the one leaderboard statement that `read` executes, as executed."""
    executed: list[tuple[str, Any]] = []

    def capture(*args: Any) -> None:
        _conn, _cursor, statement, parameters, _context, _many = args
        if "picked" in statement:
            executed.append((statement, parameters))

    event.listen(store.engine, "before_cursor_execute", capture)
    try:
        read()
    finally:
        event.remove(store.engine, "before_cursor_execute", capture)
    ((statement, parameters),) = executed
    with store.read() as conn:
        rows = conn.exec_driver_sql("EXPLAIN QUERY PLAN " + statement, parameters)
        return "\n".join(row[-1] for row in rows)


@pytest.mark.sqlite_only  # SQLite's query plans
def test_leaderboards_are_index_reads_and_the_fallback_reads_covering_indexes(
    sqlite_store: Store,
) -> None:
    store = sqlite_store
    t = datetime(2024, 5, 8, 8, tzinfo=UTC)
    for user in range(1, 8):
        solve_at(store, user, t - timedelta(days=user % 3, hours=user), wrong=user % 4)
    utc, now = ZoneInfo("UTC"), t + timedelta(hours=1)
    for period, index in (("all", "ix_member_total_rank"), ("week", "ix_member_period_rank")):
        plan = query_plan(
            store, partial(leaderboard_unit.leaderboard, store, GUILD, period, utc, now, 3, 10)
        )
        # The top N in index order (no sort), and the asker's rank as three index ranges.
        assert plan.count(f"USING COVERING INDEX {index}") == 4, plan
        assert "TEMP B-TREE" not in plan and "SCAN member" not in plan, plan
    for period in ("all", "today"):
        plan = query_plan(
            store,
            partial(
                read, store, leaderboard_unit.leaderboard_exact, GUILD, period, utc, now, 3, 10
            ),
        )
        assert "SEARCH score USING COVERING INDEX ix_score_guild_" in plan, plan
        assert "SCAN score" not in plan, plan
