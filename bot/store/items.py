"""The read behind item analysis (bot/reports/items.py): each member's first attempt on each
task of a server, over public posts only (a post with a `session_id` is /practice or /review,
private, and never counts), the task each was last posted as, and the tasks' stored Elo
ratings (`store/ratings.py`). One pass over the period's attempts: the cost follows the
attempts in the period, not the database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, select

from bot.quiz.ratings import Rating
from bot.store.posts import PostInfo, post_infos, select_posts
from bot.store.ratings import task_ratings
from bot.store.tables import Attempt, Post, table_of

_attempt = table_of(Attempt)
_post = table_of(Post)


@dataclass(frozen=True, slots=True)
class FirstAttempt:
    user_id: int
    task_id: str
    correct: bool
    picks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ItemRead:
    attempts: tuple[FirstAttempt, ...]  # one per member and task, in the order they were made
    latest: dict[str, PostInfo]  # each task's latest answered post, with its stored version
    ratings: dict[str, Rating] = field(default_factory=dict)  # stored, of all time


def first_attempts(
    conn: Connection, guild_id: int, since: datetime | None = None, until: datetime | None = None
) -> ItemRead:
    """Members' first attempts (attempt 1 of their earliest post of the task) from `since`
    (included) to `until` (excluded); all time without them. The ratings are all time's."""
    stmt = (
        select(
            _attempt.c.user_id,
            _post.c.task_id,
            _attempt.c.correct,
            _attempt.c.picks,
            _attempt.c.post_id,
        )
        .select_from(_attempt.join(_post, _attempt.c.post_id == _post.c.id))
        .where(
            _attempt.c.guild_id == guild_id,
            _attempt.c.attempt_no == 1,
            _post.c.guild_id == guild_id,
            _post.c.session_id.is_(None),
        )
        .order_by(_attempt.c.created_at, _attempt.c.id)
    )
    if since is not None:
        stmt = stmt.where(_attempt.c.created_at >= since)
    if until is not None:
        stmt = stmt.where(_attempt.c.created_at < until)
    seen: set[tuple[int, str]] = set()
    firsts: list[FirstAttempt] = []
    latest_post: dict[str, int] = {}
    for user_id, task_id, correct, picks, post_id in conn.execute(stmt):
        latest_post[task_id] = max(post_id, latest_post.get(task_id, post_id))
        if (user_id, task_id) in seen:
            continue
        seen.add((user_id, task_id))
        firsts.append(FirstAttempt(user_id, task_id, bool(correct), _split(picks)))
    posts = select_posts().where(_post.c.id.in_(list(latest_post.values())))
    infos = post_infos(conn, conn.execute(posts)) if latest_post else []
    latest = {info.task_id: info for info in infos}
    return ItemRead(tuple(firsts), latest, task_ratings(conn, guild_id))


def _split(picks: str) -> tuple[str, ...]:
    return tuple(picks.split(",")) if picks else ()
