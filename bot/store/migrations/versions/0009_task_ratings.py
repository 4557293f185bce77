"""Calibrated difficulty: an Elo rating per task and per member of a server.

Revision ID: 0009_task_ratings
Revises: 0008_guild_removal
Create Date: 2026-12-07

Adds `task_rating` (guild, task: difficulty and first tries learnt from) and `member_rating`
(guild, member: skill and first tries). From now on the answer's write unit moves both on a
member's first try at a task on a channel post. The upgrade backfills them by replaying the
first tries already stored, in the order they were made: the ratings the online update would
have reached (one pass over the first attempts). The downgrade drops both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_task_ratings"
down_revision: str | Sequence[str] | None = "0008_guild_removal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# bot/quiz/ratings.py's model as of this revision, written out: a later change to it does
# not rewrite what this upgrade computed.
ALPHA, BETA = 1.0, 0.05

_FIRST_TRIES = sa.text(
    "SELECT a.guild_id, a.user_id, p.task_id, a.correct FROM attempt a"
    " JOIN post p ON p.id = a.post_id"
    " WHERE a.attempt_no = 1 AND p.session_id IS NULL AND p.guild_id = a.guild_id"
    " ORDER BY a.created_at, a.id"
)

Rated = dict[tuple[int, object], list[float]]
"""(guild, member or task) -> [value, answers]."""


def upgrade() -> None:
    for name, key in (("task_rating", "task_id"), ("member_rating", "user_id")):
        op.create_table(
            name,
            sa.Column("guild_id", sa.BigInteger(), nullable=False),
            sa.Column(key, sa.BigInteger() if key == "user_id" else sa.String(), nullable=False),
            sa.Column("value", sa.Float(), nullable=False),
            sa.Column("answers", sa.Integer(), nullable=False),
            sa.PrimaryKeyConstraint("guild_id", key),
            sqlite_with_rowid=False,
        )
    _backfill(op.get_bind())


def _backfill(conn: sa.Connection) -> None:
    members: Rated = {}
    tasks: Rated = {}
    seen: set[tuple[int, int, str]] = set()
    for guild_id, user_id, task_id, correct in conn.execute(_FIRST_TRIES):
        if (guild_id, user_id, task_id) in seen:
            continue  # a later post's attempt 1: not the member's first try at the task
        seen.add((guild_id, user_id, task_id))
        skill = members.setdefault((guild_id, user_id), [0.0, 0])
        level = tasks.setdefault((guild_id, task_id), [0.0, 0])
        surprise = float(bool(correct)) - 1 / (1 + math.exp(level[0] - skill[0]))
        skill[0] += ALPHA / (1 + BETA * skill[1]) * surprise
        level[0] -= ALPHA / (1 + BETA * level[1]) * surprise
        skill[1] += 1
        level[1] += 1
    for name, key, rated in (
        ("task_rating", "task_id", tasks),
        ("member_rating", "user_id", members),
    ):
        table = sa.table(
            name,
            sa.column("guild_id"),
            sa.column(key),
            sa.column("value"),
            sa.column("answers"),
        )
        rows = [
            {"guild_id": g, key: k, "value": value, "answers": n}
            for (g, k), (value, n) in rated.items()
        ]
        if rows:
            conn.execute(table.insert(), rows)


def downgrade() -> None:
    op.drop_table("member_rating")
    op.drop_table("task_rating")
