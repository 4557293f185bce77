"""Server banks: banks moderators upload with /bank upload, served in their server only.

Revision ID: 0003_server_banks
Revises: 0002_task_versions
Create Date: 2026-12-14

Adds `server_bank` (one row per server and bank name, the bank as our YAML). A new table
only: existing rows are untouched, and the downgrade drops it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_server_banks"
down_revision: str | Sequence[str] | None = "0002_task_versions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_bank",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("yaml", sa.Text(), nullable=False),
        sa.Column("task_count", sa.Integer(), nullable=False),
        sa.Column("uploaded_by", sa.BigInteger(), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("guild_id", "name", name="uq_server_bank_name"),
    )


def downgrade() -> None:
    op.drop_table("server_bank")
