"""The stored Elo ratings: a member's first try at a task on a channel post moves their skill
and the task's difficulty, in the answer's own write unit; nothing else moves them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, event, text

from bot.quiz import ratings
from bot.quiz.ratings import Rating
from bot.store import Store, sessions
from bot.store import ratings as stored
from tests.store.conftest import CHANNEL, GUILD, NOW, RIGHT, WRONG, fresh_task, new_post, request
from tests.store.test_answers import run_threads
from tests.store_calls import answer, answer_batch, read, write

OTHER_GUILD = 2


def task_rating(store: Store, task_id: str, guild_id: int = GUILD) -> Rating | None:
    return read(store, stored.task_ratings, guild_id).get(task_id)


def skill(store: Store, user_id: int, guild_id: int = GUILD) -> Rating | None:
    return read(store, stored.member_rating, guild_id, user_id)


def test_a_first_try_moves_the_member_and_the_task_as_the_rule_says(store: Store) -> None:
    post = new_post(store, task=fresh_task())
    answer(store, request(post, 1, RIGHT), NOW)
    answer(store, request(post, 2, WRONG), NOW)
    expected_members, expected_tasks = ratings.replay(
        [(1, post.task_id, True), (2, post.task_id, False)]
    )
    assert task_rating(store, post.task_id) == pytest.approx(expected_tasks[post.task_id])
    assert skill(store, 1) == pytest.approx(expected_members[1])
    assert skill(store, 2) == pytest.approx(expected_members[2])
    assert skill(store, 1).value > 0 > skill(store, 2).value  # type: ignore[union-attr]


def test_only_the_first_try_at_a_task_counts(store: Store) -> None:
    task = fresh_task()
    post, again = new_post(store, task=task), new_post(store, task=task)
    answer(store, request(post, 1, WRONG), NOW)
    after_first = (skill(store, 1), task_rating(store, task.id))
    answer(store, request(post, 1, RIGHT), NOW)  # the second try on the post
    assert (skill(store, 1), task_rating(store, task.id)) == after_first
    other = new_post(store, task=fresh_task())
    answer(store, request(again, 1, ("C",)), NOW)  # the task's other channel post: no first try
    assert (skill(store, 1), task_rating(store, task.id)) == after_first
    answer(store, request(other, 1, RIGHT), NOW)  # another task: a first try again
    assert skill(store, 1) is not None and skill(store, 1).answers == 2  # type: ignore[union-attr]


def test_a_task_finished_elsewhere_is_no_first_try(store: Store) -> None:
    task = fresh_task()
    post, again = new_post(store, task=task), new_post(store, task=task)
    answer(store, request(post, 1, RIGHT), NOW)
    before = (skill(store, 1), task_rating(store, task.id))
    answer(store, request(again, 1, RIGHT), NOW)
    assert (skill(store, 1), task_rating(store, task.id)) == before


def test_practice_and_review_move_no_rating(store: Store) -> None:
    task = fresh_task()
    session = write(
        store, sessions.start_session, GUILD, 1, "practice", topic=None, difficulty=None, now=NOW
    )
    private = write(store, sessions.add_post, session, CHANNEL, task, NOW)
    answer(store, request(private, 1, RIGHT), NOW)
    assert skill(store, 1) is None and task_rating(store, task.id) is None


def test_a_batch_rates_in_the_order_the_answers_came(store: Store) -> None:
    task, second = fresh_task(), fresh_task()
    post, other = new_post(store, task=task), new_post(store, task=second)
    batch = [
        request(post, 1, RIGHT),
        request(post, 2, WRONG),
        request(post, 1, WRONG),  # answered already: not a first try, and refused as done
        request(other, 1, WRONG),
        request(post, 3, RIGHT),
    ]
    answer_batch(store, batch, NOW)
    expected_members, expected_tasks = ratings.replay(
        [
            (1, task.id, True),
            (2, task.id, False),
            (1, second.id, False),
            (3, task.id, True),
        ]
    )
    assert read(store, stored.task_ratings, GUILD) == pytest.approx(expected_tasks)
    for user_id, rating in expected_members.items():
        assert skill(store, user_id) == pytest.approx(rating)


def test_a_batch_moves_the_stored_ratings_on(store: Store) -> None:
    """A burst after lone answers: the batch starts from what the earlier units stored."""
    task, second = fresh_task(), fresh_task()
    post, other = new_post(store, task=task), new_post(store, task=second)
    answer(store, request(post, 1, RIGHT), NOW)
    answer(store, request(other, 2, WRONG), NOW)
    answer_batch(
        store,
        [request(post, 2, RIGHT), request(other, 1, RIGHT), request(post, 3, WRONG)],
        NOW,
    )
    expected_members, expected_tasks = ratings.replay(
        [
            (1, task.id, True),
            (2, second.id, False),
            (2, task.id, True),
            (1, second.id, True),
            (3, task.id, False),
        ]
    )
    assert read(store, stored.task_ratings, GUILD) == pytest.approx(expected_tasks)
    for user_id, rating in expected_members.items():
        assert skill(store, user_id) == pytest.approx(rating)


def test_each_server_rates_on_its_own(store: Store) -> None:
    task = fresh_task()
    here, there = new_post(store, task=task), new_post(store, guild_id=OTHER_GUILD, task=task)
    answer(store, request(here, 1, RIGHT), NOW)
    answer(store, request(there, 1, WRONG), NOW)
    assert task_rating(store, task.id).value < 0 < task_rating(store, task.id, OTHER_GUILD).value  # type: ignore[union-attr]
    assert skill(store, 1).value > 0 > skill(store, 1, OTHER_GUILD).value  # type: ignore[union-attr]


@pytest.fixture
def statements(store: Store) -> Iterator[list[str]]:
    """The SQL each unit runs (its BEGIN/COMMIT aside)."""
    seen: list[str] = []

    def record(_conn: Connection, _cursor: object, sql: str, *_: object) -> None:
        seen.append(sql)

    event.listen(store.engine, "before_cursor_execute", record)
    yield seen
    event.remove(store.engine, "before_cursor_execute", record)


def test_a_rated_click_costs_two_upserts_and_no_read_of_its_own(
    store: Store, statements: list[str]
) -> None:
    """The ratings come with the member's progress on the task (one statement either way)."""
    post = new_post(store, task=fresh_task())
    answer(store, request(post, 1, ("C",)), NOW)
    statements.clear()
    answer(store, request(post, 1, WRONG), NOW)  # no first try: no rating written
    unrated = list(statements)
    assert not [s for s in unrated if s.startswith("INSERT") and "_rating" in s]
    statements.clear()
    answer(store, request(post, 2, ("C",)), NOW)  # a first try (the same writes otherwise)
    assert {s for s in statements if s.startswith("SELECT")} <= set(unrated)  # no other read
    rated = [s for s in statements if s not in unrated and "_rating" in s]
    assert sorted(s.split()[2] for s in rated) == ["member_rating", "task_rating"]
    assert all(s.startswith("INSERT") for s in rated)


def test_concurrent_writers_lose_no_first_try(file_store: Store) -> None:
    """Many members' first tries at one task from many connections at once (on PostgreSQL,
    transactions side by side): each adds its change to the task's row, none is lost."""
    post = new_post(file_store, task=fresh_task())
    threads, each = 8, 5

    def answer_for(n: int) -> None:
        for user in range(n * 100, n * 100 + each):
            answer(file_store, request(post, user, RIGHT if user % 2 else WRONG), NOW)

    run_threads(threads, answer_for)
    rating = task_rating(file_store, post.task_id)
    assert rating is not None and rating.answers == threads * each
    skills = read(file_store, stored_skills)
    assert len(skills) == threads * each and all(n == 1 for n in skills.values())


def stored_skills(conn: Connection) -> dict[int, int]:
    rows = conn.execute(text("SELECT user_id, answers FROM member_rating")).all()
    return {user_id: answers for user_id, answers in rows}
