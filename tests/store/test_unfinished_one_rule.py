"""What practice and review hold back (`answers.unfinished_public_posts`: the open public posts a
member can still score on) is the engine's `Progress.can_score` on the progress the answer path
reads (`answers.member_state`), and agrees with what the rows say, stated in SQL (the query the
store used to run): no score on any public post of the task, and fewer than MAX_ATTEMPTS misses
across them. Over generated histories, so neither can drift from the other."""

from __future__ import annotations

import itertools
from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Connection, false, func, select

from bot.quiz.errors import AnswerableElsewhereError, PostClosedError, StoreAction
from bot.quiz.tasks import MAX_ATTEMPTS
from bot.store import Store, answers, posts
from bot.store.tables import Attempt, Post, Score, table_of
from tests.store.conftest import GUILD, NOW, fresh_task, new_post, request
from tests.store_calls import answer, read, write

_post = table_of(Post)
_attempt = table_of(Attempt)
_score = table_of(Score)
_users = itertools.count(1000)

ACTIONS = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(["A", "B", "C", "D", "hint", "solution"])),
    max_size=8,
)
"""(post, what the member does there). Post 2 closed at its closing time: answers there are
refused, its free looks too while the task can score on an open one."""


def scores_none_in_sql(conn: Connection, task_id: str, user_id: int) -> bool:
    """The rows' own word, as `posts._SCORES_NONE` said it in SQL."""
    of_task = (
        _post.c.guild_id == GUILD,
        _post.c.task_id == task_id,
        _post.c.session_id.is_(None),
    )
    scored = conn.execute(
        select(func.count())
        .select_from(_score.join(_post, _post.c.id == _score.c.post_id))
        .where(*of_task, _score.c.user_id == user_id)
    ).scalar_one()
    misses = conn.execute(
        select(func.count())
        .select_from(_attempt.join(_post, _post.c.id == _attempt.c.post_id))
        .where(*of_task, _attempt.c.user_id == user_id, _attempt.c.correct == false())
    ).scalar_one()
    return bool(scored) or misses >= MAX_ATTEMPTS


@settings(
    max_examples=25,
    deadline=None,
    # Each example plays a new task with a new member: nothing is shared between examples.
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(actions=ACTIONS)
def test_held_back_posts_are_those_the_engine_says_can_still_score(
    store: Store, actions: list[tuple[int, str]]
) -> None:
    task, user = fresh_task(), next(_users)
    made = [
        new_post(store, NOW - timedelta(hours=2), task=task),
        new_post(store, NOW - timedelta(hours=1), task=task),
        new_post(store, NOW - timedelta(hours=2), task=task, closes_at=NOW - timedelta(hours=1)),
    ]
    for post in made:
        write(store, posts.set_post_message, post.id, post.id * 100)
    for index, action in actions:
        post = made[index]
        try:
            if action == "hint":
                write(
                    store,
                    answers.reveal_hint,
                    post.id,
                    GUILD,
                    user,
                    "m",
                    NOW,
                    action=StoreAction.REVEAL,
                )
            elif action == "solution":
                write(
                    store,
                    answers.reveal_solution,
                    post.id,
                    GUILD,
                    user,
                    "m",
                    NOW,
                    confirmed=True,
                    action=StoreAction.REVEAL,
                )
            else:
                answer(store, request(post, user, (action,)), NOW)
        except (PostClosedError, AnswerableElsewhereError):
            pass  # closed, or answerable elsewhere: nothing stored
    with store.read() as conn:
        held = answers.unfinished_public_posts(conn, GUILD, user, NOW)
        sql_says_none = scores_none_in_sql(conn, task.id, user)
    can_score = [
        post
        for post in reversed(made[:2])  # the open ones, the latest first
        if read(store, answers.member_state, post.id, GUILD, user, NOW)[1].can_score
    ]
    # Earlier examples' tasks are other tasks: each example looks at its own.
    assert [p.message_id for p in held if p.task_id == task.id] == [
        post.id * 100 for post in can_score
    ]
    for post in made[:2]:
        progress = read(store, answers.member_state, post.id, GUILD, user, NOW)[1]
        assert progress.can_score == (not sql_says_none)
