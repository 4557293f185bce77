"""The hint ladder: how many of a task's hints a member saw on a post.

Revision ID: 0007_hint_ladder
Revises: 0006_guild_welcome
Create Date: 2026-12-07

A task may have several hints, seen one at a time; each halves the points still open. The
`reveal` row of kind 'hint' (one per member and post, as before) gains `hints`: how many of
them the member saw, raised as they see more. Every hint row written before this revision is
one hint seen (a task had exactly one), which the upgrade sets; solution rows keep NULL.

A plain ADD COLUMN with its CHECK inline, on both engines: SQLite neither rebuilds `reveal`
for it nor refuses to drop it on the downgrade (it would, for a table CHECK naming it).
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007_hint_ladder"
down_revision: str | Sequence[str] | None = "0006_guild_welcome"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The bound is MAX_HINTS as of this revision, written out: a later change needs its own.
    op.execute(
        "ALTER TABLE reveal ADD COLUMN hints INTEGER"
        " CONSTRAINT ck_reveal_hints CHECK (hints BETWEEN 1 AND 5)"
    )
    op.execute("UPDATE reveal SET hints = 1 WHERE kind = 'hint'")


def downgrade() -> None:
    # A member who saw more than one hint keeps a hint row: the earlier schema's "hint seen".
    op.drop_column("reveal", "hints")
