"""Hints, solutions (forfeits) and the per-post counts."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from bot.quiz.engine import Progress, Status
from bot.quiz.errors import UnknownPostError
from bot.store import PostCounts, Store, answers, posts
from tests.store.conftest import (
    GUILD,
    NOW,
    WRONG,
    WRONGS,
    finish,
    new_post,
    request,
)
from tests.store_calls import answer, read, reveal_hint, reveal_solution


def score_row(store: Store, post_id: int, user_id: int) -> tuple[int, ...] | None:
    with store.read() as conn:
        row = conn.execute(
            text(
                "SELECT points, solved, first_try, wrong_tries, hint_seen, forfeited FROM score"
                " WHERE post_id = :p AND user_id = :u"
            ),
            {"p": post_id, "u": user_id},
        ).first()
    return None if row is None else tuple(row)


def test_hint_halves_the_points_of_a_later_solve(store: Store) -> None:
    post = new_post(store)
    assert reveal_hint(store, post.id, GUILD, 1, "ada", NOW).progress == Progress(hints_seen=1)
    assert reveal_hint(store, post.id, GUILD, 1, "ada", NOW).progress == Progress(hints_seen=1)
    outcome = finish(store, post, 1, NOW)
    assert outcome.points == 5
    assert score_row(store, post.id, 1) == (5, 1, 1, 0, 1, 0)


def test_hint_after_finishing_costs_nothing_and_is_not_recorded(store: Store) -> None:
    post = new_post(store)
    finish(store, post, 1, NOW)
    after = reveal_hint(store, post.id, GUILD, 1, "ada", NOW).progress
    assert after == Progress(solved=True, points=10)
    assert read(store, answers.read_progress, post.id, 1) == after


def test_solution_before_finishing_forfeits_once(store: Store) -> None:
    post = new_post(store)
    answer(store, request(post, 1, WRONG), NOW)
    forfeited = Progress(wrong_tries=1, forfeited=True, tried=frozenset({WRONG}))
    assert reveal_solution(store, post.id, GUILD, 1, "ada", NOW).access.progress == forfeited
    assert reveal_solution(store, post.id, GUILD, 1, "ada", NOW).access.progress == forfeited
    assert read(store, answers.read_progress, post.id, 1) == forfeited
    assert score_row(store, post.id, 1) == (0, 0, 0, 1, 0, 1)
    # Answering after forfeiting changes nothing.
    late = answer(store, request(post, 1), NOW).outcome
    assert late.status is Status.ALREADY_FINISHED
    assert score_row(store, post.id, 1) == (0, 0, 0, 1, 0, 1)


def test_solution_after_failing_or_solving_is_not_a_forfeit(store: Store) -> None:
    post = new_post(store)
    finish(store, post, 1, NOW, wrong=3)
    finish(store, post, 2, NOW, wrong=1)
    failed = reveal_solution(store, post.id, GUILD, 1, "ada", NOW).access
    assert failed.progress == Progress(wrong_tries=3, tried=frozenset(WRONGS))
    solved = Progress(wrong_tries=1, solved=True, points=7, tried=frozenset(WRONGS[:1]))
    assert reveal_solution(store, post.id, GUILD, 2, "bob", NOW).access.progress == solved
    assert read(store, answers.read_progress, post.id, 2) == solved
    assert score_row(store, post.id, 2) == (7, 1, 0, 1, 0, 0)


def test_reveals_need_a_post_of_that_server(store: Store) -> None:
    post = new_post(store)
    with pytest.raises(UnknownPostError):
        reveal_hint(store, post.id + 1, GUILD, 1, "ada", NOW)
    with pytest.raises(UnknownPostError):
        reveal_solution(store, post.id, GUILD + 1, 1, "ada", NOW)


def test_post_counts_count_distinct_members(store: Store) -> None:
    post, other = new_post(store), new_post(store)
    finish(store, post, 1, NOW)  # first try
    finish(store, post, 2, NOW, wrong=2)  # solved later
    finish(store, post, 3, NOW, wrong=3)  # failed
    reveal_solution(store, post.id, GUILD, 4, "dan", NOW)  # forfeited without answering
    finish(store, other, 5, NOW)
    assert read(store, posts.post_counts, post.id) == PostCounts(answered=3, solved=2, first_try=1)
    assert read(store, posts.post_counts, other.id) == PostCounts(answered=1, solved=1, first_try=1)
    assert read(store, posts.post_counts, other.id + 1) == PostCounts(0, 0, 0)
