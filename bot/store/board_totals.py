"""Building the per-member totals that leaderboards read, and deciding when to.

Leaderboards read per-member totals (`member_total`, and `member_period` per local day and
ISO week) that the answer write path adds each new score to, so a leaderboard is an index
read, whatever the number of scores. `score` stays the truth: the totals are rebuilt from it
here, when a server's first leaderboard is asked, when its zone changes, and on demand.

Decides which periods and zone the kept totals serve (`_BoardState.serves`), when and in which
zone they are (re)built (`_BoardState.rebuild_in`) and what a build writes; a new score is
added by the answer unit (`answers.add_scores`). Only public posts' scores count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Date,
    Integer,
    Select,
    String,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    union,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.sql.base import ReadOnlyColumnCollection

from bot.clock import day_start, load_zone, local_date, week_start
from bot.store.answers import lock_boards, period_keys
from bot.store.dialect import upsert
from bot.store.posts import public_scores
from bot.store.tables import (
    PERIOD_KINDS,
    BoardState,
    GuildConfig,
    MemberPeriod,
    MemberTotal,
    Score,
    table_of,
)

_config = table_of(GuildConfig)
_board = table_of(BoardState)
_score = table_of(Score)
_total = table_of(MemberTotal)
_period = table_of(MemberPeriod)

_p_guild = bindparam("guild_id", type_=BigInteger)


def counted_solves(s: ReadOnlyColumnCollection[str, Any]) -> ColumnElement[Any]:
    """The solves a leaderboard counts among the scores `s`: those that scored. A solve for no
    points is of a task whose points another post decided (a task's points and misses count
    once, `Progress.scores_none`); any other solve scores at least 2."""
    return func.sum(case((s.points > 0, sql_cast(s.solved, Integer)), else_=0))


def _sums(keys: Sequence[ColumnElement[Any]], *where: ColumnElement[bool]) -> Select[Any]:
    """Rows of a totals table from the server's public scores matching `where`: the row's
    bound `keys`, then each member's sums. Kept rows are those the write path creates: a
    member with points or a solve."""
    s = _score.c
    points = func.sum(s.points)
    solved = counted_solves(s)
    reached_at = func.max(case((s.points > 0, s.finished_at)))
    return (
        select(*keys, s.user_id, points, solved, reached_at)
        .where(s.guild_id == _p_guild, public_scores(s.post_id), *where)
        .group_by(s.user_id)
        .having(or_(points > 0, solved > 0))
    )


_sum_columns = ["user_id", "points", "solved", "reached_at"]
_BUILD_TOTALS = insert(_total).from_select(["guild_id", *_sum_columns], _sums([_p_guild]))
_BUILD_PERIOD = insert(_period).from_select(
    ["guild_id", "kind", "period_start", *_sum_columns],
    _sums(
        [_p_guild, bindparam("kind", type_=String), bindparam("start", type_=Date)],
        _score.c.finished_at >= bindparam("lo"),
        _score.c.finished_at < bindparam("hi"),
    ),
)
_SCORE_SPAN = select(func.min(_score.c.finished_at), func.max(_score.c.finished_at)).where(
    _score.c.guild_id == _p_guild
)
_CLEAR_TOTALS = delete(_total).where(_total.c.guild_id == _p_guild)
_CLEAR_PERIODS = delete(_period).where(_period.c.guild_id == _p_guild)
# Both kinds named: the deletion is then index ranges on (guild, kind, period_start).
_CLEAR_PERIODS_SINCE = delete(_period).where(
    _period.c.guild_id == _p_guild,
    _period.c.kind.in_(PERIOD_KINDS),
    _period.c.period_start >= bindparam("since"),
)
_SCORED_GUILDS = union(
    select(_score.c.guild_id).group_by(_score.c.guild_id), select(_board.c.guild_id)
)

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
    if name is None or load_zone(name) is None:
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
    guild = {"guild_id": guild_id}
    if totals:
        conn.execute(_CLEAR_TOTALS, guild)
        conn.execute(_BUILD_TOTALS, guild)
    first, last = conn.execute(_SCORE_SPAN, guild).one()
    since: date | None = None
    if full or first is None:
        conn.execute(_CLEAR_PERIODS, guild)
    else:
        # Older rows stay, in whatever zone they were, below `periods_from`: never read.
        since = week_start(local_date(last, tz)) - timedelta(weeks=KEPT_WEEKS - 1)
        conn.execute(_CLEAR_PERIODS_SINCE, {**guild, "since": since})
    if first is not None:
        day = since or local_date(first, tz)
        days = (local_date(last, tz) - day).days + 1
        # Every bucket a score of those days counts toward, by the answers' own rule.
        keys = {key for n in range(days) for key in period_keys(day + timedelta(days=n))}
        conn.execute(_BUILD_PERIOD, [_bucket(guild_id, *key, tz) for key in sorted(keys)])
    record = upsert(conn, _board, ["guild_id"])
    wall = datetime.now(UTC)
    conn.execute(record, {**guild, "timezone": zone, "periods_from": since, "built_at": wall})


def _bucket(guild_id: int, kind: str, start: date, tz: ZoneInfo) -> dict[str, Any]:
    end = start + timedelta(days=7 if kind == "week" else 1)
    lo, hi = day_start(start, tz), day_start(end, tz)
    return {"guild_id": guild_id, "kind": kind, "start": start, "lo": lo, "hi": hi}


def rebuild_totals(conn: Connection, guild_id: int | None, tz: ZoneInfo | None) -> int:
    """Recompute the totals of one server (or of every server with scores or totals) from the
    scores, every day and week, in `tz`, else the configured zone, else the kept one, else UTC:
    for databases written around the store, or repairs. Holds the write lock throughout
    (seconds per million scores). The number of servers."""
    if tz is not None and tz.key is None:
        raise ValueError("rebuild_totals needs a zone with an IANA key")
    guilds = sorted(conn.execute(_SCORED_GUILDS).scalars()) if guild_id is None else [guild_id]
    for guild in guilds:
        lock_boards(conn, [guild])
        state = board_state(conn, guild)
        zone = (tz and tz.key) or state.configured or state.zone or "UTC"
        build_board(conn, guild, zone, totals=True, full=True)
    return len(guilds)
