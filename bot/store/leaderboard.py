"""Ranking a server's members: who is ranked, in what order, and the asker's own rank.

Order: points, solves that scored (`board_totals.counted_solves`), who reached their total
first, user id; members without points are not ranked; only public posts count. Read from the
kept totals when they serve the period and zone, else aggregated from the scores (the
reference, and the fallback when a build is refused: a leaderboard never fails for a write).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import (
    CTE,
    BindParameter,
    ColumnElement,
    Connection,
    FromClause,
    Integer,
    Row,
    ScalarSelect,
    Select,
    Table,
    and_,
    bindparam,
    case,
    func,
    null,
    or_,
    select,
    tuple_,
    union_all,
)

from bot.quiz.errors import StoreError
from bot.store.answers import lock_boards
from bot.store.board_totals import board_state, build_board, counted_solves
from bot.store.periods import Period, period_bounds, period_key
from bot.store.posts import public_scores
from bot.store.tables import Member, MemberPeriod, MemberTotal, Score, table_of


@dataclass(frozen=True, slots=True)
class Rank:
    rank: int
    user_id: int
    name: str
    points: int
    solved: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    rows: list[Rank]
    me: Rank | None
    """The asking member's rank, even outside `rows`; None without points in the period."""
    zone: str
    """The zone whose local days and weeks it counted (the server's): its footer names it."""


log = logging.getLogger(__name__)

_member = table_of(Member)
_score = table_of(Score)
_total = table_of(MemberTotal)
_period = table_of(MemberPeriod)

_p_guild: BindParameter[int] = bindparam("guild_id")
_p_me: BindParameter[int] = bindparam("me")
_p_limit = bindparam("limit", type_=Integer)


def _picked(top: CTE, me: CTE, better: ScalarSelect[Any] | ColumnElement[Any]) -> Select[Any]:
    """The top rows (`better` NULL) and the asker's row (with `better`: how many members rank
    before them), each with the member's name."""
    picked = union_all(
        select(*top.c, null().label("better")), select(*me.c, better.label("better"))
    ).cte("picked")
    named = picked.outerjoin(
        _member, and_(_member.c.guild_id == _p_guild, _member.c.user_id == picked.c.user_id)
    )
    return select(*picked.c, _member.c.name).select_from(named)


def _board_statement(table: Table, *key: ColumnElement[bool]) -> Select[Any]:
    """A leaderboard read from a totals table, `key` selecting the server (and the period's
    bucket): the top `limit` are the first entries of its rank index, and the asker's rank is
    the number of entries before theirs, counted as three index ranges (more points; as many
    points and more solves; both equal and reached earlier, or at the same time with a lower
    id)."""
    c = table.c
    ranked = (c.user_id, c.points, c.solved, c.reached_at)
    top = (
        select(*ranked)
        .where(*key, c.points > 0)
        .order_by(c.points.desc(), c.solved.desc(), c.reached_at, c.user_id)
        .limit(_p_limit)
        .cte("top")
    )
    me = select(*ranked).where(*key, c.user_id == _p_me, c.points > 0).cte("me")

    def entries(*where: ColumnElement[bool]) -> ScalarSelect[int]:
        return select(func.count()).select_from(table).where(*key, *where).scalar_subquery()

    same_points = c.points == me.c.points
    better = (
        entries(c.points > me.c.points)
        + entries(same_points, c.solved > me.c.solved)
        + entries(
            same_points,
            c.solved == me.c.solved,
            c.reached_at <= me.c.reached_at,
            or_(c.reached_at < me.c.reached_at, c.user_id < me.c.user_id),
        )
    )
    return _picked(top, me, better)


