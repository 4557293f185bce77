"""A server's settings: their defaults, which values are valid, and what a change of zone
does to the leaderboard totals. Stored only once changed, validated before they are."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, Row, bindparam, exists, or_, select

from bot.clock import load_zone
from bot.i18n import SHIPPED_LOCALES
from bot.quiz.rules import MAX_COOLDOWN_SECONDS
from bot.store.board_totals import board_state, build_board
from bot.store.dialect import upsert
from bot.store.reminders import Rezone, rezone_server
from bot.store.tables import POST_POLICIES, GuildConfig, Member, Post, table_of


@dataclass(frozen=True, slots=True)
class GuildConfigInfo:
    guild_id: int
    timezone: str | None = None
    mod_role_id: int | None = None
    post_policy: str = "anyone"
    cooldown_seconds: int = 30
    language: str | None = None


_config = table_of(GuildConfig)
_CONFIG = select(_config).where(_config.c.guild_id == bindparam("guild_id"))

_KNOWN = select(
    or_(
        *(
            exists().where(table_of(model).c.guild_id == bindparam("guild_id"))
            for model in (Post, Member, GuildConfig)
        )
    )
)

CONFIG_FIELDS = frozenset(
    {"timezone", "mod_role_id", "post_policy", "cooldown_seconds", "language"}
)


def _config_info(row: Row[Any]) -> GuildConfigInfo:
    return GuildConfigInfo(
        guild_id=row.guild_id,
        timezone=row.timezone,
        mod_role_id=row.mod_role_id,
        post_policy=row.post_policy,
        cooldown_seconds=row.cooldown_seconds,
        language=row.language,
    )


def guild_config(conn: Connection, guild_id: int) -> GuildConfigInfo:
    row = conn.execute(_CONFIG, {"guild_id": guild_id}).first()
    return GuildConfigInfo(guild_id) if row is None else _config_info(row)


def check_changes(changes: dict[str, Any]) -> None:
    """Raise before the write lock is taken: a bad request must not make writers wait."""
    unknown = set(changes) - CONFIG_FIELDS
    if unknown:
        raise TypeError(f"unknown guild setting(s): {', '.join(sorted(unknown))}")
    if changes.get("timezone") is not None and load_zone(changes["timezone"]) is None:
        raise ValueError(f"unknown time zone {changes['timezone']!r}")
    if "post_policy" in changes and changes["post_policy"] not in POST_POLICIES:
        raise ValueError(f"post_policy must be one of {', '.join(POST_POLICIES)}")
    if changes.get("language") not in (None, *SHIPPED_LOCALES):
        raise ValueError(f"language must be one of {', '.join(SHIPPED_LOCALES)}")
    cooldown = changes.get("cooldown_seconds", 0)
    if not 0 <= int(cooldown) <= MAX_COOLDOWN_SECONDS:
        raise ValueError(f"cooldown_seconds must be from 0 to {MAX_COOLDOWN_SECONDS}")


def update_guild_config(
    conn: Connection, guild_id: int, changes: dict[str, Any], rezone: Rezone | None = None
) -> GuildConfigInfo:
    """Change some settings, after `check_changes`; `rezone` moves the last reminder day of
    the members on the server's zone into its new zone."""
    row = conn.execute(_CONFIG, {"guild_id": guild_id}).first()
    old = GuildConfigInfo(guild_id) if row is None else _config_info(row)
    info = replace(old, **changes)
    if rezone is not None:
        rezone_server(conn, guild_id, old.timezone, info.timezone, rezone)
    values = {name: getattr(info, name) for name in CONFIG_FIELDS}
    conn.execute(upsert(conn, _config, ["guild_id"]), {"guild_id": guild_id, **values})
    if info.timezone is not None:
        # Days and weeks follow the new zone from this commit on. Reset to None,
        # they stay as they are until a reader asks in another zone.
        state = board_state(conn, guild_id)
        if state.zone != info.timezone:
            build_board(conn, guild_id, info.timezone, totals=state.zone is None)
    return info


def known_guild(conn: Connection, guild_id: int) -> bool:
    """Whether the database has anything of the server: a post (private ones too), a member
    or a setting."""
    return bool(conn.execute(_KNOWN, {"guild_id": guild_id}).scalar())
