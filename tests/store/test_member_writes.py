"""The answer path writes a member's name only when this process has not committed that name
for them yet (`answers.KnownMembers`): a click by a known member costs no member statement, a
new name is written, and a write that rolled back is not taken for done."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, select

from bot.store import Store
from bot.store.answers import upsert_member
from bot.store.tables import Member, table_of
from tests.store.conftest import GUILD, NOW, WRONGS, fresh_task, new_post, request
from tests.store_calls import answer

_member = table_of(Member)


@pytest.fixture
def member_writes(store: Store) -> Iterator[list[str]]:
    """Every statement sent to the database that writes the member table."""
    sent: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO MEMBER "):
            sent.append(statement)

    event.listen(store.engine, "before_cursor_execute", seen)
    yield sent
    event.remove(store.engine, "before_cursor_execute", seen)


def _name(store: Store, user_id: int) -> str | None:
    with store.read() as conn:
        found = select(_member.c.name).where(
            _member.c.guild_id == GUILD, _member.c.user_id == user_id
        )
        return conn.execute(found).scalar()


def test_same_name_again_writes_no_member(store: Store, member_writes: list[str]) -> None:
    post = new_post(store, task=fresh_task())
    answer(store, request(post, 7, WRONGS[0]), NOW)
    assert len(member_writes) == 1  # first sighting: the row must exist
    answer(store, request(post, 7, WRONGS[1]), NOW)
    assert len(member_writes) == 1
    assert _name(store, 7) == "user7"


def test_a_new_name_is_written(store: Store, member_writes: list[str]) -> None:
    post = new_post(store, task=fresh_task())
    answer(store, request(post, 7, WRONGS[0]), NOW)
    renamed = dataclasses.replace(request(post, 7, WRONGS[1]), member_name="Seven")
    answer(store, renamed, NOW)
    assert len(member_writes) == 2
    assert _name(store, 7) == "Seven"


def test_a_rolled_back_write_is_written_again(store: Store, member_writes: list[str]) -> None:
    class Boom(Exception):
        pass

    with pytest.raises(Boom), store.write() as conn:
        upsert_member(conn, GUILD, 7, "user7", NOW)
        raise Boom
    assert _name(store, 7) is None
    answer(store, request(new_post(store, task=fresh_task()), 7, WRONGS[0]), NOW)
    assert len(member_writes) == 2
    assert _name(store, 7) == "user7"


def test_a_new_store_writes_the_member_again(store: Store, member_writes: list[str]) -> None:
    """What one store committed is no other store's knowledge (a restart starts afresh)."""
    post = new_post(store, task=fresh_task())
    answer(store, request(post, 7, WRONGS[0]), NOW)
    answer(Store(store.engine), request(post, 7, WRONGS[1]), NOW)
    assert len(member_writes) == 2


def test_a_write_in_a_rolled_back_savepoint_is_written_again(
    store: Store, member_writes: list[str]
) -> None:
    """As the replay of a refused batch and a failed unit of the group commit do."""
    with store.write() as conn, pytest.raises(LookupError), conn.begin_nested():
        upsert_member(conn, GUILD, 7, "user7", NOW)
        raise LookupError
    assert _name(store, 7) is None
    answer(store, request(new_post(store, task=fresh_task()), 7, WRONGS[0]), NOW)
    assert _name(store, 7) == "user7"
