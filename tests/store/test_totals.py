"""The maintained leaderboard totals: they must rank exactly as aggregating the scores does.

`leaderboard_exact` is the reference (the score aggregation); `leaderboard` reads the
totals kept by the write path. `fast` refuses the aggregation, so a fast answer really came
from the totals.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import TZPATH, ZoneInfo

import pytest
from sqlalchemy import text

from bot.store import Leaderboard, Store, board_totals
from bot.store import leaderboard as store_module
from bot.store.periods import day_start
from tests.store.conftest import (
    GUILD,
    RIGHT,
    WRONG,
    WRONGS,
    finish,
    fresh_task,
    new_post,
    request,
)
from tests.store_calls import answer_batch, configure, read, reveal_hint, reveal_solution, write

BERLIN = ZoneInfo("Europe/Berlin")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")
UTC_ZONE = ZoneInfo("UTC")
PERIODS = ("today", "week", "all")


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("the leaderboard aggregated scores instead of reading the totals")


def fast(
    store: Store,
    guild_id: int,
    period: str,
    tz: ZoneInfo,
    now: datetime,
    user_id: int | None = None,
    limit: int = 10,
) -> Leaderboard:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_module, "_exact_rows", _refuse)
        return store_module.leaderboard(store, guild_id, period, tz, now, user_id, limit)


def board_state(store: Store, guild_id: int) -> str | None:
    with store.read() as conn:
        return conn.execute(
            text("SELECT timezone FROM board_state WHERE guild_id = :g"), {"g": guild_id}
        ).scalar()


def totals(store: Store) -> tuple[list[Any], list[Any]]:
    with store.read() as conn:
        return (
            [tuple(r) for r in conn.execute(text("SELECT * FROM member_total ORDER BY 1, 2"))],
            [
                tuple(r)
                for r in conn.execute(text("SELECT * FROM member_period ORDER BY 1, 2, 3, 4"))
            ],
        )


def play(store: Store, rng: random.Random, guild_id: int, at: datetime, members: int) -> None:
    """One post at `at`, finished (or not) by a few members in ONE batch: equal timestamps."""
    post = new_post(store, at, guild_id=guild_id)
    batch = []
    for user in rng.sample(range(1, members + 1), rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.1:
            reveal_solution(store, post.id, guild_id, user, f"user{user}", at)  # forfeit: 0
            continue
        if roll < 0.3:
            reveal_hint(store, post.id, guild_id, user, f"user{user}", at)  # halves the points
        wrong = rng.choice((0, 0, 1, 1, 2, 3))
        batch += [request(post, user, picks) for picks in WRONGS[:wrong]]
        if wrong < 3:
            batch.append(request(post, user, RIGHT))
        elif rng.random() < 0.2:
            batch.append(request(post, user, WRONG))  # already finished: nothing recorded
    batch.append(request(10**9, 1))  # an unknown post: its savepoint rolls back, others commit
    answer_batch(store, batch, at)


def near_midnight(rng: random.Random, first: datetime, days: int) -> datetime:
    """A moment within ±90 minutes (or ±1 s) of a local midnight in one of the zones."""
    day = (first + timedelta(days=rng.randrange(days))).date()
    midnight = day_start(day, rng.choice((BERLIN, LOS_ANGELES, UTC_ZONE)))
    offset = rng.choice((-1, 0, 1, rng.randint(-90 * 60, 90 * 60)))
    return (midnight + timedelta(seconds=offset)).replace(tzinfo=UTC)


def assert_same(store: Store, guild_id: int, period: str, tz: ZoneInfo, now: datetime) -> None:
    full = read(store, store_module.leaderboard_exact, guild_id, period, tz, now, None, 1000)
    assert fast(store, guild_id, period, tz, now, limit=1000) == full
    users = [r.user_id for r in full.rows]
    # Nobody, a non-member, the first, the last and someone in between.
    askers = {None, 999, *users[:1], *users[-1:], *users[len(users) // 2 :][:1]}
    for user_id in askers:
        for limit in (10, 3, 1):
            want = read(
                store, store_module.leaderboard_exact, guild_id, period, tz, now, user_id, limit
            )
            got = fast(store, guild_id, period, tz, now, user_id=user_id, limit=limit)
            assert got == want, (guild_id, period, tz, now, user_id, limit)
            if user_id in users:
                assert got.me is not None and got.me.rank == users.index(user_id) + 1


def test_the_totals_rank_exactly_as_the_scores_across_zones_periods_and_ties(
    store: Store,
) -> None:
    rng = random.Random(20240331)
    zones = {GUILD: BERLIN, GUILD + 1: LOS_ANGELES, GUILD + 2: UTC_ZONE}
    configure(store, GUILD, timezone="Europe/Berlin")  # builds: totals kept from now
    configure(store, GUILD + 1, timezone="America/Los_Angeles")
    store_module.leaderboard(
        store, GUILD + 2, "week", UTC_ZONE, datetime(2024, 3, 1, tzinfo=UTC), None, 10
    )  # builds
    # Five weeks over both spring DST changes (LA on 10 March, Berlin on 31 March), with
    # moments crowding local midnights and members few enough to tie on points and solves.
    first = datetime(2024, 3, 4, tzinfo=UTC)
    for _ in range(150):
        for guild_id in zones:
            play(store, rng, guild_id, near_midnight(rng, first, 35), members=12)
    assert {g: board_state(store, g) for g in zones} == {
        GUILD: "Europe/Berlin",
        GUILD + 1: "America/Los_Angeles",
        GUILD + 2: "UTC",
    }
    for guild_id, tz in zones.items():
        for _ in range(25):
            now = near_midnight(rng, first - timedelta(days=1), 37)
            for period in PERIODS:
                assert_same(store, guild_id, period, tz, now)

    # What the write path kept equals what a rebuild from the scores computes.
    kept = totals(store)
    assert kept[0] and kept[1]
    assert write(store, board_totals.rebuild_totals, None, None) == 3
    assert totals(store) == kept
    assert {g: board_state(store, g) for g in zones}[GUILD + 2] == "UTC"


def seed_week(store: Store, at: datetime) -> None:
    for user, wrong in ((1, 0), (2, 1), (3, 0), (4, 3)):
        finish(store, new_post(store, at), user, at, wrong)
    late = at + timedelta(hours=1)  # Wednesday 00:30 in Berlin, Tuesday 15:30 in LA
    finish(store, new_post(store, late, task=fresh_task()), 2, late, 2)


def test_changing_the_zone_rebuilds_the_days_in_the_same_transaction(store: Store) -> None:
    configure(store, GUILD, timezone="Europe/Berlin")
    at = datetime(2024, 5, 7, 21, 30, tzinfo=UTC)  # Tuesday 23:30 Berlin, 14:30 LA
    seed_week(store, at)
    now = datetime(2024, 5, 8, 6, tzinfo=UTC)  # Wednesday in Berlin, still Tuesday in LA
    berlin_today = fast(store, GUILD, "today", BERLIN, now)
    assert berlin_today == read(
        store, store_module.leaderboard_exact, GUILD, "today", BERLIN, now, None, 10
    )
    configure(store, GUILD, timezone="America/Los_Angeles")
    assert board_state(store, GUILD) == "America/Los_Angeles"
    for period in PERIODS:
        la = fast(store, GUILD, period, LOS_ANGELES, now, user_id=4)
        assert la == read(
            store, store_module.leaderboard_exact, GUILD, period, LOS_ANGELES, now, 4, 10
        )
    # Tuesday in LA: all of them, user 2 first on two solves; Wednesday in Berlin: only 2.
    assert [r.user_id for r in fast(store, GUILD, "today", LOS_ANGELES, now).rows] == [2, 1, 3]
    assert [r.user_id for r in berlin_today.rows] == [2]
    assert fast(store, GUILD, "today", LOS_ANGELES, now) != berlin_today
    # Resetting the zone keeps the totals until a reader asks in another zone.
    configure(store, GUILD, timezone=None)
    assert board_state(store, GUILD) == "America/Los_Angeles"


def test_another_zone_than_the_configured_one_aggregates_the_scores(store: Store) -> None:
    configure(store, GUILD, timezone="Europe/Berlin")
    at = datetime(2024, 5, 7, 21, 30, tzinfo=UTC)
    seed_week(store, at)
    now = datetime(2024, 5, 8, 6, tzinfo=UTC)
    for period in ("today", "week"):
        got = store_module.leaderboard(store, GUILD, period, LOS_ANGELES, now, 1, 10)
        assert got == read(
            store, store_module.leaderboard_exact, GUILD, period, LOS_ANGELES, now, 1, 10
        )
        with pytest.raises(AssertionError, match="aggregated scores"):
            fast(store, GUILD, period, LOS_ANGELES, now)
    assert board_state(store, GUILD) == "Europe/Berlin"  # the configured zone stays
    # All-time totals do not depend on the zone.
    assert fast(store, GUILD, "all", LOS_ANGELES, now, user_id=4) == read(
        store, store_module.leaderboard_exact, GUILD, "all", LOS_ANGELES, now, 4, 10
    )


def test_an_unconfigured_server_follows_its_readers_zone_at_most_every_few_minutes(
    store: Store,
) -> None:
    at = datetime(2024, 5, 7, 21, 30, tzinfo=UTC)
    seed_week(store, at)
    now = datetime(2024, 5, 8, 6, tzinfo=UTC)
    # The first leaderboard builds the totals in the reader's zone (the service's default).
    assert board_state(store, GUILD) is None
    store_module.leaderboard(store, GUILD, "today", BERLIN, now, None, 10)
    assert board_state(store, GUILD) == "Europe/Berlin"
    # Another zone soon after: answered from the scores, not rebuilt back and forth.
    want = read(store, store_module.leaderboard_exact, GUILD, "today", LOS_ANGELES, now, None, 10)
    assert store_module.leaderboard(store, GUILD, "today", LOS_ANGELES, now, None, 10) == want
    assert board_state(store, GUILD) == "Europe/Berlin"
    with store.write() as conn:
        conn.execute(text("UPDATE board_state SET built_at = '2000-01-01 00:00:00.000000'"))
    assert store_module.leaderboard(store, GUILD, "today", LOS_ANGELES, now, None, 10) == want
    assert board_state(store, GUILD) == "America/Los_Angeles"
    assert fast(store, GUILD, "today", LOS_ANGELES, now) == want


def test_scores_before_the_first_leaderboard_are_counted_once_it_builds(store: Store) -> None:
    at = datetime(2024, 5, 8, 9, tzinfo=UTC)
    finish(store, new_post(store, at), 1, at)
    assert totals(store) == ([], [])  # not maintained yet: the answer path skips them
    board = store_module.leaderboard(store, GUILD, "all", UTC_ZONE, at, 1, 10)
    assert [(r.user_id, r.points) for r in board.rows] == [(1, 10)]
    later = at + timedelta(minutes=1)
    finish(store, new_post(store, later), 2, later)
    finish(store, new_post(store, later), 1, later, wrong=3)  # 0 points: no change, no row
    finish(store, new_post(store, later), 3, later, wrong=3)
    for period in PERIODS:
        got = fast(store, GUILD, period, UTC_ZONE, later, user_id=2)
        assert got == read(
            store, store_module.leaderboard_exact, GUILD, period, UTC_ZONE, later, 2, 10
        )
        assert [(r.user_id, r.points) for r in got.rows] == [(1, 10), (2, 10)]
    assert {row[1] for row in totals(store)[0]} == {1, 2}


def test_rebuild_totals_repairs_totals_from_the_scores(store: Store) -> None:
    configure(store, GUILD, timezone="Europe/Berlin")
    at = datetime(2024, 5, 7, 21, 30, tzinfo=UTC)
    seed_week(store, at)
    kept = totals(store)
    with store.write() as conn:
        conn.execute(text("UPDATE member_total SET points = points + 100 WHERE user_id = 3"))
        conn.execute(text("DELETE FROM member_period WHERE user_id = 1"))
    assert write(store, board_totals.rebuild_totals, GUILD, None) == 1
    assert totals(store) == kept
    assert board_state(store, GUILD) == "Europe/Berlin"
    assert write(store, board_totals.rebuild_totals, None, LOS_ANGELES) == 1
    assert board_state(store, GUILD) == "America/Los_Angeles"
    assert totals(store)[0] == kept[0]


def test_a_zone_without_a_name_is_answered_from_the_scores(store: Store) -> None:
    files = [Path(root) / "UTC" for root in TZPATH if (Path(root) / "UTC").is_file()]
    if not files:
        pytest.skip("no tz database file for UTC")
    with files[0].open("rb") as handle:
        nameless = ZoneInfo.from_file(handle)  # key None: cannot be recorded
    at = datetime(2024, 5, 8, 9, tzinfo=UTC)
    finish(store, new_post(store, at), 1, at)
    want = read(store, store_module.leaderboard_exact, GUILD, "today", UTC_ZONE, at, None, 10)
    board = store_module.leaderboard(store, GUILD, "today", nameless, at, None, 10)
    assert (board.rows, board.me) == (want.rows, want.me)
    assert board_state(store, GUILD) == "UTC"  # built for later readers, in UTC
    with pytest.raises(ValueError, match="IANA"):
        write(store, board_totals.rebuild_totals, None, nameless)


def test_an_empty_server(store: Store) -> None:
    now = datetime(2024, 5, 8, tzinfo=UTC)
    write(store, board_totals.rebuild_totals, GUILD, BERLIN)
    assert fast(store, GUILD, "week", BERLIN, now, user_id=1) == Leaderboard([], None, BERLIN.key)
    assert fast(store, GUILD, "all", BERLIN, now, user_id=1) == Leaderboard([], None, BERLIN.key)


def test_rezoning_rebuilds_recent_weeks_only_and_older_ones_come_from_the_scores(
    store: Store,
) -> None:
    configure(store, GUILD, timezone="Europe/Berlin")
    first = datetime(2024, 3, 4, 21, 30, tzinfo=UTC)  # a Monday
    for week in range(8):
        at = first + timedelta(weeks=week, days=week % 7)
        finish(store, new_post(store, at), 1 + week % 3, at, wrong=week % 2)
    configure(store, GUILD, timezone="America/Los_Angeles")
    with store.read() as conn:
        since = conn.execute(text("SELECT CAST(periods_from AS TEXT) FROM board_state")).scalar()
    # The latest score is on Monday 22 April (LA): its week and the one before are rebuilt.
    assert since == "2024-04-15"
    recent = datetime(2024, 4, 24, 6, tzinfo=UTC)
    old = datetime(2024, 3, 20, 12, tzinfo=UTC)
    for period in PERIODS:
        assert fast(store, GUILD, period, LOS_ANGELES, recent, user_id=2) == (
            read(store, store_module.leaderboard_exact, GUILD, period, LOS_ANGELES, recent, 2, 10)
        )
    for period in ("today", "week"):
        want = read(store, store_module.leaderboard_exact, GUILD, period, LOS_ANGELES, old, 2, 10)
        assert store_module.leaderboard(store, GUILD, period, LOS_ANGELES, old, 2, 10) == want
        with pytest.raises(AssertionError, match="aggregated scores"):
            fast(store, GUILD, period, LOS_ANGELES, old)
    # A late write for a day before the kept ones updates the all-time totals only.
    stale = totals(store)[1]
    finish(store, new_post(store, old), 3, old)
    assert [r for r in totals(store)[1] if str(r[2]) < since] == [
        r for r in stale if str(r[2]) < since
    ]
    assert fast(store, GUILD, "all", LOS_ANGELES, recent) == (
        read(store, store_module.leaderboard_exact, GUILD, "all", LOS_ANGELES, recent, None, 10)
    )
    assert store_module.leaderboard(store, GUILD, "week", LOS_ANGELES, old, None, 10) == (
        read(store, store_module.leaderboard_exact, GUILD, "week", LOS_ANGELES, old, None, 10)
    )
    # A full rebuild keeps every period again.
    write(store, board_totals.rebuild_totals, GUILD, None)
    assert fast(store, GUILD, "week", LOS_ANGELES, old) == (
        read(store, store_module.leaderboard_exact, GUILD, "week", LOS_ANGELES, old, None, 10)
    )
