"""Points for a task once per member and server: the index that finds a task's public posts.

Revision ID: 0005_task_points_once
Revises: 0004_learning
Create Date: 2026-12-02

A member who already finished a task on one public post (solved it, used every attempt, or
opened its solution) scores no points for it on another: the answer unit looks up the task's
public posts in the server (`answers._finished_elsewhere`) by `ix_post_guild_task`, whose
last column leaves private practice posts (`session_id` set) out of the seek. Only an index:
no row changes, and the scores stored before it keep their points.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0005_task_points_once"
down_revision: str | Sequence[str] | None = "0004_learning"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_post_guild_task", "post", ["guild_id", "task_id", "session_id"])


def downgrade() -> None:
    op.drop_index("ix_post_guild_task", table_name="post")
