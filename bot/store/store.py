"""The unit-of-work layer: every public method is one short transaction.

Sync on purpose: the async service runs these methods in a worker thread. Nothing returned
is an ORM object (only frozen dataclasses and plain values), so results can cross threads.

Reads are SQLAlchemy Core. The write path of answers and reveals (`_Writes`) runs a few
fixed SQL statements straight on the unit of work's DBAPI cursor: measured, SQLAlchemy's
per-statement overhead (~35 µs, plus compiling a SAVEPOINT each time) was 90% of an answer's
cost, and the group-committed answer path is the one that must keep up with bursts.

Leaderboards read per-member totals (`member_total`, and `member_period` per local day and
ISO week) that the same write units add each new score to, so a leaderboard is an index
read, whatever the number of scores. `score` stays the truth: `leaderboard_exact` aggregates
it (the reference the totals are tested against, and the fallback for a zone or period the
totals are not kept for), and `rebuild_totals` recomputes the totals from it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import (
    Connection,
    Engine,
    Row,
    Table,
    and_,
    bindparam,
    distinct,
    func,
    or_,
    select,
    true,
    union,
    update,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.pool import StaticPool

from bot.quiz.engine import Outcome, Progress, Status, forfeit, see_hint
from bot.quiz.errors import AttemptLimitError, PostClosedError, UnknownPostError
from bot.quiz.tasks import MAX_ATTEMPTS
from bot.store.db import writer
from bot.store.periods import (
    Period,
    day_start,
    from_utc_naive,
    local_date,
    period_bounds,
    period_key,
    to_utc_naive,
    week_start,
)
from bot.store.tables import (
    POST_POLICIES,
    Attempt,
    BoardState,
    GuildConfig,
    Member,
    Post,
    Reveal,
    Score,
)

_member = cast(Table, Member.__table__)
_config = cast(Table, GuildConfig.__table__)
_post = cast(Table, Post.__table__)
_attempt = cast(Table, Attempt.__table__)
_reveal = cast(Table, Reveal.__table__)
_score = cast(Table, Score.__table__)
_board = cast(Table, BoardState.__table__)


# ---------------------------------------------------------------------------------------------
# Values that leave the store
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PostInfo:
    """A posted task. Timestamps are aware UTC datetimes."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    task_id: str
    posted_by: int | None
    posted_at: datetime
    schedule_id: int | None = None
    closes_at: datetime | None = None
    closed_at: datetime | None = None

    def is_closed(self, now: datetime) -> bool:
        """Closed explicitly, or past its closing time."""
        if self.closed_at is not None:
            return True
        return self.closes_at is not None and to_utc_naive(now) >= to_utc_naive(self.closes_at)


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    post_id: int
    guild_id: int
    user_id: int
    member_name: str
    picks: tuple[str, ...]


Grader = Callable[[AnswerRequest, Progress], Outcome]
"""Grades one request given the member's progress; pure (the engine's `grade` on the task)."""


@dataclass(frozen=True, slots=True)
class PostCounts:
    """Distinct members who answered, solved, and solved on the first try."""

    answered: int
    solved: int
    first_try: int


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


@dataclass(frozen=True, slots=True)
class MemberStats:
    tried: int
    """Distinct posts answered at least once or finished (a forfeit counts)."""
    solved: int
    first_try: int
    first_try_rate: float
    """Posts solved on the first try / posts tried; 0.0 when none tried."""
    points: int
    streak_days: int
    """Consecutive local days, ending today or yesterday, with at least one answer."""
    last_active: datetime | None
    """Latest answer or finish, aware UTC."""


@dataclass(frozen=True, slots=True)
class GuildConfigInfo:
    guild_id: int
    timezone: str | None = None
    mod_role_id: int | None = None
    post_policy: str = "anyone"
    cooldown_seconds: int = 30

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone or "UTC")


CONFIG_FIELDS = frozenset({"timezone", "mod_role_id", "post_policy", "cooldown_seconds"})


