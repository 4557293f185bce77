"""The learning loop: private practice sessions, FSRS review cards, review reminders.

Revision ID: 0004_learning
Revises: 0003_server_banks
Create Date: 2026-12-20

Adds `practice_session`, `review_card` and `member_reminder`, and `post.session_id` (nullable,
indexed): posts made before this revision are public posts, which is what NULL means. Existing
rows are untouched; the downgrade drops the new tables and the column (plain DROP COLUMN: the
column has no foreign key, which SQLite could not drop).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_learning"
down_revision: str | Sequence[str] | None = "0003_server_banks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "practice_session",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("topic", sa.String(), nullable=True),
        sa.Column("difficulty", sa.String(), nullable=True),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("last_active_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("kind IN ('practice', 'review')", name="ck_practice_session_kind"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_practice_session_member",
        "practice_session",
        ["guild_id", "user_id", "last_active_at"],
    )
    op.create_table(
        "review_card",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("task_id", sa.String(), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(), nullable=False),
        sa.Column("last_review", sa.DateTime(), nullable=True),
        sa.CheckConstraint("state IN (1, 2, 3)", name="ck_review_card_state"),
        sa.PrimaryKeyConstraint("guild_id", "user_id", "task_id"),
    )
    op.create_index("ix_review_card_due", "review_card", ["guild_id", "user_id", "due"])
    op.create_table(
        "member_reminder",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("hour", sa.Integer(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=True),
        sa.Column("last_sent_on", sa.Date(), nullable=True),
        sa.Column("dms_closed_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("hour BETWEEN 0 AND 23", name="ck_member_reminder_hour"),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
    )
    op.create_index("ix_member_reminder_enabled", "member_reminder", ["enabled", "guild_id"])
    op.add_column("post", sa.Column("session_id", sa.Integer(), nullable=True))
    op.create_index("ix_post_session_id", "post", ["session_id"])


def downgrade() -> None:
    op.drop_index("ix_post_session_id", table_name="post")
    op.drop_column("post", "session_id")
    op.drop_table("member_reminder")
    op.drop_table("review_card")
    op.drop_table("practice_session")
