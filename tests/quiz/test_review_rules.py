"""The learning loop's pure rules: the outcome-to-rating table, the once-a-day rule, the next
practice task, and the session's idle limit."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.quiz.engine import Progress, check_owner
from bot.quiz.errors import PrivatePostError, SessionExpiredError
from bot.quiz.practice import due_reviews, held_reviews, next_due, next_task
from bot.quiz.review import ReviewRating, rates_today, rating_for, rating_of
from bot.quiz.rules import SESSION_IDLE, check_session_live, session_expired

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("solved", "wrong", "hint", "forfeited", "rating"),
    [
        (True, 0, False, False, ReviewRating.GOOD),  # first try, no hint
        (True, 0, True, False, ReviewRating.HARD),  # after the hint
        (True, 1, False, False, ReviewRating.AGAIN),  # after a miss
        (True, 2, True, False, ReviewRating.AGAIN),  # after misses and the hint
        (False, 3, False, False, ReviewRating.AGAIN),  # failed
        (False, 0, False, True, ReviewRating.AGAIN),  # the solution first
        (False, 1, True, True, ReviewRating.AGAIN),
    ],
)
def test_every_row_of_the_rating_table(
    solved: bool, wrong: int, hint: bool, forfeited: bool, rating: ReviewRating
) -> None:
    assert rating_for(solved, wrong, hint, forfeited) is rating
    progress = Progress(wrong_tries=wrong, solved=solved, hints_seen=int(hint), forfeited=forfeited)
    assert rating_of(progress) is rating


def test_a_miss_or_the_hint_on_another_post_of_the_task_rates_its_solve_here() -> None:
    assert rating_of(Progress(solved=True, wrong_elsewhere=1)) is ReviewRating.AGAIN
    assert rating_of(Progress(solved=True, hints_elsewhere=1)) is ReviewRating.HARD


def test_a_card_is_rated_at_most_once_a_local_day_unless_due() -> None:
    utc = ZoneInfo("UTC")
    later = NOW + timedelta(days=2)
    assert rates_today(None, None, NOW, utc)  # never reviewed
    assert not rates_today(NOW - timedelta(hours=1), later, NOW, utc)  # same day, not due
    assert rates_today(NOW - timedelta(days=1), later, NOW, utc)  # an earlier day
    # Due (a missed task is due at once): a same-day review reschedules it.
    assert rates_today(NOW - timedelta(hours=1), NOW - timedelta(minutes=1), NOW, utc)
    assert rates_today(NOW - timedelta(hours=1), NOW, NOW, utc)


def test_the_local_day_is_the_zones_not_utcs() -> None:
    # New York is UTC-4 in March after DST: 02:30 UTC on the 11th is still the 10th there.
    york = ZoneInfo("America/New_York")
    last = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)  # 11:00 on the 10th in New York
    not_due = last + timedelta(days=2)
    late_evening = datetime(2026, 3, 11, 2, 30, tzinfo=UTC)  # 22:30 on the 10th
    next_morning = datetime(2026, 3, 11, 4, 30, tzinfo=UTC)  # 00:30 on the 11th
    assert not rates_today(last, not_due, late_evening, york)
    assert rates_today(last, not_due, late_evening, ZoneInfo("UTC"))  # another day in UTC
    assert rates_today(last, not_due, next_morning, york)


def test_practice_prefers_unsolved_then_unserved_and_ends_when_all_served() -> None:
    rng = random.Random(1)
    tasks = ["a", "b", "c", "d"]
    for _ in range(20):
        assert next_task(tasks, solved={"a", "b", "c"}, served=(), rng=rng) == "d"
        assert next_task(tasks, solved={"a", "b"}, served={"c"}, rng=rng) == "d"
        assert next_task(tasks, solved={"a", "b"}, served={"c", "d"}, rng=rng) in {"a", "b"}
    assert next_task(tasks, solved=set(), served=set(tasks), rng=rng) is None
    picks = {next_task(tasks, solved=set(), served=(), rng=random.Random(n)) for n in range(40)}
    assert picks == set(tasks)  # random among equals


def test_reviews_keep_the_queues_order_most_overdue_first() -> None:
    # The store reads the queue most overdue first; what /review serves keeps that order,
    # leaving out removed, withheld and already served tasks.
    queue = ["oldest", "gone", "older", "held", "served", "newest"]
    available = set(queue) - {"gone"}
    assert due_reviews(queue, available, {"held"}, {"served"}) == ["oldest", "older", "newest"]


def test_held_back_reviews_count_only_tasks_the_server_still_has() -> None:
    """/review says how many due reviews wait for a public post: a withheld card whose task
    the banks no longer have would never be served, so it is not counted."""
    queue = ["gone", "held", "free"]
    assert held_reviews(queue, {"held", "free"}, {"gone", "held"}) == 1


def test_a_session_expires_after_30_idle_minutes() -> None:
    assert timedelta(minutes=30) == SESSION_IDLE
    assert not session_expired(NOW, NOW + timedelta(minutes=29, seconds=59))
    assert session_expired(NOW, NOW + timedelta(minutes=30))
    check_session_live(None, NOW, NOW + timedelta(minutes=29), "practice")
    with pytest.raises(SessionExpiredError, match="after 30 minutes without activity"):
        check_session_live(None, NOW, NOW + timedelta(minutes=31), "practice")
    with pytest.raises(SessionExpiredError) as ended:
        check_session_live(NOW, NOW, NOW, "practice")
    assert not ended.value.idle


def test_an_ended_session_points_to_the_command_that_starts_its_kind() -> None:
    with pytest.raises(SessionExpiredError) as review:
        check_session_live(None, NOW, NOW + timedelta(minutes=31), "review")
    assert str(review.value) == (
        "This review session ended after 30 minutes without activity. /review starts a new one."
    )
    with pytest.raises(SessionExpiredError) as practice:
        check_session_live(NOW, NOW, NOW, "practice")
    assert str(practice.value) == "This practice session ended. /practice starts a new one."


def test_a_private_task_is_its_owners() -> None:
    check_owner(None, 5)  # public
    check_owner(5, 5)
    with pytest.raises(PrivatePostError):
        check_owner(5, 6)


def test_held_back_reviews_are_the_due_tasks_both_kept_and_withheld() -> None:
    queue = ["gone", "held", "also-held", "free"]
    kept = {"held", "also-held", "free"}
    assert held_reviews(queue, kept, {"gone", "held", "also-held"}) == 2
    assert held_reviews(queue, kept, set()) == 0


def test_the_next_due_card_is_the_first_the_server_still_has() -> None:
    upcoming = [("gone", NOW), ("kept", NOW + timedelta(hours=1)), ("also", NOW + timedelta(2))]
    assert next_due(upcoming, {"kept", "also"}) == NOW + timedelta(hours=1)
    assert next_due(upcoming, set()) is None
    assert next_due([], {"kept"}) is None


def test_the_last_review_day_is_the_zones_too() -> None:
    """Reviewed at 23:00 on the 9th in New York (03:00 UTC on the 10th): a finish at 11:00 on
    the 10th there is a new local day, so it rates the card again."""
    york = ZoneInfo("America/New_York")
    last = datetime(2026, 3, 10, 3, 0, tzinfo=UTC)
    now = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
    assert rates_today(last, now + timedelta(days=2), now, york)
    assert not rates_today(last, now + timedelta(days=2), now, ZoneInfo("UTC"))