# ---------------------------------------------------------------------------------------------
# Precompiled statements (bound by name at execution)
# ---------------------------------------------------------------------------------------------

_p_post = bindparam("post_id")
_p_user = bindparam("user_id")

_sql_time = cast(Callable[[datetime], str], sqlite.DATETIME().bind_processor(sqlite.dialect()))
"""A naive UTC datetime in the exact text form SQLAlchemy stores, so raw-SQL values and
Core values compare correctly as strings."""

# The member's progress is derived from attempts and reveals (never stored twice); the post's
# guild and closing state come along so one statement serves the whole check.
_STATE_SQL = """
SELECT p.guild_id,
       p.closed_at IS NOT NULL OR (p.closes_at IS NOT NULL AND p.closes_at <= :now),
       (SELECT count(*) FROM attempt
         WHERE post_id = :post_id AND user_id = :user_id AND NOT correct),
       EXISTS (SELECT 1 FROM attempt
                WHERE post_id = :post_id AND user_id = :user_id AND correct),
       EXISTS (SELECT 1 FROM reveal
                WHERE post_id = :post_id AND user_id = :user_id AND kind = 'hint'),
       EXISTS (SELECT 1 FROM reveal
                WHERE post_id = :post_id AND user_id = :user_id AND kind = 'solution'),
       (SELECT points FROM score WHERE post_id = :post_id AND user_id = :user_id)
  FROM post p
 WHERE p.id = :post_id
"""

# The WHERE keeps the common case (same name as last time) from rewriting the row.
_UPSERT_MEMBER_SQL = """
INSERT INTO member (guild_id, user_id, name, first_seen) VALUES (?, ?, ?, ?)
ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name
 WHERE member.name IS NOT excluded.name
"""

_INSERT_ATTEMPT_SQL = """
INSERT INTO attempt (post_id, guild_id, user_id, attempt_no, picks, correct, created_at)
VALUES (?, ?, ?, ?, ?, ?, ?)
"""