def _exact_statement(*period: ColumnElement[bool]) -> Select[Any]:
    """A leaderboard aggregated from the scores (those matching `period`). Only the top
    `limit` are sorted (a bounded sort); the asker's rank counts the members ahead of them in
    the same materialised totals, the row value (-points, -solved, reached_at, user_id)
    ordering members exactly as the ORDER BY does."""
    s = _score.c
    totals = (
        select(
            s.user_id,
            func.sum(s.points).label("points"),
            counted_solves(s).label("solved"),
            func.max(case((s.points > 0, s.finished_at))).label("reached_at"),
        )
        .where(s.guild_id == _p_guild, public_scores(s.post_id), *period)
        .group_by(s.user_id)
        .having(func.sum(s.points) > 0)
        .cte("totals")
    )
    t = totals.c
    top = (
        select(totals)
        .order_by(t.points.desc(), t.solved.desc(), t.reached_at, t.user_id)
        .limit(_p_limit)
        .cte("top")
    )
    me = select(totals).where(t.user_id == _p_me).cte("me")
    other = totals.alias("t")

    def order(rows: FromClause) -> ColumnElement[Any]:
        r = rows.c
        return tuple_(-r.points, -r.solved, r.reached_at, r.user_id)

    better = select(func.count()).select_from(other).where(order(other) < order(me))
    return _picked(top, me, better.scalar_subquery())


_TOTAL_BOARD = _board_statement(_total, _total.c.guild_id == _p_guild)
_PERIOD_BOARD = _board_statement(
    _period,
    _period.c.guild_id == _p_guild,
    _period.c.kind == bindparam("kind"),
    _period.c.period_start == bindparam("start"),
)
_EXACT_ALL_TIME = _exact_statement()
_EXACT_PERIOD = _exact_statement(
    _score.c.finished_at >= bindparam("start"), _score.c.finished_at < bindparam("end")
)


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
    """A server's leaderboard: the first attempt may (re)build the totals, the second reads."""
    key = period_key(period, tz, now)
    for attempt in range(2):
        with units.read() as conn:
            state = board_state(conn, guild_id)
            if state.serves(key, tz.key):
                return _ranked(_board_rows(conn, guild_id, key, user_id, limit), user_id, tz)
            zone = None
            if attempt == 0:
                zone = state.rebuild_in(tz.key, datetime.now(UTC))
            if zone is None:
                return _ranked(
                    _exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id, tz
                )
        try:
            with units.write() as conn:
                lock_boards(conn, [guild_id])
                state = board_state(conn, guild_id)  # again, now under the write lock
                if not state.serves(key, tz.key) and state.zone != zone:
                    build_board(conn, guild_id, zone, totals=state.zone is None)
        except StoreError as exc:
            # A reader must not fail because the database cannot be written right now (a full
            # disk, a read-only file, a held lock): the scores still give the exact answer.
            # The unit of work logged the fault; this notes what the reader did about it.
            log.warning(
                "leaderboard of server %s aggregated from the scores: its totals could not "
                "be built (%s)",
                guild_id,
                exc.fault,
            )
            with units.read() as conn:
                return _ranked(
                    _exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id, tz
                )
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
    return _ranked(_exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id, tz)


def _ranked(found: Sequence[Row[Any]], user_id: int | None, tz: ZoneInfo) -> Leaderboard:
    """The rows of a leaderboard statement (top rows, and the asker's with `better`) ranked;
    `tz`: the zone its days and weeks were counted in."""
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
    return Leaderboard(rows, me, str(tz))


def _board_rows(
    conn: Connection,
    guild_id: int,
    key: tuple[str, date] | None,
    user_id: int | None,
    limit: int,
) -> Sequence[Row[Any]]:
    params: dict[str, Any] = {"guild_id": guild_id, "me": user_id, "limit": limit}
    if key is None:
        return conn.execute(_TOTAL_BOARD, params).all()
    params["kind"], params["start"] = key
    return conn.execute(_PERIOD_BOARD, params).all()


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
    params: dict[str, Any] = {"guild_id": guild_id, "me": user_id, "limit": limit}
    if start is None:
        return conn.execute(_EXACT_ALL_TIME, params).all()
    params["start"], params["end"] = start, end
    return conn.execute(_EXACT_PERIOD, params).all()
