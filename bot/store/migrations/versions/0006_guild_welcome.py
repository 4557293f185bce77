"""The welcome: which servers the bot has greeted when it joined them.

Revision ID: 0006_guild_welcome
Revises: 0005_task_points_once
Create Date: 2026-12-07

Adds `guild_welcome` (one row per server, written as the welcome is decided, so it is sent
once). A new table only: servers the bot was in before this revision have no row and get no
welcome, since one is sent only when the bot joins a server. The downgrade drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_guild_welcome"
down_revision: str | Sequence[str] | None = "0005_task_points_once"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_welcome",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("welcomed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )


def downgrade() -> None:
    op.drop_table("guild_welcome")
