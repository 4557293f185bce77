"""Timestamp columns (`dialect.UtcDateTime`): stored as naive UTC, the schema and the rows 0.1.0
wrote, and handed out aware UTC, whatever zone a value came in, on every engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import func, select, text

from bot.store import Store, posts
from bot.store.tables import Post, table_of
from tests.store.conftest import NOW, new_post
from tests.store_calls import read

TOKYO = ZoneInfo("Asia/Tokyo")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")
_post = table_of(Post)


def test_a_column_reads_aware_utc_and_is_stored_as_the_naive_utc_reading(store: Store) -> None:
    closes = NOW + timedelta(hours=3)
    post = new_post(store, now=NOW.astimezone(TOKYO), closes_at=closes.astimezone(LOS_ANGELES))
    with store.read() as conn:
        posted_at, closes_at = conn.execute(
            select(_post.c.posted_at, _post.c.closes_at).where(_post.c.id == post.id)
        ).one()
        stored = conn.execute(
            text("SELECT posted_at, closes_at FROM post WHERE id = :id"), {"id": post.id}
        ).one()
    assert (posted_at, closes_at) == (NOW, closes)
    assert posted_at.tzinfo is UTC and closes_at.tzinfo is UTC
    # What the database holds: the UTC wall time, no offset (a string on SQLite, a
    # TIMESTAMP WITHOUT TIME ZONE on PostgreSQL), as 0.1.0 stored it.
    assert [str(value)[:19] for value in stored] == ["2024-05-08 12:00:00", "2024-05-08 15:00:00"]
    assert not any("+" in str(value) for value in stored)
    assert read(store, posts.get_post, post.id) == post


def test_a_parameter_of_any_zone_is_compared_by_its_instant(store: Store) -> None:
    new_post(store, now=NOW)
    same_instant = NOW.astimezone(TOKYO)  # 21:00 in Tokyo
    with store.read() as conn:
        count = select(func.count()).select_from(_post)
        assert conn.execute(count.where(_post.c.posted_at == same_instant)).scalar() == 1
        assert conn.execute(count.where(_post.c.posted_at < same_instant)).scalar() == 0
        later = (NOW + timedelta(seconds=1)).astimezone(LOS_ANGELES)  # 05:00 the same day
        assert conn.execute(count.where(_post.c.posted_at < later)).scalar() == 1
        # An aggregate of the column has the column's type: aware too.
        assert conn.execute(select(func.max(_post.c.posted_at))).scalar() == NOW


def test_a_naive_value_is_taken_to_be_utc(store: Store) -> None:
    post = new_post(store, now=datetime(2024, 5, 8, 12, 0))
    stored = read(store, posts.get_post, post.id)
    assert stored is not None and stored.posted_at == NOW and stored.posted_at.tzinfo is UTC
