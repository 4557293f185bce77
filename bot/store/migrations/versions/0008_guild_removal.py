"""Servers the bot was removed from, so their data is deleted after the grace period.

Revision ID: 0008_guild_removal
Revises: 0007_hint_ladder
Create Date: 2026-12-07

Adds `guild_removal` (a row per server the bot left, with when; deleted when the bot comes
back, or with the server's data once `REMOVAL_GRACE_DAYS` have passed). A new table only:
servers left before this revision are found when the bot is next ready. The downgrade drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_guild_removal"
down_revision: str | Sequence[str] | None = "0007_hint_ladder"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guild_removal",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("removed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )


def downgrade() -> None:
    op.drop_table("guild_removal")
