"""Task versions: a post keeps the task it was posted with.

Revision ID: 0002_task_versions
Revises: 0001_baseline
Create Date: 2026-12-10

Adds `task_version` (a task's canonical JSON, once per distinct content, UNIQUE by its sha256)
and `post.task_version_id`, nullable: posts made before this revision have no version until
the service pins them to the loaded task of their id (`Store.pin_unversioned`, run when the
bot starts and after every content reload).

The column is added with a plain ADD COLUMN whose REFERENCES clause is inline. SQLite and
PostgreSQL both take it as is, and SQLite does not rebuild `post` for it (a rebuild would have
to drop the table that `attempt`, `reveal` and `score` point at, with foreign keys on).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_task_versions"
down_revision: str | Sequence[str] | None = "0001_baseline"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "task_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("hash", sa.String(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("hash", name="uq_task_version_hash"),
    )
    op.execute(
        "ALTER TABLE post ADD COLUMN task_version_id INTEGER"
        " CONSTRAINT fk_post_task_version REFERENCES task_version (id)"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_column("post", "task_version_id")  # its foreign key goes with it
        op.drop_table("task_version")
        return
    # SQLite cannot drop a column that a foreign key names, so `post` is rebuilt as 0001 made
    # it. `attempt`, `reveal` and `score` point at it and foreign keys cannot be switched off
    # inside the migration's transaction: the checks wait for the commit instead, and the
    # rows put back into the new `post` satisfy them again. (Alembic's batch mode drops the
    # old table after filling the new one under another name, which leaves them violated.)
    op.execute("PRAGMA defer_foreign_keys = ON")
    op.execute(f"CREATE TABLE _post_0001 AS SELECT {_POST_0001} FROM post")
    op.drop_table("post")  # its indexes go with it
    _create_post_0001()
    op.execute(f"INSERT INTO post ({_POST_0001}) SELECT {_POST_0001} FROM _post_0001")
    op.drop_table("_post_0001")
    op.drop_table("task_version")


_POST_0001 = (
    "id, guild_id, channel_id, message_id, task_id, posted_by, posted_at, schedule_id,"
    " closes_at, closed_at"
)


def _create_post_0001() -> None:
    """`post` exactly as 0001_baseline creates it."""
    op.create_table(
        "post",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("posted_by", sa.BigInteger(), nullable=True),
        sa.Column("posted_at", sa.DateTime(), nullable=False),
        sa.Column("schedule_id", sa.Integer(), nullable=True),
        sa.Column("closes_at", sa.DateTime(), nullable=True),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_post_channel_time", "post", ["guild_id", "channel_id", "posted_at"])
    op.create_index("ix_post_guild_time", "post", ["guild_id", "posted_at"])
    op.create_index("ix_post_schedule_id", "post", ["schedule_id"])
