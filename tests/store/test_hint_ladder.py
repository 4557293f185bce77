"""The hint ladder in the store: how many hints a member saw on a post is one row, raised as
they see more, read back the same on both engines, and counted once across a task's posts."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from bot.quiz.errors import NoHintError, StoreAction
from bot.store import Store, answers
from bot.store.answers import HintSeen
from tests.factories import choice
from tests.store.conftest import GUILD, NOW, finish, new_post
from tests.store_calls import read, reveal_hint, reveal_solution

LADDER = choice(
    "t-ladder",
    texts=("right", "wrong", "also wrong", "far off"),
    hints=("First.", "Second.", "Third."),
)


def see(store: Store, post_id: int, user_id: int = 1) -> HintSeen:
    return reveal_hint(store, post_id, GUILD, user_id, f"user{user_id}", NOW)


def stored(store: Store, post_id: int, user_id: int = 1) -> list[tuple[str, int | None]]:
    with store.read() as conn:
        rows = conn.execute(
            text("SELECT kind, hints FROM reveal WHERE post_id = :p AND user_id = :u"),
            {"p": post_id, "u": user_id},
        )
        return sorted(tuple(row) for row in rows)


def test_each_hint_raises_the_one_row_and_a_solve_is_halved_for_each(store: Store) -> None:
    post = new_post(store, task=LADDER)
    shown = [see(store, post.id).access.shown for _ in range(4)]
    assert shown == [1, 2, 3, 3]
    assert stored(store, post.id) == [("hint", 3)]
    assert read(store, answers.read_progress, post.id, 1).hints_seen == 3
    assert finish(store, post, 1, NOW).points == 1  # 10 / 8, rounded half up
    assert see(store, post.id).free  # finished: free, and nothing more is stored
    assert stored(store, post.id) == [("hint", 3)]


def test_a_solution_row_keeps_no_hint_count(store: Store) -> None:
    post = new_post(store, task=LADDER)
    see(store, post.id)
    reveal_solution(store, post.id, GUILD, 1, "user1", NOW)
    assert stored(store, post.id) == [("hint", 1), ("solution", None)]


def test_a_task_without_hints_stores_nothing(store: Store) -> None:
    post = new_post(store, task=choice("t-bare", hints=()))
    with pytest.raises(NoHintError):
        see(store, post.id)
    assert stored(store, post.id) == []
    assert finish(store, post, 1, NOW).points == 10


def test_hints_seen_on_another_public_post_count_there_once(store: Store) -> None:
    first, second = new_post(store, task=LADDER), new_post(store, task=LADDER)
    see(store, first.id)
    see(store, first.id)
    again = see(store, second.id)  # the third, with the two seen on the first post
    assert (again.access.shown, again.access.charged) == (3, True)
    assert again.progress.task_hints_seen == 3
    assert finish(store, second, 1, NOW).points == 1


def test_the_database_refuses_a_count_beyond_the_ladder(store: Store) -> None:
    post = new_post(store, task=LADDER)
    see(store, post.id)
    with pytest.raises(IntegrityError), store.write(StoreAction.REVEAL) as conn:
        conn.execute(text("UPDATE reveal SET hints = 6 WHERE post_id = :p"), {"p": post.id})
    assert stored(store, post.id) == [("hint", 1)]
