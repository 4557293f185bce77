"""The welcome a server gets when the bot joins it: claimed once, before it is sent."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection

from bot.store.dialect import insert_ignoring_conflicts
from bot.store.tables import GuildWelcome, table_of

_welcome = table_of(GuildWelcome)


def claim_welcome(conn: Connection, guild_id: int, now: datetime) -> bool:
    """Record that `guild_id` is welcomed now; False if it already was. The caller sends
    only after this commits: a crash in between loses a welcome, never doubles one."""
    # RETURNING, not rowcount: psycopg reports -1 for this statement.
    claim = insert_ignoring_conflicts(conn, _welcome, ["guild_id"]).returning(_welcome.c.guild_id)
    return conn.execute(claim, {"guild_id": guild_id, "welcomed_at": now}).first() is not None
