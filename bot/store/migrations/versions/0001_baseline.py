"""Baseline: exactly the schema of quizbot 0.1.0, the last release without migrations.

Revision ID: 0001_baseline
Revises:
Create Date: 2026-12-01

Written from bot/store/tables.py and schedule_tables.py at b534b21 (0.1.0). A 0.1.0 database
is stamped with this revision, never upgraded through it, so this must build what 0.1.0's
`create_all` built: tests/store/test_migrations.py compares it with a real 0.1.0 file.
Dialect-neutral; `sqlite_with_rowid` only means something to SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_baseline"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "member",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("first_seen", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
    )
    op.create_table(
        "guild_config",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=True),
        sa.Column("mod_role_id", sa.BigInteger(), nullable=True),
        sa.Column("post_policy", sa.String(), nullable=False),
        sa.Column("cooldown_seconds", sa.Integer(), nullable=False),
        sa.CheckConstraint("post_policy IN ('anyone', 'mods')", name="ck_guild_config_policy"),
        sa.CheckConstraint("cooldown_seconds >= 0", name="ck_guild_config_cooldown"),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_table(
        "post",
        # Plain INTEGER, so SQLite makes it the rowid alias.
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

    op.create_table(
        "attempt",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("attempt_no", sa.Integer(), nullable=False),
        sa.Column("picks", sa.String(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.CheckConstraint("attempt_no BETWEEN 1 AND 3", name="ck_attempt_no"),
        sa.UniqueConstraint("post_id", "user_id", "attempt_no", name="uq_attempt_member_no"),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"]),
    )
    op.create_index("ix_attempt_member_time", "attempt", ["guild_id", "user_id", "created_at"])

    op.create_table(
        "reveal",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("kind IN ('hint', 'solution')", name="ck_reveal_kind"),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"]),
        sa.PrimaryKeyConstraint("post_id", "user_id", "kind"),
    )
    op.create_table(
        "score",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("first_try", sa.Boolean(), nullable=False),
        sa.Column("wrong_tries", sa.Integer(), nullable=False),
        sa.Column("hint_seen", sa.Boolean(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["post_id"], ["post.id"]),
        sa.PrimaryKeyConstraint("post_id", "user_id"),
    )
    # Covering indexes: leaderboards are answered from the index alone.
    op.create_index(
        "ix_score_guild_time", "score", ["guild_id", "finished_at", "user_id", "points", "solved"]
    )
    op.create_index(
        "ix_score_guild_member",
        "score",
        ["guild_id", "user_id", "finished_at", "points", "solved"],
    )

    # Leaderboard totals.
    op.create_table(
        "board_state",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=False),
        sa.Column("periods_from", sa.Date(), nullable=True),
        sa.Column("built_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_table(
        "member_total",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("reached_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", "user_id"),
        sqlite_with_rowid=False,
    )
    op.create_index(
        "ix_member_total_rank",
        "member_total",
        [
            "guild_id",
            sa.literal_column("points DESC"),
            sa.literal_column("solved DESC"),
            "reached_at",
            "user_id",
        ],
    )
    op.create_table(
        "member_period",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("period_start", sa.Date(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("solved", sa.Integer(), nullable=False),
        sa.Column("reached_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("kind IN ('day', 'week')", name="ck_member_period_kind"),
        sa.PrimaryKeyConstraint("guild_id", "kind", "period_start", "user_id"),
        sqlite_with_rowid=False,
    )
    op.create_index(
        "ix_member_period_rank",
        "member_period",
        [
            "guild_id",
            "kind",
            "period_start",
            sa.literal_column("points DESC"),
            sa.literal_column("solved DESC"),
            "reached_at",
            "user_id",
        ],
    )

    # Daily quizzes.
    op.create_table(
        "schedule",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("local_time", sa.String(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=False),
        sa.Column("topic", sa.String(), nullable=True),
        sa.Column("difficulty", sa.String(), nullable=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("open_thread", sa.Boolean(), nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("active_since", sa.DateTime(), nullable=False),
        sa.Column("removed_at", sa.DateTime(), nullable=True),
        sa.Column("last_run_local_date", sa.Date(), nullable=True),
        sa.Column("last_result", sa.String(), nullable=True),
        sa.Column("last_error", sa.String(), nullable=True),
        sa.Column("last_error_at", sa.DateTime(), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("retry_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("count BETWEEN 1 AND 5", name="ck_schedule_count"),
        sa.CheckConstraint(
            "difficulty IS NULL OR difficulty IN ('easy', 'medium', 'hard')",
            name="ck_schedule_difficulty",
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_schedule_guild", "schedule", ["guild_id", "removed_at"])
    op.create_table(
        "schedule_run",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("schedule_id", sa.Integer(), nullable=False),
        sa.Column("local_date", sa.Date(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("scheduled_for", sa.DateTime(), nullable=False),
        sa.Column("closes_at", sa.DateTime(), nullable=True),
        sa.Column("post_ids", sa.String(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.Column("posted_at", sa.DateTime(), nullable=True),
        sa.Column("closed_at", sa.DateTime(), nullable=True),
        sa.Column("error", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("schedule_id", "local_date", name="uq_schedule_run_day"),
        sa.CheckConstraint(
            "status IN ('claimed', 'posted', 'skipped', 'failed')", name="ck_schedule_run_status"
        ),
        sa.ForeignKeyConstraint(["schedule_id"], ["schedule.id"]),
    )
    op.create_index("ix_schedule_run_open", "schedule_run", ["closed_at", "closes_at"])
    op.create_index("ix_schedule_run_status", "schedule_run", ["status", "schedule_id"])


def downgrade() -> None:
    for table in (
        "schedule_run",
        "schedule",
        "member_period",
        "member_total",
        "board_state",
        "score",
        "reveal",
        "attempt",
        "post",
        "guild_config",
        "member",
    ):
        op.drop_table(table)  # its indexes go with it
