"""Ranking a server's members, from the maintained totals or, as the reference and fallback,
by aggregating their scores."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, date, datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Row

from bot.store.board_totals import board_state, build_board
from bot.store.periods import Period, period_bounds, period_key, to_utc_naive
from bot.store.records import Leaderboard, Rank
from bot.store.timestamps import sql_time

# Leaderboards are read from the maintained totals (`member_total`, `member_period`): the top
# `limit` are the first entries of the rank index, and the asking member's rank is the number
# of entries before theirs, counted as three index ranges (more points; as many points and
# more solves; both equal and reached earlier, or at the same time with a lower id). The
# `{key}` selects the server, and for a period the bucket.
_BOARD_SQL = """
WITH top AS (
    SELECT user_id, points, solved, reached_at FROM {table}
     WHERE {key} AND points > 0
     ORDER BY points DESC, solved DESC, reached_at, user_id
     LIMIT :limit
),
me AS (
    SELECT user_id, points, solved, reached_at FROM {table}
     WHERE {key} AND user_id = :me AND points > 0
),
picked AS (
    SELECT top.*, NULL AS better FROM top
    UNION ALL
    SELECT me.*,
           (SELECT count(*) FROM {table} WHERE {key} AND points > me.points)
         + (SELECT count(*) FROM {table}
             WHERE {key} AND points = me.points AND solved > me.solved)
         + (SELECT count(*) FROM {table}
             WHERE {key} AND points = me.points AND solved = me.solved
               AND reached_at <= me.reached_at
               AND (reached_at < me.reached_at OR user_id < me.user_id))
      FROM me
)
SELECT picked.user_id, picked.points, picked.solved, picked.reached_at, picked.better,
       member.name
  FROM picked
  LEFT JOIN member ON member.guild_id = :guild_id AND member.user_id = picked.user_id
"""
_TOTAL_BOARD_SQL = _BOARD_SQL.format(table="member_total", key="guild_id = :guild_id")
_PERIOD_BOARD_SQL = _BOARD_SQL.format(
    table="member_period",
    key="guild_id = :guild_id AND kind = :kind AND period_start = :start",
)

# The reference, and the fallback when the totals are not kept in the asked zone: aggregate the
# scores. Only the top `limit` are sorted (a bounded sort), and the asking member's rank is a
# count of members ahead of them, read from the same materialised totals. The row value
# (-points, -solved, reached_at, user_id) orders members exactly as the ORDER BY does.
_EXACT_LEADERBOARD_SQL = """
WITH totals AS (
    SELECT user_id, sum(points) AS points, sum(solved) AS solved,
           max(CASE WHEN points > 0 THEN finished_at END) AS reached_at
      FROM score
     WHERE guild_id = :guild_id {period}
     GROUP BY user_id
    HAVING sum(points) > 0
),
top AS (
    SELECT * FROM totals ORDER BY points DESC, solved DESC, reached_at, user_id LIMIT :limit
),
me AS (SELECT * FROM totals WHERE user_id = :me),
picked AS (
    SELECT top.*, NULL AS better FROM top
    UNION ALL
    SELECT me.*, (SELECT count(*) FROM totals AS t
                   WHERE (-t.points, -t.solved, t.reached_at, t.user_id)
                       < (-me.points, -me.solved, me.reached_at, me.user_id))
      FROM me
)
SELECT picked.user_id, picked.points, picked.solved, picked.reached_at, picked.better,
       member.name
  FROM picked
  LEFT JOIN member ON member.guild_id = :guild_id AND member.user_id = picked.user_id
"""
_EXACT_PERIOD_FILTER = "AND finished_at >= :start AND finished_at < :end"


class UnitsOfWork(Protocol):
    """What `Store` offers: a leaderboard may read, build the totals, then read again."""

    def read(self) -> AbstractContextManager[Connection]: ...

    def write(self) -> AbstractContextManager[Connection]: ...


def leaderboard(
    units: UnitsOfWork,
    guild_id: int,
    period: Period | str,
    tz: ZoneInfo,
    now: datetime,
    user_id: int | None,
    limit: int,
) -> Leaderboard:
    """`Store.leaderboard`: the first attempt may (re)build the totals, the second reads."""
    key = period_key(period, tz, now)
    for attempt in range(2):
        with units.read() as conn:
            state = board_state(conn, guild_id)
            if state.serves(key, tz.key):
                return _ranked(_board_rows(conn, guild_id, key, user_id, limit), user_id)
            zone = None
            if attempt == 0:
                zone = state.rebuild_in(tz.key, to_utc_naive(datetime.now(UTC)))
            if zone is None:
                return _ranked(
                    _exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id
                )
        with units.write() as conn:
            state = board_state(conn, guild_id)  # again, now under the write lock
            if not state.serves(key, tz.key) and state.zone != zone:
                build_board(conn, guild_id, zone, totals=state.zone is None)
    raise AssertionError("unreachable: the second attempt returns")


def leaderboard_exact(
    conn: Connection,
    guild_id: int,
    period: Period | str,
    tz: ZoneInfo,
    now: datetime,
    user_id: int | None,
    limit: int,
) -> Leaderboard:
    return _ranked(_exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id)


def _ranked(found: Sequence[Row[Any]], user_id: int | None) -> Leaderboard:
    """The rows of a leaderboard statement (top rows, and the asker's with `better`) ranked."""
    found = sorted(found, key=lambda r: (-r.points, -r.solved, r.reached_at, r.user_id))
    rows = [
        Rank(n, r.user_id, r.name or str(r.user_id), r.points, r.solved)
        for n, r in enumerate((r for r in found if r.better is None), 1)
    ]
    me = next((r for r in rows if r.user_id == user_id), None)
    if me is None:
        me = next(
            (
                Rank(r.better + 1, r.user_id, r.name or str(r.user_id), r.points, r.solved)
                for r in found
                if r.better is not None
            ),
            None,
        )
    return Leaderboard(rows, me)


def _board_rows(
    conn: Connection,
    guild_id: int,
    key: tuple[str, date] | None,
    user_id: int | None,
    limit: int,
) -> Sequence[Row[Any]]:
    params: dict[str, Any] = {"guild_id": guild_id, "me": user_id, "limit": limit}
    if key is None:
        return conn.exec_driver_sql(_TOTAL_BOARD_SQL, params).all()
    params["kind"], params["start"] = key[0], key[1].isoformat()
    return conn.exec_driver_sql(_PERIOD_BOARD_SQL, params).all()


def _exact_rows(
    conn: Connection,
    guild_id: int,
    period: Period | str,
    tz: ZoneInfo,
    now: datetime,
    user_id: int | None,
    limit: int,
) -> Sequence[Row[Any]]:
    start, end = period_bounds(period, tz, now)
    sql = _EXACT_LEADERBOARD_SQL.format(period="" if start is None else _EXACT_PERIOD_FILTER)
    params = {
        "guild_id": guild_id,
        "me": user_id,
        "limit": limit,
        "start": None if start is None else sql_time(start),
        "end": None if end is None else sql_time(end),
    }
    return conn.exec_driver_sql(sql, params).all()
