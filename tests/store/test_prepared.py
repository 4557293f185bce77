"""The answer path's statements run as compiled on SQLite's cursor (`bot.store.prepared`): the
same rows, with the same types, as through SQLAlchemy; a refused row is SQLAlchemy's
IntegrityError, which the batch replay depends on; and what it cannot run as compiled still
runs, through SQLAlchemy."""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Connection, bindparam, select
from sqlalchemy.exc import IntegrityError

from bot.store import Store, prepared
from bot.store.answers import _INSERT_ATTEMPTS, _POST, _POSTS
from bot.store.member_progress import PROGRESS_MANY, PROGRESS_ONE
from bot.store.posts import _OPEN_PUBLIC_POSTS
from bot.store.review_cards import _DUE_QUEUE, _UPCOMING
from bot.store.sessions import _SESSION, _SUMMARY
from bot.store.tables import Post, table_of
from tests.store.conftest import (
    GUILD,
    NOW,
    TASK,
    WRONGS,
    finish,
    grade_task,
    new_post,
    request,
)

ALICE = 7
TOKYO = ZoneInfo("Asia/Tokyo")
_post = table_of(Post)


def as_sqlalchemy_gives(conn: Connection, statement: Any, params: dict[str, Any]) -> list[Any]:
    return [tuple(row) for row in conn.execute(statement, params)]


@pytest.fixture
def played(store: Store) -> Store:
    """A server where ALICE finished one post after a miss, missed another three times, saw a
    hint, and has a review session with a post, so every kind of column has values."""
    first = new_post(store)
    finish(store, first, ALICE, NOW, wrong=1)
    second = new_post(store, closes_at=NOW + timedelta(days=1))
    for picks in WRONGS:
        store.answer(request(second, ALICE, picks), grade_task, NOW)
    store.reveal_hint(second.id, GUILD, ALICE, "alice", NOW)
    store.commit_group(
        [], grade_task, NOW, [store.open_session_unit(GUILD, ALICE, "review", 10, TASK, NOW)]
    )
    return store


def test_rows_are_the_rows_sqlalchemy_gives_with_their_types(played: Store) -> None:
    with played.read() as conn:
        latest = conn.execute(select(_post.c.id).order_by(_post.c.id.desc())).scalar()
        session = conn.execute(select(_post.c.session_id).where(_post.c.id == latest)).scalar()
        # ALICE's cards fall due later. In another zone: the column type's bind processor makes
        # it the stored UTC reading on both paths (a raw aware value would compare as text).
        earlier = (NOW - timedelta(hours=1)).astimezone(TOKYO)
        cases: list[tuple[Any, dict[str, Any]]] = [
            (_POST, {"id": latest}),  # timestamps, the session's columns (labels), NULLs
            (_POST, {"id": 1}),
            (PROGRESS_ONE, {"post": 2, "user": ALICE}),  # a UNION, literals, booleans
            (_SESSION, {"sid": session}),
            (_SUMMARY, {"sid": session}),  # unnamed scalar subqueries
            (_OPEN_PUBLIC_POSTS, {"g": GUILD}),  # NULLs, timestamps, ordered
            (_DUE_QUEUE, {"g": GUILD, "u": ALICE, "at": NOW, "limit": 5}),
            (_UPCOMING, {"g": GUILD, "u": ALICE, "at": earlier, "limit": 5}),
        ]
        for statement, params in cases:
            expected = as_sqlalchemy_gives(conn, statement, params)
            assert expected, f"no rows to compare: {statement}"
            got = prepared.rows(conn, statement, params)
            assert [tuple(row) for row in got] == expected
            assert [[type(v) for v in row] for row in got] == [
                [type(v) for v in row] for row in expected
            ]
        (post,) = prepared.rows(conn, _POST, {"id": latest})
        (same,) = conn.execute(_POST, {"id": latest})
        assert post._mapping == dict(same._mapping)
        assert (post.posted_at, post.s_kind, post.task_hash) == (
            same.posted_at,
            same.s_kind,
            same.task_hash,
        )
        # The column type's result processor runs on this path too: aware UTC.
        assert post.s_kind == "review" and post.posted_at == NOW
        assert post.posted_at.tzinfo is UTC


def test_an_expanding_in_runs_compiled_for_each_length_of_its_list(played: Store) -> None:
    with played.read() as conn:
        for params in ({"ids": [1, 2]}, {"ids": [2]}, {"ids": [1, 2, 3, 99]}, {"ids": []}):
            rows = prepared.rows(conn, _POSTS, params)
            assert [tuple(r) for r in rows] == as_sqlalchemy_gives(conn, _POSTS, params)
            assert [r.id for r in rows] == sorted(i for i in params["ids"] if i <= 3)
        pairs = {"posts": [1, 2], "users": [ALICE, ALICE + 1, 99]}
        rows = prepared.rows(conn, PROGRESS_MANY, pairs)
        assert rows and [tuple(r) for r in rows] == as_sqlalchemy_gives(conn, PROGRESS_MANY, pairs)
        long = {"ids": list(range(1, prepared.MAX_EXPANDED + 2))}  # through SQLAlchemy
        assert [r.id for r in prepared.rows(conn, _POSTS, long)] == [1, 2, 3]


def test_a_refused_row_is_sqlalchemys_integrity_error_and_the_unit_stores_nothing(
    played: Store,
) -> None:
    attempt = {
        "post_id": 1,
        "guild_id": GUILD,
        "user_id": ALICE,
        "attempt_no": 1,  # ALICE's first attempt on post 1 is stored already
        "picks": "A",
        "correct": True,
        "created_at": NOW,
    }
    fresh = {**attempt, "user_id": ALICE + 1}
    with pytest.raises(IntegrityError), played.write() as conn:
        prepared.write(conn, _INSERT_ATTEMPTS, [fresh, attempt])
    assert played.progress(1, ALICE + 1).attempts_used == 0


def test_writes_count_rows_and_inserts_give_the_new_key(store: Store) -> None:
    with store.write() as conn:
        first = prepared.insert_one(conn, _post.insert(), _post_values())
        second = prepared.insert_one(conn, _post.insert(), _post_values())
        assert second == first + 1
        moved = prepared.write(
            conn,
            _post.update().where(_post.c.guild_id == bindparam("g")).values(channel_id=11),
            {"g": GUILD},
        )
        assert moved == 2
    assert store.get_post(second) is not None


def _post_values() -> dict[str, Any]:
    return {
        "guild_id": GUILD,
        "channel_id": 10,
        "message_id": None,
        "task_id": "t-easy",
        "task_version_id": None,
        "posted_by": 99,
        "posted_at": NOW,
        "schedule_id": None,
        "closes_at": None,
        "closed_at": None,
        "session_id": None,
    }


def test_statements_built_on_every_call_do_not_fill_the_plans(
    sqlite_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prepared, "_PLANS", {})
    monkeypatch.setattr(prepared, "MAX_PLANS", 3)
    with sqlite_store.read() as conn:
        for n in range(10):
            statement = select(_post.c.id).where(_post.c.id == bindparam("id"))
            assert prepared.rows(conn, statement, {"id": n}) == []
    assert len(prepared._PLANS) == 3


def test_outside_a_transaction_sqlalchemy_runs_it_and_begins_one(sqlite_store: Store) -> None:
    """The driver would run it in autocommit, outside the transaction that SQLAlchemy begins
    on a connection's first statement."""
    with sqlite_store.engine.connect() as conn:
        assert prepared.rows(conn, _SESSION, {"sid": 1}) == []
        assert conn.in_transaction()
