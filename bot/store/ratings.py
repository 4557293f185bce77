"""The stored Elo ratings (`task_rating`, `member_rating`) read, for /insights and /practice.
A member's first try at a task on a channel post moves them, in the answer's write unit
(`answers.rate_first_tries`, by `bot.quiz.ratings.update`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, select

from bot.quiz.ratings import Rating
from bot.store.tables import MemberRating, TaskRating, table_of

_task = table_of(TaskRating)
_member = table_of(MemberRating)


def task_ratings(conn: Connection, guild_id: int) -> dict[str, Rating]:
    """Every rated task of the server, by task id."""
    stmt = select(_task.c.task_id, _task.c.value, _task.c.answers).where(
        _task.c.guild_id == guild_id
    )
    return {task_id: Rating(value, answers) for task_id, value, answers in conn.execute(stmt)}


_MEMBER_ONE = select(_member.c.value, _member.c.answers).where(
    _member.c.guild_id == bindparam("g"), _member.c.user_id == bindparam("u")
)


def member_rating(conn: Connection, guild_id: int, user_id: int) -> Rating | None:
    """The member's skill in the server; None before their first rated try."""
    row = conn.execute(_MEMBER_ONE, {"g": guild_id, "u": user_id}).first()
    return None if row is None else Rating(row.value, row.answers)


@dataclass(frozen=True, slots=True)
class PracticeRatings:
    """What adaptive /practice chooses with: the member's skill (None before their first
    rated try) and the server's rated tasks."""

    member: Rating | None
    tasks: dict[str, Rating]


def practice_ratings(conn: Connection, guild_id: int, user_id: int) -> PracticeRatings:
    return PracticeRatings(member_rating(conn, guild_id, user_id), task_ratings(conn, guild_id))
