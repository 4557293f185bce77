"""Posted tasks: creating, finding and closing them, and who answered them.

Decides which post is a channel's latest (newest `posted_at`, then highest id), what a search
matches, and that a post closes once (`closed_at` is set only while it is NULL).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, bindparam, distinct, func, or_, select, true, update

from bot.quiz import refs
from bot.store.periods import aware, from_utc_naive, to_utc_naive
from bot.store.records import PostCounts, PostInfo
from bot.store.tables import Attempt, Post, Score

_post = cast(Table, Post.__table__)
_attempt = cast(Table, Attempt.__table__)
_score = cast(Table, Score.__table__)

_p_post = bindparam("post_id")

_POST = select(_post).where(_post.c.id == _p_post)
_LATEST_FIRST = (_post.c.posted_at.desc(), _post.c.id.desc())
_LATEST_IN_CHANNEL = (
    select(_post)
    .where(_post.c.guild_id == bindparam("guild_id"), _post.c.channel_id == bindparam("channel_id"))
    .order_by(*_LATEST_FIRST)
    .limit(1)
)
_SET_MESSAGE = update(_post).where(_post.c.id == _p_post).values(message_id=bindparam("message_id"))
_CLOSE = (
    update(_post)
    .where(_post.c.id == _p_post, _post.c.closed_at.is_(None))
    .values(closed_at=bindparam("closed_at"))
)

_POST_COUNTS = select(
    select(func.count(distinct(_attempt.c.user_id)))
    .where(_attempt.c.post_id == _p_post)
    .scalar_subquery(),
    select(func.count())
    .where(_score.c.post_id == _p_post, _score.c.solved == true())
    .scalar_subquery(),
    select(func.count())
    .where(_score.c.post_id == _p_post, _score.c.first_try == true())
    .scalar_subquery(),
)


def _post_info(row: Row[Any]) -> PostInfo:
    return PostInfo(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        message_id=row.message_id,
        task_id=row.task_id,
        posted_by=row.posted_by,
        posted_at=from_utc_naive(row.posted_at),
        schedule_id=row.schedule_id,
        closes_at=aware(row.closes_at),
        closed_at=aware(row.closed_at),
    )


def create_post(
    conn: Connection,
    guild_id: int,
    channel_id: int,
    task_id: str,
    posted_by: int | None,
    *,
    schedule_id: int | None,
    closes_at: datetime | None,
    now: datetime,
) -> PostInfo:
    values = {
        "guild_id": guild_id,
        "channel_id": channel_id,
        "message_id": None,
        "task_id": task_id,
        "posted_by": posted_by,
        "posted_at": to_utc_naive(now),
        "schedule_id": schedule_id,
        "closes_at": None if closes_at is None else to_utc_naive(closes_at),
        "closed_at": None,
    }
    result = conn.execute(_post.insert(), values)
    post_id = result.inserted_primary_key[0]  # type: ignore[index]
    return _post_info(conn.execute(_POST, {"post_id": post_id}).one())


def set_post_message(conn: Connection, post_id: int, message_id: int) -> None:
    conn.execute(_SET_MESSAGE, {"post_id": post_id, "message_id": message_id})


def get_post(conn: Connection, post_id: int) -> PostInfo | None:
    row = conn.execute(_POST, {"post_id": post_id}).first()
    return None if row is None else _post_info(row)


def latest_post(conn: Connection, guild_id: int, channel_id: int) -> PostInfo | None:
    params = {"guild_id": guild_id, "channel_id": channel_id}
    row = conn.execute(_LATEST_IN_CHANNEL, params).first()
    return None if row is None else _post_info(row)


def search_posts(conn: Connection, guild_id: int, text: str, limit: int) -> list[PostInfo]:
    text = text.strip()
    match = _post.c.task_id.contains(text, autoescape=True)
    number = refs.post_number(text)  # not every digit is ASCII, nor every number an id
    if number is not None:
        match = or_(match, _post.c.id == number)
    stmt = (
        select(_post)
        .where(_post.c.guild_id == guild_id, match)
        .order_by(*_LATEST_FIRST)
        .limit(limit)
    )
    return [_post_info(row) for row in conn.execute(stmt)]


def close_post(conn: Connection, post_id: int, now: datetime) -> bool:
    result = conn.execute(_CLOSE, {"post_id": post_id, "closed_at": to_utc_naive(now)})
    return result.rowcount == 1


def post_counts(conn: Connection, post_id: int) -> PostCounts:
    answered, solved, first_try = conn.execute(_POST_COUNTS, {"post_id": post_id}).one()
    return PostCounts(answered, solved, first_try)
