"""A member's stats: first-try rate, points and the streak of local days; and what the /stats
picture shows: answers per local day, and the posts tried."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.store import MemberStats, Store
from bot.store import stats as stats_unit
from tests.factories import choice
from tests.store.conftest import (
    GUILD,
    WRONG,
    finish,
    fresh_task,
    new_post,
    request,
)
from tests.store_calls import answer, read, reveal_solution

BERLIN = ZoneInfo("Europe/Berlin")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")


def answer_wrong_at(store: Store, user_id: int, at: datetime) -> None:
    """A miss on a post of a task of its own (one wrong answer is a repeat on all its posts)."""
    answer(store, request(new_post(store, at, task=fresh_task()), user_id, WRONG), at)


def test_no_activity(store: Store) -> None:
    now = datetime(2024, 5, 8, tzinfo=UTC)
    assert read(store, stats_unit.member_stats, GUILD, 1, BERLIN, now) == MemberStats(
        0, 0, 0, 0.0, 0, 0, 0, None
    )


def test_first_try_rate_counts_every_post_tried(store: Store) -> None:
    at = datetime(2024, 5, 8, 9, tzinfo=UTC)
    finish(store, new_post(store, at, task=fresh_task()), 1, at)  # first try: 10
    finish(store, new_post(store, at, task=fresh_task()), 1, at, wrong=1)  # 7
    finish(store, new_post(store, at, task=fresh_task()), 1, at, wrong=3)  # failed: 0
    answer_wrong_at(store, 1, at)  # still open
    forfeited = new_post(store, at, task=fresh_task())
    reveal_solution(store, forfeited.id, GUILD, 1, "user1", at)  # finished without answering
    last = at + timedelta(minutes=5)
    finish(store, new_post(store, last, task=fresh_task()), 2, last)  # someone else
    stats = read(store, stats_unit.member_stats, GUILD, 1, BERLIN, at + timedelta(hours=1))
    assert (stats.tried, stats.solved, stats.first_try, stats.points) == (5, 2, 1, 17)
    assert stats.first_try_rate == 1 / 5
    assert stats.last_active == at


def test_streak_follows_local_days_across_midnight(store: Store) -> None:
    # Berlin is UTC+2, so the answer at 00:30 on the 7th is on the 6th in UTC: counted in
    # UTC days the 7th would be empty and the streak broken.
    for at in [
        datetime(2024, 5, 5, 23, 30, tzinfo=BERLIN),  # UTC: the 5th, 21:30
        datetime(2024, 5, 6, 23, 50, tzinfo=BERLIN),  # UTC: the 6th, 21:50
        datetime(2024, 5, 7, 0, 30, tzinfo=BERLIN),  # UTC: the 6th, 22:30
        datetime(2024, 5, 8, 8, 0, tzinfo=BERLIN),
    ]:
        answer_wrong_at(store, 1, at)
    today = datetime(2024, 5, 8, 20, 0, tzinfo=BERLIN)
    assert read(store, stats_unit.member_stats, GUILD, 1, BERLIN, today).streak_days == 4
    assert read(store, stats_unit.member_stats, GUILD, 1, ZoneInfo("UTC"), today).streak_days == 1
    # In Los Angeles the same answers fall on the 5th, 6th, 6th and 7th (UTC-7).
    la_evening = datetime(2024, 5, 7, 20, 0, tzinfo=LOS_ANGELES)
    assert read(store, stats_unit.member_stats, GUILD, 1, LOS_ANGELES, la_evening).streak_days == 3


def test_streak_may_end_yesterday_but_not_before(store: Store) -> None:
    for day in (3, 4, 6, 7):
        answer_wrong_at(store, 1, datetime(2024, 5, day, 18, tzinfo=UTC))
    utc = ZoneInfo("UTC")

    def streak(day: int) -> int:
        return read(
            store, stats_unit.member_stats, GUILD, 1, utc, datetime(2024, 5, day, 12, tzinfo=UTC)
        ).streak_days

    assert streak(7) == 2  # the 6th and 7th; the 5th is missing
    assert streak(8) == 2  # nothing yet today: the streak still stands
    assert streak(9) == 0
    assert read(
        store, stats_unit.member_stats, GUILD, 1, utc, datetime(2024, 5, 9, tzinfo=UTC)
    ).last_active == (datetime(2024, 5, 7, 18, tzinfo=UTC))


def test_stats_are_per_server(store: Store) -> None:
    at = datetime(2024, 5, 8, 9, tzinfo=UTC)
    finish(store, new_post(store, at, guild_id=GUILD + 1), 1, at)
    assert read(store, stats_unit.member_stats, GUILD, 1, BERLIN, at).tried == 0
    assert read(store, stats_unit.member_stats, GUILD + 1, 1, BERLIN, at).streak_days == 1


def test_activity_counts_answers_per_local_day_within_the_span(store: Store) -> None:
    # Berlin is UTC+2 in May: 23:30 UTC on the 6th is the 7th there.
    at = [
        datetime(2024, 4, 30, 12, tzinfo=UTC),  # before the span: not counted
        datetime(2024, 5, 6, 9, tzinfo=UTC),
        datetime(2024, 5, 6, 23, 30, tzinfo=UTC),
        datetime(2024, 5, 7, 8, tzinfo=UTC),
        datetime(2024, 5, 8, 7, tzinfo=UTC),
    ]
    for moment in at:
        answer_wrong_at(store, 1, moment)
    finish(store, new_post(store, at[-1], task=fresh_task()), 1, at[-1], wrong=2)  # 3 answers
    answer_wrong_at(store, 2, at[-1])  # someone else
    since = date(2024, 5, 1)
    activity = read(
        store,
        stats_unit.member_activity,
        GUILD,
        1,
        BERLIN,
        since,
        datetime(2024, 5, 8, 20, tzinfo=UTC),
    )
    assert activity.first_day == since
    assert activity.attempts_per_day == (0, 0, 0, 0, 0, 1, 2, 4)  # the 1st to the 8th
    in_utc = read(store, stats_unit.member_activity, GUILD, 1, ZoneInfo("UTC"), since, at[-1])
    assert in_utc.attempts_per_day == (0, 0, 0, 0, 0, 2, 1, 4)
    assert (
        read(
            store, stats_unit.member_activity, GUILD + 1, 1, BERLIN, since, at[-1]
        ).attempts_per_day
        == (0,) * 8
    )


def test_activity_lists_the_posts_tried_with_their_task_and_first_try(store: Store) -> None:
    at = datetime(2024, 5, 8, 9, tzinfo=UTC)
    other = choice("t-other", topic="Other topic")
    first = new_post(store, at)
    finish(store, first, 1, at)  # first try
    second = new_post(store, at, task=other)
    finish(store, second, 1, at, wrong=1)
    open_post = new_post(store, at, task=other)
    answer_wrong_at(store, 1, at)  # its own post, still open
    answer(store, request(open_post, 1, WRONG), at)
    forfeited = new_post(store, at)
    reveal_solution(store, forfeited.id, GUILD, 1, "user1", at)  # finished without answering
    finish(store, new_post(store, at), 2, at)  # someone else's
    activity = read(store, stats_unit.member_activity, GUILD, 1, BERLIN, date(2024, 5, 8), at)
    tried = {item.post.id: item for item in activity.tried}
    assert len(tried) == read(store, stats_unit.member_stats, GUILD, 1, BERLIN, at).tried == 5
    assert [tried[p.id].first_try for p in (first, second, open_post, forfeited)] == [
        True,
        False,
        False,
        False,
    ]
    assert tried[second.id].post.task is not None
    assert tried[second.id].post.task.topic == "Other topic"