_INSERT_SCORE_SQL = """
INSERT INTO score (post_id, user_id, guild_id, points, solved, first_try, wrong_tries,
                   hint_seen, forfeited, finished_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""

_INSERT_REVEAL_SQL = """
INSERT INTO reveal (post_id, user_id, kind, guild_id, created_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING
"""

# Adding one score to a member's totals. Unqualified names are the stored row's values; SQLite's
# max() of several arguments is NULL if any is, hence the coalesce (reached_at is NULL for a
# score without points, and on a row that has none yet).
_ADD_TO_TOTALS = """
DO UPDATE SET points = points + excluded.points,
              solved = solved + excluded.solved,
              reached_at = coalesce(max(reached_at, excluded.reached_at),
                                    reached_at, excluded.reached_at)
"""

_ADD_TOTAL_SQL = (
    """
INSERT INTO member_total (guild_id, user_id, points, solved, reached_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (guild_id, user_id)
"""
    + _ADD_TO_TOTALS
)

_ADD_PERIODS_SQL = (
    """
INSERT INTO member_period (guild_id, kind, period_start, user_id, points, solved, reached_at)
VALUES (?, 'day', ?, ?, ?, ?, ?), (?, 'week', ?, ?, ?, ?, ?)
ON CONFLICT (guild_id, kind, period_start, user_id)
"""
    + _ADD_TO_TOTALS
)

_BOARD_ZONE_SQL = "SELECT timezone, periods_from FROM board_state WHERE guild_id = ?"

StateRow = tuple[int, int, int, int, int, int, int | None]


def _progress_of(row: StateRow | None) -> Progress:
    if row is None:
        return Progress()
    _guild, _closed, wrong, solved, hint, solution, points = row
    return Progress(
        wrong_tries=wrong,
        solved=bool(solved),
        hint_seen=bool(hint),
        forfeited=bool(solution) and not solved and wrong < MAX_ATTEMPTS,
        points=points or 0,
    )


class _Writes:
    """The write statements of answers and reveals, on a write unit of work's own cursor,
    all stamped with the unit of work's `now`.

    Values are bound as the DBAPI gets them: timestamps as `_sql_time` text, flags as 0/1.
    """

    def __init__(self, conn: Connection, now: datetime) -> None:
        self._cursor = conn.connection.cursor()
        self.moment = to_utc_naive(now)
        self.stamp = _sql_time(self.moment)
        self._boards: dict[int, tuple[str, str | None] | None] = {}
        """guild -> board_state (timezone, periods_from), None: totals not kept. Read once."""
        self._buckets: dict[str, tuple[str, str]] = {}
        """zone -> (local day, local Monday) of `moment`, as stored."""

    @contextlib.contextmanager
    def savepoint(self) -> Iterator[None]:
        self._cursor.execute("SAVEPOINT answer")
        try:
            yield
        except BaseException:
            # ROLLBACK TO keeps the savepoint open; RELEASE drops it.
            self._cursor.execute("ROLLBACK TO answer")
            self._cursor.execute("RELEASE answer")
            raise
        self._cursor.execute("RELEASE answer")

    def state(self, post_id: int, user_id: int, now: str) -> StateRow | None:
        params = {"post_id": post_id, "user_id": user_id, "now": now}
        return self._cursor.execute(_STATE_SQL, params).fetchone()

    def progress(self, post_id: int, guild_id: int, user_id: int) -> Progress:
        row = self.state(post_id, user_id, "")
        if row is None or row[0] != guild_id:
            raise UnknownPostError(f"no post {post_id} in this server")
        return _progress_of(row)

    def upsert_member(self, guild_id: int, user_id: int, name: str) -> None:
        self._cursor.execute(_UPSERT_MEMBER_SQL, (guild_id, user_id, name, self.stamp))

    def insert_attempt(self, request: AnswerRequest, attempt_no: int, correct: bool) -> None:
        self._cursor.execute(
            _INSERT_ATTEMPT_SQL,
            (
                request.post_id,
                request.guild_id,
                request.user_id,
                attempt_no,
                ",".join(request.picks),
                int(correct),
                self.stamp,
            ),
        )

    def insert_score(self, post_id: int, guild_id: int, user_id: int, progress: Progress) -> None:
        """The member finished the post: their score, and its share of their totals."""
        self._cursor.execute(
            _INSERT_SCORE_SQL,
            (
                post_id,
                user_id,
                guild_id,
                progress.points,
                int(progress.solved),
                int(progress.first_try),
                progress.wrong_tries,
                int(progress.hint_seen),
                int(progress.forfeited),
                self.stamp,
            ),
        )
        # A score without points or a solve changes no total (fails and forfeits).
        if progress.points or progress.solved:
            self._add_to_totals(guild_id, user_id, progress.points, int(progress.solved))

    def _add_to_totals(self, guild_id: int, user_id: int, points: int, solved: int) -> None:
        if guild_id in self._boards:
            board = self._boards[guild_id]
        else:
            board = self._boards[guild_id] = self._cursor.execute(
                _BOARD_ZONE_SQL, (guild_id,)
            ).fetchone()
        if board is None:
            return  # not kept: leaderboards aggregate scores until the first build
        zone, periods_from = board
        reached = self.stamp if points > 0 else None
        self._cursor.execute(_ADD_TOTAL_SQL, (guild_id, user_id, points, solved, reached))
        buckets = self._buckets.get(zone)
        if buckets is None:
            day = local_date(self.moment, ZoneInfo(zone))
            buckets = self._buckets[zone] = (day.isoformat(), week_start(day).isoformat())
        day_key, week_key = buckets
        if periods_from is not None and day_key < periods_from:
            return  # a day before the kept ones (a clock running behind): never read
        day = (guild_id, day_key, user_id, points, solved, reached)
        self._cursor.execute(_ADD_PERIODS_SQL, (*day, guild_id, week_key, *day[2:]))

    def insert_reveal(self, post_id: int, guild_id: int, user_id: int, kind: str) -> None:
        self._cursor.execute(_INSERT_REVEAL_SQL, (post_id, user_id, kind, guild_id, self.stamp))


_POST_COUNTS = select(
    select(func.count(distinct(_attempt.c.user_id)))
    .where(_attempt.c.post_id == _p_post)
    .scalar_subquery(),
    select(func.count())
    .where(_score.c.post_id == _p_post, _score.c.solved == true())
    .scalar_subquery(),
    select(func.count())
    .where(_score.c.post_id == _p_post, _score.c.first_try == true())
    .scalar_subquery(),
)

_LAST_ANSWER_BEFORE = select(func.max(_attempt.c.created_at)).where(
    _attempt.c.guild_id == bindparam("guild_id"),
    _attempt.c.user_id == _p_user,
    _attempt.c.created_at < bindparam("before"),
)

_FAR_FUTURE = datetime(9999, 1, 1)

# A member's counts, each from the member's own index range (attempts and scores by member).
_mine_a = and_(_attempt.c.guild_id == bindparam("guild_id"), _attempt.c.user_id == _p_user)
_mine_s = and_(_score.c.guild_id == bindparam("guild_id"), _score.c.user_id == _p_user)
_tried = union(
    select(_attempt.c.post_id).where(_mine_a), select(_score.c.post_id).where(_mine_s)
).subquery()
_STATS_SUMMARY = select(
    select(func.count()).select_from(_tried).scalar_subquery(),
    select(func.count()).where(_mine_s, _score.c.solved == true()).scalar_subquery(),
    select(func.count()).where(_mine_s, _score.c.first_try == true()).scalar_subquery(),
    select(func.coalesce(func.sum(_score.c.points), 0)).where(_mine_s).scalar_subquery(),
    select(func.max(_score.c.finished_at)).where(_mine_s).scalar_subquery(),
)

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

# Rebuilding a server's totals from its scores. Kept rows are those the write path creates: a
# member with points or a solve (in the period).
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


def _board_state(conn: Connection, guild_id: int) -> _BoardState:
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


def _build_board(
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
    wall = _sql_time(to_utc_naive(datetime.now(UTC)))
    periods_from = None if since is None else since.isoformat()
    cursor.execute(_SET_BOARD_SQL, (guild_id, zone, periods_from, wall))


def _bucket(guild_id: int, kind: str, start: date, end: date, tz: ZoneInfo) -> dict[str, Any]:
    lo, hi = _sql_time(day_start(start, tz)), _sql_time(day_start(end, tz))
    return {"guild_id": guild_id, "kind": kind, "start": start.isoformat(), "lo": lo, "hi": hi}


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
        "start": None if start is None else _sql_time(start),
        "end": None if end is None else _sql_time(end),
    }
    return conn.exec_driver_sql(sql, params).all()


def _aware(moment: datetime | None) -> datetime | None:
    return None if moment is None else from_utc_naive(moment)


def _post_info(row: Row[Any]) -> PostInfo:
    return PostInfo(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        message_id=row.message_id,
        task_id=row.task_id,
        posted_by=row.posted_by,
        posted_at=from_utc_naive(row.posted_at),
        schedule_id=row.schedule_id,
        closes_at=_aware(row.closes_at),
        closed_at=_aware(row.closed_at),
    )


def _config_info(row: Row[Any]) -> GuildConfigInfo:
    return GuildConfigInfo(
        guild_id=row.guild_id,
        timezone=row.timezone,
        mod_role_id=row.mod_role_id,
        post_policy=row.post_policy,
        cooldown_seconds=row.cooldown_seconds,
    )


def _answer_one(writes: _Writes, request: AnswerRequest, grade: Grader) -> Outcome:
    row = writes.state(request.post_id, request.user_id, writes.stamp)
    if row is None or row[0] != request.guild_id:
        raise UnknownPostError(f"no post {request.post_id} in this server")
    progress = _progress_of(row)
    if row[1] and not progress.finished:
        raise PostClosedError(f"post {request.post_id} is closed")

    outcome = grade(request, progress)
    if outcome.status not in _RECORDED:
        return outcome
    attempt_no = progress.attempts_used + 1
    try:
        writes.insert_attempt(request, attempt_no, outcome.status is Status.CORRECT)
        if outcome.progress.finished:
            writes.insert_score(
                request.post_id, request.guild_id, request.user_id, outcome.progress
            )
    except sqlite3.IntegrityError as exc:
        raise AttemptLimitError(
            f"attempt {attempt_no} on post {request.post_id} was refused"
        ) from exc
    return outcome


_RECORDED = frozenset({Status.CORRECT, Status.WRONG, Status.FAILED})


# ---------------------------------------------------------------------------------------------
# The store
# ---------------------------------------------------------------------------------------------


class Store:
    """All database access. Thread-safe: each call checks out its own pooled connection.

    Reads run in a deferred transaction (a consistent WAL snapshot, never blocked by writers);
    writes run in `BEGIN IMMEDIATE`, so read-then-write units (grading) are serialised by
    SQLite's write lock instead of failing with SQLITE_BUSY.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._writer = writer(engine)
        # An in-memory engine has a single shared connection; interleaving two threads'
        # transactions on it would mix them, so units of work take turns.
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if isinstance(engine.pool, StaticPool) else contextlib.nullcontext()
        )

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read unit of work (deferred BEGIN: a consistent snapshot). For store modules."""
        with self._serial, self.engine.connect() as conn, conn.begin():
            yield conn

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """A write unit of work (BEGIN IMMEDIATE); commits on exit, rolls back on error."""
        with self._serial, self._writer.begin() as conn:
            yield conn

    # The schedules store shares these units of work under their earlier private names.
    _read = read
    _write = write

    # -- members ------------------------------------------------------------------------------

    def upsert_member(
        self, guild_id: int, user_id: int, name: str, now: datetime | None = None
    ) -> None:
        """Remember a member's current display name (answers and reveals do this too)."""
        with self.write() as conn:
            _Writes(conn, now or datetime.now(UTC)).upsert_member(guild_id, user_id, name)

    def create_post(
        self,
        guild_id: int,
        channel_id: int,
        task_id: str,
        posted_by: int | None,
        *,
        schedule_id: int | None = None,
        closes_at: datetime | None = None,
        now: datetime,
    ) -> PostInfo:
        values = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "message_id": None,
            "task_id": task_id,
            "posted_by": posted_by,
            "posted_at": to_utc_naive(now),
            "schedule_id": schedule_id,
            "closes_at": None if closes_at is None else to_utc_naive(closes_at),
            "closed_at": None,
        }
        with self.write() as conn:
            result = conn.execute(_post.insert(), values)
            post_id = result.inserted_primary_key[0]  # type: ignore[index]
            row = conn.execute(select(_post).where(_post.c.id == post_id)).one()
        return _post_info(row)

    def set_post_message(self, post_id: int, message_id: int) -> None:
        with self.write() as conn:
            conn.execute(update(_post).where(_post.c.id == post_id).values(message_id=message_id))

    def get_post(self, post_id: int) -> PostInfo | None:
        with self.read() as conn:
            row = conn.execute(select(_post).where(_post.c.id == post_id)).first()
        return None if row is None else _post_info(row)

    def latest_post(self, guild_id: int, channel_id: int) -> PostInfo | None:
        stmt = (
            select(_post)
            .where(_post.c.guild_id == guild_id, _post.c.channel_id == channel_id)
            .order_by(_post.c.posted_at.desc(), _post.c.id.desc())
            .limit(1)
        )
        with self.read() as conn:
            row = conn.execute(stmt).first()
        return None if row is None else _post_info(row)

    def search_posts(self, guild_id: int, text: str, limit: int = 25) -> list[PostInfo]:
        """Most recent first; `text` matches a task id substring (case-insensitive for ASCII),
        or a post id when it is a number ("12" or "#12")."""
        text = text.strip()
        match = _post.c.task_id.contains(text, autoescape=True)
        number = text.removeprefix("#")
        if number.isdigit():
            match = or_(match, _post.c.id == int(number))
        stmt = (
            select(_post)
            .where(_post.c.guild_id == guild_id, match)
            .order_by(_post.c.posted_at.desc(), _post.c.id.desc())
            .limit(limit)
        )
        with self.read() as conn:
            return [_post_info(row) for row in conn.execute(stmt)]

    def close_post(self, post_id: int, now: datetime) -> bool:
        """Close a post for answers; False if it was already closed (or does not exist)."""
        stmt = (
            update(_post)
            .where(_post.c.id == post_id, _post.c.closed_at.is_(None))
            .values(closed_at=to_utc_naive(now))
        )
        with self.write() as conn:
            return conn.execute(stmt).rowcount == 1

    # -- progress and answers -----------------------------------------------------------------

    def progress(self, post_id: int, user_id: int) -> Progress:
        """A member's progress on a post (fresh progress for an unknown post)."""
        with self.read() as conn:
            row = (
                conn.connection.cursor()
                .execute(_STATE_SQL, {"post_id": post_id, "user_id": user_id, "now": ""})
                .fetchone()
            )
        return _progress_of(row)

    def answer(self, request: AnswerRequest, grade: Grader, now: datetime) -> Outcome:
        """A batch of one: raises what the batch would have put in the slot."""
        (result,) = self.answer_batch([request], grade, now)
        if isinstance(result, Exception):
            raise result
        return result

    def answer_batch(
        self, requests: Sequence[AnswerRequest], grade: Grader, now: datetime
    ) -> list[Outcome | Exception]:
        """Grade and record many answers in ONE write transaction (group commit).

        Each request runs in its own SAVEPOINT, in order, so later requests see earlier ones
        (the same member twice in a batch is graded twice, in sequence). A request that fails
        (its grader raises, its post is unknown or closed, or the database rejects an attempt)
        leaves no trace and gets its exception in its slot; the rest commit. Errors in the
        transaction itself (e.g. the write lock not obtained within the busy timeout) raise,
        and then nothing was written.

        Per-slot errors: UnknownPostError (no such post in that guild), PostClosedError
        (closed, and the member has not finished), AttemptLimitError (the database refused
        the attempt or the score: only possible if a writer bypassed the write lock), or
        whatever `grade` raises (e.g. InvalidAnswerError).
        """
        results: list[Outcome | Exception] = []
        if not requests:
            return results
        upserted: set[tuple[int, int, str]] = set()
        with self.write() as conn:
            writes = _Writes(conn, now)
            for request in requests:
                member = (request.guild_id, request.user_id, request.member_name)
                try:
                    with writes.savepoint():
                        if member not in upserted:
                            writes.upsert_member(*member)
                        outcome = _answer_one(writes, request, grade)
                except Exception as exc:
                    # Only this request's savepoint rolled back; the batch carries on.
                    results.append(exc)
                else:
                    upserted.add(member)
                    results.append(outcome)
        return results

    def reveal_hint(
        self, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
    ) -> Progress:
        """Record that the member saw the hint (halves the points of a later solve).
        After finishing it costs nothing and is not recorded. Raises UnknownPostError."""
        with self.write() as conn:
            writes = _Writes(conn, now)
            progress = writes.progress(post_id, guild_id, user_id)
            writes.upsert_member(guild_id, user_id, name)
            after = see_hint(progress)
            if after != progress:
                writes.insert_reveal(post_id, guild_id, user_id, "hint")
        return after

    def reveal_solution(
        self, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
    ) -> Progress:
        """Record that the member saw the solution. Before finishing this forfeits: the member
        finishes with 0 points. Idempotent. Raises UnknownPostError."""
        with self.write() as conn:
            writes = _Writes(conn, now)
            progress = writes.progress(post_id, guild_id, user_id)
            writes.upsert_member(guild_id, user_id, name)
            writes.insert_reveal(post_id, guild_id, user_id, "solution")
            after = forfeit(progress)
            if after.finished and not progress.finished:
                writes.insert_score(post_id, guild_id, user_id, after)
        return after

    def post_counts(self, post_id: int) -> PostCounts:
        with self.read() as conn:
            answered, solved, first_try = conn.execute(_POST_COUNTS, {"post_id": post_id}).one()
        return PostCounts(answered, solved, first_try)

    # -- leaderboard and stats ----------------------------------------------------------------

    def leaderboard(
        self,
        guild_id: int,
        period: Period | str,
        tz: ZoneInfo,
        now: datetime,
        user_id: int | None = None,
        limit: int = 10,
    ) -> Leaderboard:
        """Members ranked by the points of the posts they finished in the period.

        Order: points desc, then posts solved desc, then who reached their total first (the
        earlier time of their latest point-earning finish in the period), then user id, so
        every rank is distinct. Members without points in the period are not ranked. Day and
        week boundaries are local to `tz`. `me` is `user_id`'s rank, even outside the top.

        Read from the maintained totals when they are kept in `tz` (all time: in any zone).
        The first leaderboard of a server builds them (in its configured zone, else in `tz`);
        an unconfigured server asked in another zone is re-zoned (at most every
        REZONE_AFTER); otherwise the scores are aggregated as `leaderboard_exact` does.
        """
        key = period_key(period, tz, now)
        for attempt in range(2):
            with self.read() as conn:
                state = _board_state(conn, guild_id)
                if state.serves(key, tz.key):
                    return _ranked(_board_rows(conn, guild_id, key, user_id, limit), user_id)
                zone = None
                if attempt == 0:
                    zone = state.rebuild_in(tz.key, to_utc_naive(datetime.now(UTC)))
                if zone is None:
                    return _ranked(
                        _exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id
                    )
            with self.write() as conn:
                state = _board_state(conn, guild_id)  # again, now under the write lock
                if not state.serves(key, tz.key) and state.zone != zone:
                    _build_board(conn, guild_id, zone, totals=state.zone is None)
        raise AssertionError("unreachable: the second attempt returns")

    def leaderboard_exact(
        self,
        guild_id: int,
        period: Period | str,
        tz: ZoneInfo,
        now: datetime,
        user_id: int | None = None,
        limit: int = 10,
    ) -> Leaderboard:
        """`leaderboard` by aggregating the scores, ignoring the maintained totals: the
        reference they are tested against (and ~10x slower on a large server)."""
        with self.read() as conn:
            return _ranked(_exact_rows(conn, guild_id, period, tz, now, user_id, limit), user_id)

    def rebuild_totals(self, guild_id: int | None = None, tz: ZoneInfo | None = None) -> int:
        """Recompute the leaderboard totals of one server (or of every server with scores or
        totals) from the scores, all days and weeks included, in `tz`, else the configured
        zone, else the zone they were kept in, else UTC. For databases written around the
        store (imports, benchmarks) or repairs: the store's own writes keep the totals
        current. Holds the write lock throughout (seconds per million scores). Returns the
        number of servers."""
        if tz is not None and tz.key is None:
            raise ValueError("rebuild_totals needs a zone with an IANA key")
        with self.write() as conn:
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
                state = _board_state(conn, guild)
                zone = (tz and tz.key) or state.configured or state.zone or "UTC"
                _build_board(conn, guild, zone, totals=True, full=True)
        return len(guilds)

    def member_stats(self, guild_id: int, user_id: int, tz: ZoneInfo, now: datetime) -> MemberStats:
        params = {"guild_id": guild_id, "user_id": user_id}
        with self.read() as conn:
            tried, solved, first_try, points, last_finish = conn.execute(
                _STATS_SUMMARY, params
            ).one()
            last_answer, streak = self._streak(conn, guild_id, user_id, tz, now)
        last = max((t for t in (last_answer, last_finish) if t is not None), default=None)
        return MemberStats(
            tried=tried,
            solved=solved,
            first_try=first_try,
            first_try_rate=first_try / tried if tried else 0.0,
            points=int(points),
            streak_days=streak,
            last_active=_aware(last),
        )

    @staticmethod
    def _streak(
        conn: Connection, guild_id: int, user_id: int, tz: ZoneInfo, now: datetime
    ) -> tuple[datetime | None, int]:
        """(latest answer, streak). One index seek per streak day rather than reading every
        answer: the latest answer before the start of the current streak day must fall on
        the previous local day."""

        def latest_before(before: datetime) -> datetime | None:
            params = {"guild_id": guild_id, "user_id": user_id, "before": before}
            return conn.execute(_LAST_ANSWER_BEFORE, params).scalar()

        latest = latest_before(_FAR_FUTURE)
        if latest is None:
            return None, 0
        day = local_date(latest, tz)
        if day < local_date(now, tz) - timedelta(days=1):
            return latest, 0
        streak = 1
        while (earlier := latest_before(day_start(day, tz))) is not None:
            earlier_day = local_date(earlier, tz)
            if earlier_day != day - timedelta(days=1):
                break
            streak, day = streak + 1, earlier_day
        return latest, streak

    # -- guild configuration ------------------------------------------------------------------

    def guild_config(self, guild_id: int) -> GuildConfigInfo:
        """The server's settings; defaults (not stored) when it never changed any."""
        with self.read() as conn:
            row = conn.execute(select(_config).where(_config.c.guild_id == guild_id)).first()
        return GuildConfigInfo(guild_id) if row is None else _config_info(row)

    def update_guild_config(self, guild_id: int, **changes: Any) -> GuildConfigInfo:
        """Change some settings (timezone, mod_role_id, post_policy, cooldown_seconds).

        Raises TypeError for an unknown setting and ValueError for a bad value (an unknown
        time zone, a policy other than "anyone"/"mods", a negative cooldown).
        """
        unknown = set(changes) - CONFIG_FIELDS
        if unknown:
            raise TypeError(f"unknown guild setting(s): {', '.join(sorted(unknown))}")
        _validate_config(changes)
        with self.write() as conn:
            row = conn.execute(select(_config).where(_config.c.guild_id == guild_id)).first()
            info = replace(
                GuildConfigInfo(guild_id) if row is None else _config_info(row), **changes
            )
            values = {name: getattr(info, name) for name in CONFIG_FIELDS}
            stmt = sqlite_insert(_config).values(guild_id=guild_id, **values)
            conn.execute(
                stmt.on_conflict_do_update(index_elements=[_config.c.guild_id], set_=values)
            )
            if info.timezone is not None:
                # Days and weeks follow the new zone from this commit on. Reset to None,
                # they stay as they are until a reader asks in another zone.
                state = _board_state(conn, guild_id)
                if state.zone != info.timezone:
                    _build_board(conn, guild_id, info.timezone, totals=state.zone is None)
        return info


def _validate_config(changes: dict[str, Any]) -> None:
    if changes.get("timezone") is not None:
        try:
            ZoneInfo(changes["timezone"])
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {changes['timezone']!r}") from exc
    if "post_policy" in changes and changes["post_policy"] not in POST_POLICIES:
        raise ValueError(f"post_policy must be one of {', '.join(POST_POLICIES)}")
    if "cooldown_seconds" in changes and int(changes["cooldown_seconds"]) < 0:
        raise ValueError("cooldown_seconds must not be negative")


__all__ = [
    "AnswerRequest",
    "Grader",
    "GuildConfigInfo",
    "Leaderboard",
    "MemberStats",
    "PostCounts",
    "PostInfo",
    "Rank",
    "Store",
]
