"""Servers the bot was removed from: when, so their data is deleted after the grace period
(`member_data.delete_guild`) unless the bot comes back first. A row exists only while the bot
is away (importing this module registers the table; revision 0008_guild_removal creates it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from sqlalchemy import BigInteger, Connection, bindparam, delete, select
from sqlmodel import Field, SQLModel

from bot.store.dialect import UTC_TIMESTAMP, upsert
from bot.store.tables import GuildConfig, Member, Post, ServerBank, table_of


class GuildRemoval(SQLModel, table=True):
    __tablename__ = "guild_removal"

    guild_id: int = Field(sa_type=BigInteger, primary_key=True)
    removed_at: datetime = Field(sa_type=UTC_TIMESTAMP)


_removal = table_of(GuildRemoval)
_MARKS = select(_removal.c.guild_id, _removal.c.removed_at)
_KNOWN = [
    select(table_of(model).c.guild_id).distinct()
    for model in (Member, Post, GuildConfig, ServerBank)
]


def mark_removed(conn: Connection, guild_id: int, now: datetime) -> None:
    """The bot left the server at `now`; an earlier mark stands (the grace runs from it)."""
    stmt = upsert(conn, _removal, ["guild_id"], lambda new: {"removed_at": _removal.c.removed_at})
    conn.execute(stmt, {"guild_id": guild_id, "removed_at": now})


def mark_present(conn: Connection, guild_ids: Iterable[int]) -> int:
    """The bot is in these servers (again): nothing of theirs is to be deleted. The number
    of marks cleared."""
    ids = sorted(set(guild_ids))
    if not ids:
        return 0
    stmt = delete(_removal).where(_removal.c.guild_id.in_(bindparam("ids", expanding=True)))
    return conn.execute(stmt, {"ids": ids}).rowcount or 0


def removals(conn: Connection) -> dict[int, datetime]:
    """Each server the bot is marked as removed from, and when it left."""
    return {guild: at for guild, at in conn.execute(_MARKS)}


def known_guilds(conn: Connection) -> set[int]:
    """The servers the database holds members, posts, settings or banks of (each read from an
    index that starts with the server): a read unit of its own, so the write lock is not held
    while it scans."""
    known: set[int] = set()
    for stmt in _KNOWN:
        known.update(conn.execute(stmt).scalars())
    return known


def settle(
    conn: Connection,
    present: Iterable[int],
    known: Iterable[int],
    owns: Callable[[int], bool],
    now: datetime,
) -> tuple[int, int]:
    """When the bot is ready: the `known` servers of this process's shards (`owns`) that the
    bot is no longer in were left while it was down (marked now); those it is in are not
    removed. (newly marked, marks cleared)."""
    here = set(present)
    marked = removals(conn)
    # Discord's ids are positive: server 0 is terminal practice's (bot/practice.py).
    gone = sorted(g for g in set(known) - here if g > 0 and owns(g) and g not in marked)
    for guild_id in gone:
        mark_removed(conn, guild_id, now)
    return len(gone), mark_present(conn, here & marked.keys())
