"""The language of a server's public messages (`/config language`).

Revision ID: 0010_guild_language
Revises: 0009_task_ratings
Create Date: 2026-12-07

Adds the nullable `guild_config.language` (a shipped locale, e.g. "de" or "pt_BR"). Existing
servers get NULL: their public messages follow Discord's preferred locale of the server, else
English, as before a language is set. The downgrade drops the column.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_guild_language"
down_revision: str | Sequence[str] | None = "0009_task_ratings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("guild_config", sa.Column("language", sa.String(), nullable=True))


def downgrade() -> None:
    op.drop_column("guild_config", "language")
