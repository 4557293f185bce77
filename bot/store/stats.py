"""A member's statistics in a server: what they tried and solved, points, and streak.

Decides what counts as tried (a post answered or finished, e.g. by a forfeit), when a member
was last active (their latest answer or finish), and the streak: consecutive local days with
an answer, ending today or yesterday. For the /stats picture (`member_activity`): answers
per local day, and the posts tried, each with its task version and first-try fact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import BindParameter, Connection, and_, bindparam, func, select, true, union

from bot.clock import day_start, local_date
from bot.store.posts import PostInfo, post_infos, select_posts
from bot.store.tables import Attempt, Post, Score, table_of


@dataclass(frozen=True, slots=True)
class MemberStats:
    tried: int
    """Distinct posts answered at least once or finished (a forfeit counts)."""
    solved: int
    first_try: int
    first_try_rate: float
    """Posts solved on the first try / posts tried; 0.0 when none tried."""
    points: int
    """On public posts: the leaderboard's points."""
    practice_points: int
    """On private posts (/practice, /review): the member's own, never on the leaderboard."""
    streak_days: int
    """Consecutive local days, ending today or yesterday, with at least one answer."""
    last_active: datetime | None
    """Latest answer or finish, aware UTC."""


@dataclass(frozen=True, slots=True)
class TriedPost:
    """A post a member tried (as `MemberStats.tried` counts them), with its task version."""

    post: PostInfo
    first_try: bool
    """Solved on the first try; False while the member has not finished it."""


@dataclass(frozen=True, slots=True)
class MemberActivity:
    """A member's answers per local day over a span ending today, and every post they tried."""

    first_day: date
    """The local date counted by `attempts_per_day[0]`."""
    attempts_per_day: tuple[int, ...]
    """Answers given on each local day from `first_day` to today, both included."""
    tried: tuple[TriedPost, ...]


_attempt = table_of(Attempt)
_score = table_of(Score)
_post = table_of(Post)

_p_user: BindParameter[int] = bindparam("user_id")

_LAST_ANSWER_BEFORE = select(func.max(_attempt.c.created_at)).where(
    _attempt.c.guild_id == bindparam("guild_id"),
    _attempt.c.user_id == _p_user,
    _attempt.c.created_at < bindparam("before"),
)

_FAR_FUTURE = datetime(9999, 1, 1, tzinfo=UTC)

# A member's counts, each from the member's own index range (attempts and scores by member).
_mine_a = and_(_attempt.c.guild_id == bindparam("guild_id"), _attempt.c.user_id == _p_user)
_mine_s = and_(_score.c.guild_id == bindparam("guild_id"), _score.c.user_id == _p_user)
# Points are the leaderboard's (public posts) and practice's (private posts) apart: a member
# must never read practice points as points on the board.
_public_posts = select(_post.c.id).where(
    _post.c.guild_id == bindparam("guild_id"), _post.c.session_id.is_(None)
)
_private_posts = select(_post.c.id).where(
    _post.c.guild_id == bindparam("guild_id"), _post.c.session_id.is_not(None)
)
_tried = union(
    select(_attempt.c.post_id).where(_mine_a), select(_score.c.post_id).where(_mine_s)
).subquery()
_STATS_SUMMARY = select(
    select(func.count()).select_from(_tried).scalar_subquery(),
    select(func.count()).where(_mine_s, _score.c.solved == true()).scalar_subquery(),
    select(func.count()).where(_mine_s, _score.c.first_try == true()).scalar_subquery(),
    select(func.coalesce(func.sum(_score.c.points), 0))
    .where(_mine_s, _score.c.post_id.in_(_public_posts))
    .scalar_subquery(),
    select(func.coalesce(func.sum(_score.c.points), 0))
    .where(_mine_s, _score.c.post_id.in_(_private_posts))
    .scalar_subquery(),
    select(func.max(_score.c.finished_at)).where(_mine_s).scalar_subquery(),
)


# The posts a member tried (the same `_tried` as the summary's count), each with the member's
# first-try fact from their score (NULL while unfinished).
_TRIED_POSTS = (
    select_posts()
    .add_columns(
        select(_score.c.first_try)
        .where(_score.c.post_id == _post.c.id, _score.c.user_id == _p_user)
        .scalar_subquery()
        .label("first_try")
    )
    .where(_post.c.id.in_(select(_tried.c.post_id)))
    .order_by(_post.c.id)
)
# Answer times in a span: read from the member's index (guild, user, created_at) alone.
_ANSWER_TIMES = select(_attempt.c.created_at).where(
    _mine_a,
    _attempt.c.created_at >= bindparam("start"),
    _attempt.c.created_at < bindparam("end"),
)


def member_stats(
    conn: Connection, guild_id: int, user_id: int, tz: ZoneInfo, now: datetime
) -> MemberStats:
    params = {"guild_id": guild_id, "user_id": user_id}
    row = conn.execute(_STATS_SUMMARY, params).one()
    tried, solved, first_try, points, practice_points, last_finish = row
    last_answer, streak = _streak(conn, guild_id, user_id, tz, now)
    last = max((t for t in (last_answer, last_finish) if t is not None), default=None)
    return MemberStats(
        tried=tried,
        solved=solved,
        first_try=first_try,
        first_try_rate=first_try / tried if tried else 0.0,
        points=int(points),
        practice_points=int(practice_points),
        streak_days=streak,
        last_active=last,
    )


def member_activity(
    conn: Connection, guild_id: int, user_id: int, tz: ZoneInfo, since: date, now: datetime
) -> MemberActivity:
    """Answers per local day from `since` to today (in `tz`), and the posts tried.

    Answers are bucketed by local day here rather than in SQL: a zone's offset need not be
    whole hours, and the span holds at most a few thousand answers of one member."""
    today = local_date(now, tz)
    days = max((today - since).days + 1, 0)
    counts = [0] * days
    params = {
        "guild_id": guild_id,
        "user_id": user_id,
        "start": day_start(since, tz),
        "end": day_start(today + timedelta(days=1), tz),
    }
    for (created_at,) in conn.execute(_ANSWER_TIMES, params):
        index = (local_date(created_at, tz) - since).days
        if 0 <= index < days:
            counts[index] += 1
    rows = conn.execute(_TRIED_POSTS, {"guild_id": guild_id, "user_id": user_id}).all()
    tried = tuple(
        TriedPost(post, bool(row.first_try))
        for post, row in zip(post_infos(conn, rows), rows, strict=True)
    )
    return MemberActivity(first_day=since, attempts_per_day=tuple(counts), tried=tried)


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
