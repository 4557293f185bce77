"""Building the per-member totals that leaderboards read, and deciding when to.

Leaderboards read per-member totals (`member_total`, and `member_period` per local day and
ISO week) that the answer write path adds each new score to, so a leaderboard is an index
read, whatever the number of scores. `score` stays the truth: the totals are rebuilt from it
here, when a server's first leaderboard is asked, when its zone changes, and on demand.

Decides: which periods and zone the kept totals serve (`_BoardState.serves`), when and in
which zone they are (re)built (`_BoardState.rebuild_in`), what a build writes, and how a new
score adds to them (`add_scores`, called by the answer write path in its own transaction).
Private practice and review posts never count: the write path adds only public scores, and a
build sums only public ones (`posts.public_scores`).
"""

from __future__ import annotations

from collections import defaultdict
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
    Table,
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
from bot.store import dialect
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


def lock_boards(conn: Connection, guild_ids: Sequence[int], *, shared: bool = False) -> None:
    """Keep the servers' totals from being built and added to at once (on PostgreSQL, where
    writers run side by side): a build (exclusive) waits for the writers adding scores
    (shared), and they for it, so a score is either in the build's sums or added after it,
    never both nor neither. Take it before reading `board_state`."""
    dialect.lock(conn, "board", guild_ids, shared=shared)


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
        end = local_date(last, tz)
        buckets: list[dict[str, Any]] = []
        monday = week_start(day)
        while monday <= end:
            buckets.append(_bucket(guild_id, "week", monday, monday + timedelta(days=7), tz))
            monday += timedelta(days=7)
        while day <= end:
            buckets.append(_bucket(guild_id, "day", day, day + timedelta(days=1), tz))
            day += timedelta(days=1)
        conn.execute(_BUILD_PERIOD, buckets)
    record = upsert(conn, _board, ["guild_id"])
    wall = datetime.now(UTC)
    conn.execute(record, {**guild, "timezone": zone, "periods_from": since, "built_at": wall})


def _bucket(guild_id: int, kind: str, start: date, end: date, tz: ZoneInfo) -> dict[str, Any]:
    lo, hi = day_start(start, tz), day_start(end, tz)
    return {"guild_id": guild_id, "kind": kind, "start": start, "lo": lo, "hi": hi}


def rebuild_totals(conn: Connection, guild_id: int | None, tz: ZoneInfo | None) -> int:
    """`Store.rebuild_totals` inside its write unit of work."""
    guilds = sorted(conn.execute(_SCORED_GUILDS).scalars()) if guild_id is None else [guild_id]
    for guild in guilds:
        lock_boards(conn, [guild])
        state = board_state(conn, guild)
        zone = (tz and tz.key) or state.configured or state.zone or "UTC"
        build_board(conn, guild, zone, totals=True, full=True)
    return len(guilds)


# -- adding new scores (the answer write path) --------------------------------------------------

_BOARDS_OF = select(_board.c.guild_id, _board.c.timezone, _board.c.periods_from).where(
    _board.c.guild_id.in_(bindparam("guilds", expanding=True))
)
def _adders(conn: Connection) -> tuple[Any, Any]:
    """The upserts that add sums to `member_total` and `member_period`, built once per engine."""
    return dialect.built_once(
        conn,
        "totals adders",
        lambda c: (
            _totals_upsert(c, _total, ("guild_id", "user_id")),
            _totals_upsert(c, _period, ("guild_id", "kind", "period_start", "user_id")),
        ),
    )


def add_scores(conn: Connection, scores: list[dict[str, Any]], now: datetime) -> None:
    """Add new scores to their members' kept totals (servers without a `board_state` row keep
    none: their leaderboards aggregate scores until the first build). Public posts' scores
    only: the caller leaves private ones out."""
    # Fails, forfeits and solves whose points another post decided add nothing
    # (`counted_solves`); every other solve scores.
    earning = [s for s in scores if s["points"]]
    if not earning:
        return
    guilds = sorted({s["guild_id"] for s in earning})
    lock_boards(conn, guilds, shared=True)
    boards = {
        row.guild_id: (row.timezone, row.periods_from)
        for row in conn.execute(_BOARDS_OF, {"guilds": guilds}).all()
    }
    totals: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    periods: dict[tuple[int, str, date, int], list[int]] = defaultdict(lambda: [0, 0])
    for s in earning:
        board = boards.get(s["guild_id"])
        if board is None:
            continue
        zone, periods_from = board
        sums = totals[(s["guild_id"], s["user_id"])]
        sums[0] += s["points"]
        sums[1] += int(s["solved"])
        day = local_date(now, ZoneInfo(zone))
        if periods_from is not None and day < periods_from:
            continue  # a day before the kept ones (a clock running behind): never read
        for kind, start in (("day", day), ("week", week_start(day))):
            sums = periods[(s["guild_id"], kind, start, s["user_id"])]
            sums[0] += s["points"]
            sums[1] += int(s["solved"])
    if totals:
        rows: list[dict[str, Any]] = [
            {
                "guild_id": g,
                "user_id": u,
                "points": p,
                "solved": n,
                "reached_at": now if p else None,
            }
            # In key order: concurrent writers (PostgreSQL) lock the rows in one order.
            for (g, u), (p, n) in sorted(totals.items())
        ]
        conn.execute(_adders(conn)[0], rows)
    if periods:
        rows = [
            {
                "guild_id": g,
                "kind": kind,
                "period_start": start,
                "user_id": u,
                "points": p,
                "solved": n,
                "reached_at": now if p else None,
            }
            for (g, kind, start, u), (p, n) in sorted(periods.items())
        ]
        conn.execute(_adders(conn)[1], rows)


def _totals_upsert(conn: Connection, table: Table, key: tuple[str, ...]) -> Any:
    return dialect.upsert(
        conn,
        table,
        key,
        lambda new: {
            "points": table.c.points + new.points,
            "solved": table.c.solved + new.solved,
            # reached_at is NULL for a score without points, and on a row that has none yet.
            "reached_at": dialect.greatest(conn, table.c.reached_at, new.reached_at),
        },
    )
