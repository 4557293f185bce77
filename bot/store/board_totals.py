"""Building the per-member totals that leaderboards read.

Leaderboards read per-member totals (`member_total`, and `member_period` per local day and
ISO week) that the answer write path adds each new score to, so a leaderboard is an index
read, whatever the number of scores. `score` stays the truth: the totals are rebuilt from it
here, when a server's first leaderboard is asked, when its zone changes, and on demand.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import Connection, Table, bindparam, select

from bot.store.periods import day_start, local_date, to_utc_naive, week_start
from bot.store.tables import BoardState, GuildConfig
from bot.store.timestamps import sql_time

_config = cast(Table, GuildConfig.__table__)
_board = cast(Table, BoardState.__table__)

# Kept rows are those the write path creates: a member with points or a solve (in the period).
_BUILD_TOTALS_SQL = """
INSERT INTO member_total (guild_id, user_id, points, solved, reached_at)
SELECT :guild_id, user_id, sum(points), sum(solved),
       max(CASE WHEN points > 0 THEN finished_at END)
  FROM score
 WHERE guild_id = :guild_id
 GROUP BY user_id
HAVING sum(points) > 0 OR sum(solved) > 0
"""
_BUILD_PERIOD_SQL = """
INSERT INTO member_period (guild_id, kind, period_start, user_id, points, solved, reached_at)
SELECT :guild_id, :kind, :start, user_id, sum(points), sum(solved),
       max(CASE WHEN points > 0 THEN finished_at END)
  FROM score
 WHERE guild_id = :guild_id AND finished_at >= :lo AND finished_at < :hi
 GROUP BY user_id
HAVING sum(points) > 0 OR sum(solved) > 0
"""
_SCORE_SPAN_SQL = "SELECT min(finished_at), max(finished_at) FROM score WHERE guild_id = ?"
_SET_BOARD_SQL = """
INSERT INTO board_state (guild_id, timezone, periods_from, built_at) VALUES (?, ?, ?, ?)
ON CONFLICT (guild_id) DO UPDATE SET timezone = excluded.timezone,
                                     periods_from = excluded.periods_from,
                                     built_at = excluded.built_at
"""

KEPT_WEEKS = 2
"""Weeks of day and week totals an automatic (re)build computes: the latest score's and the
one before. Older periods are answered from the scores; `rebuild_totals` does all."""

REZONE_AFTER = timedelta(minutes=10)
"""A reader asking an unconfigured server's leaderboard in another zone than its totals are
kept in re-zones them (the service's default zone is not known here), but at most this often:
two readers with different default zones must not rebuild on every call."""


@dataclass(frozen=True, slots=True)
class _BoardState:
    zone: str | None
    """The zone the server's period totals are kept in; None: totals not kept."""
    periods_from: date | None
    built_at: datetime | None
    configured: str | None
    """The server's configured zone (GuildConfig.timezone), if it is a known one."""

    def serves(self, key: tuple[str, date] | None, zone: str | None) -> bool:
        """The totals answer this period (all time: in any zone)."""
        if self.zone is None or key is None:
            return self.zone is not None
        return self.zone == zone and (self.periods_from is None or key[1] >= self.periods_from)

    def rebuild_in(self, zone: str | None, wall: datetime) -> str | None:
        """The zone to (re)build the totals in before a reader asking in `zone` can use them;
        None when that reader should aggregate scores instead."""
        if self.zone is None:
            return self.configured or zone or "UTC"
        if self.configured is not None:
            return self.configured if self.zone != self.configured else None
        stale = self.built_at is None or self.built_at <= wall - REZONE_AFTER
        return zone if zone is not None and zone != self.zone and stale else None


_board_of = _board.c.guild_id == bindparam("guild_id")
_BOARD_STATE = select(
    select(_board.c.timezone).where(_board_of).scalar_subquery(),
    select(_board.c.periods_from).where(_board_of).scalar_subquery(),
    select(_board.c.built_at).where(_board_of).scalar_subquery(),
    select(_config.c.timezone).where(_config.c.guild_id == bindparam("guild_id")).scalar_subquery(),
)


def board_state(conn: Connection, guild_id: int) -> _BoardState:
    zone, periods_from, built_at, configured = conn.execute(
        _BOARD_STATE, {"guild_id": guild_id}
    ).one()
    return _BoardState(zone, periods_from, built_at, _known_zone(configured))


def _known_zone(name: str | None) -> str | None:
    """A zone name that loads; None otherwise (the service then uses its default, too)."""
    if name is None:
        return None
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None
    return name


def build_board(
    conn: Connection, guild_id: int, zone: str, *, totals: bool, full: bool = False
) -> None:
    """Recompute the server's day and week totals in `zone` (the latest KEPT_WEEKS weeks, or
    all if `full`) and, if `totals`, its all-time totals, from its scores; record the zone.
    Cost: one grouped index range per local day and week rebuilt, plus a scan of the
    server's scores for `totals`."""
    tz = ZoneInfo(zone)
    cursor = conn.connection.cursor()
    if totals:
        cursor.execute("DELETE FROM member_total WHERE guild_id = ?", (guild_id,))
        cursor.execute(_BUILD_TOTALS_SQL, {"guild_id": guild_id})
    first, last = cursor.execute(_SCORE_SPAN_SQL, (guild_id,)).fetchone()
    since: date | None = None
    if full or first is None:
        cursor.execute("DELETE FROM member_period WHERE guild_id = ?", (guild_id,))
    else:
        # Older rows stay, in whatever zone they were, below `periods_from`: never read.
        latest = local_date(datetime.fromisoformat(last), tz)
        since = week_start(latest) - timedelta(weeks=KEPT_WEEKS - 1)
        cursor.execute(
            "DELETE FROM member_period WHERE guild_id = ? AND kind IN ('day', 'week')"
            " AND period_start >= ?",
            (guild_id, since.isoformat()),
        )
    if first is not None:
        day = since or local_date(datetime.fromisoformat(first), tz)
        end = local_date(datetime.fromisoformat(last), tz)
        buckets: list[dict[str, Any]] = []
        monday = week_start(day)
        while monday <= end:
            buckets.append(_bucket(guild_id, "week", monday, monday + timedelta(days=7), tz))
            monday += timedelta(days=7)
        while day <= end:
            buckets.append(_bucket(guild_id, "day", day, day + timedelta(days=1), tz))
            day += timedelta(days=1)
        cursor.executemany(_BUILD_PERIOD_SQL, buckets)
    wall = sql_time(to_utc_naive(datetime.now(UTC)))
    periods_from = None if since is None else since.isoformat()
    cursor.execute(_SET_BOARD_SQL, (guild_id, zone, periods_from, wall))


def _bucket(guild_id: int, kind: str, start: date, end: date, tz: ZoneInfo) -> dict[str, Any]:
    lo, hi = sql_time(day_start(start, tz)), sql_time(day_start(end, tz))
    return {"guild_id": guild_id, "kind": kind, "start": start.isoformat(), "lo": lo, "hi": hi}


def rebuild_totals(conn: Connection, guild_id: int | None, tz: ZoneInfo | None) -> int:
    """`Store.rebuild_totals` inside its write unit of work."""
    if guild_id is None:
        guilds = list(
            conn.exec_driver_sql(
                "SELECT guild_id FROM score GROUP BY guild_id"
                " UNION SELECT guild_id FROM board_state"
            ).scalars()
        )
    else:
        guilds = [guild_id]
    for guild in guilds:
        state = board_state(conn, guild)
        zone = (tz and tz.key) or state.configured or state.zone or "UTC"
        build_board(conn, guild, zone, totals=True, full=True)
    return len(guilds)
