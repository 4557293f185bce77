"""The read behind item analysis: first attempts on public posts, nothing from /practice."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Connection

from bot.quiz.errors import StoreAction
from bot.store import PostInfo, Store, sessions
from bot.store.items import FirstAttempt, first_attempts
from tests.factories import choice
from tests.store.conftest import CHANNEL, GUILD, NOW, new_post, request
from tests.store_calls import answer, read, write

TASK = choice("t-item", texts=("right", "wrong", "also wrong", "far off"))


def test_each_member_counts_once_with_their_first_attempt(store: Store) -> None:
    first = new_post(store, NOW, task=TASK)
    second = new_post(store, NOW + timedelta(days=1), task=TASK)
    answer(store, request(first, 1, ("B",)), NOW)
    answer(store, request(first, 1, ("A",)), NOW)  # a second attempt: not a first try
    answer(store, request(second, 1, ("A",)), NOW + timedelta(days=1))  # a later post
    answer(store, request(second, 2, ("A",)), NOW + timedelta(days=1))
    got = read(store, first_attempts, GUILD)
    assert got.attempts == (
        FirstAttempt(1, "t-item", False, ("B",)),
        FirstAttempt(2, "t-item", True, ("A",)),
    )
    assert got.latest["t-item"].id == second.id
    assert got.latest["t-item"].task == TASK


def test_practice_attempts_and_other_servers_do_not_count(store: Store) -> None:
    def open_practice(conn: Connection) -> PostInfo:
        session = sessions.start_session(
            conn, GUILD, 7, "practice", topic=None, difficulty=None, now=NOW
        )
        return sessions.add_post(conn, session, CHANNEL, TASK, NOW)

    private = write(store, open_practice, action=StoreAction.POST)
    answer(store, request(private, 7, ("A",)), NOW)
    elsewhere = new_post(store, NOW, guild_id=GUILD + 1, task=TASK)
    answer(store, request(elsewhere, 8, ("A",)), NOW)
    got = read(store, first_attempts, GUILD)
    assert got.attempts == () and got.latest == {}


def test_a_period_keeps_the_attempts_within_it(store: Store) -> None:
    post = new_post(store, NOW, task=TASK)
    answer(store, request(post, 1, ("A",)), NOW)
    answer(store, request(post, 2, ("C",)), NOW + timedelta(days=2))
    got = read(store, first_attempts, GUILD, NOW + timedelta(days=1), NOW + timedelta(days=3))
    assert got.attempts == (FirstAttempt(2, "t-item", False, ("C",)),)
