"""What a server's members did, for /insights and `quizbot export results` (read-only).

Decides which attempts fall in a window (days local to the server's zone) and what one member
did on one task. What the figures mean is bot/reports' job. Group figures: public posts only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Engine, and_, case, distinct, false, func, select, union

from bot.clock import day_start, local_date
from bot.quiz.ratings import Rating
from bot.store.posts import PostInfo, post_infos, public_scores, select_posts
from bot.store.ratings import task_ratings
from bot.store.store import Store
from bot.store.tables import Attempt, Member, Post, Reveal, Score, table_of

_attempt = table_of(Attempt)
_post = table_of(Post)
_score = table_of(Score)
_reveal = table_of(Reveal)
_member = table_of(Member)


@dataclass(frozen=True, slots=True)
class TaskActivity:
    """One task in a window: distinct members over all its posts."""

    task_id: str
    answered: int
    solved: int
    first_try: int  # members whose first attempt on a post of the task was right


@dataclass(frozen=True, slots=True)
class WrongPick:
    """A wrong attempt's picks (one row per member, post and distinct picks)."""

    post_id: int
    user_id: int
    picks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DayActivity:
    day: date  # local to the server's zone
    members: int
    attempts: int


@dataclass(frozen=True, slots=True)
class WindowActivity:
    """A server's activity from `first_day` to `last_day` (local dates, both included)."""

    first_day: date
    last_day: date
    tasks: tuple[TaskActivity, ...]
    wrong_picks: tuple[WrongPick, ...]
    posts: dict[int, PostInfo]  # every post answered in the window
    days: tuple[DayActivity, ...]  # every day of the window, quiet ones included
    members: int  # distinct members who answered
    ratings: dict[str, Rating] = field(default_factory=dict)  # the tasks' stored Elo ratings


@dataclass(frozen=True, slots=True)
class ResultRow:
    """What one member did on one task, over their posts of it."""

    user_id: int
    task_id: str
    attempts: int
    # Each flag: on at least one post.
    solved: bool
    points: int
    first_try: bool
    hint: bool  # seen while it still cost points
    solution: bool  # opened while the post was open (a closed post's free one is not stored)
    name: str | None = None  # the last seen display name, when asked for
    answer: str = ""
    """The last answer stored: option letters, or the text a member typed (typed tasks)."""


class InsightsStore:
    """The reads behind /insights and the results export, on `Store`'s connections."""

    def __init__(self, store: Store | Engine) -> None:
        self.store = store if isinstance(store, Store) else Store(store)

    def window(
        self, guild_id: int, first_day: date, last_day: date, tz: ZoneInfo
    ) -> WindowActivity:
        """Attempts on public posts from local midnight of `first_day` to the end of `last_day`."""
        start = day_start(first_day, tz)
        end = day_start(last_day + timedelta(days=1), tz)
        in_window = and_(
            _attempt.c.guild_id == guild_id,
            _attempt.c.created_at >= start,
            _attempt.c.created_at < end,
            public_scores(_attempt.c.post_id),
        )
        joined = _attempt.join(_post, _attempt.c.post_id == _post.c.id)
        user = _attempt.c.user_id
        per_task = (
            select(
                _post.c.task_id,
                func.count(distinct(user)),
                func.count(distinct(case((_attempt.c.correct, user)))),
                func.count(
                    distinct(case((and_(_attempt.c.correct, _attempt.c.attempt_no == 1), user)))
                ),
            )
            .select_from(joined)
            .where(in_window)
            .group_by(_post.c.task_id)
            .order_by(_post.c.task_id)
        )
        wrong = (
            select(_attempt.c.post_id, user, _attempt.c.picks)
            .where(in_window, _attempt.c.correct == false())
            .distinct()
            .order_by(_attempt.c.post_id, user, _attempt.c.picks)
        )
        answered_posts = select(_attempt.c.post_id).where(in_window).distinct()
        posts = select_posts().where(_post.c.id.in_(answered_posts)).order_by(_post.c.id)
        moments = select(user, _attempt.c.created_at).where(in_window)
        with self.store.read() as conn:
            tasks = tuple(TaskActivity(*row) for row in conn.execute(per_task))
            picks = tuple(
                WrongPick(row.post_id, row.user_id, tuple(row.picks.split(",")))
                for row in conn.execute(wrong)
            )
            infos = {info.id: info for info in post_infos(conn, conn.execute(posts))}
            days, members = _per_day(conn.execute(moments), first_day, last_day, tz)
            rated = task_ratings(conn, guild_id)
        return WindowActivity(first_day, last_day, tasks, picks, infos, days, members, rated)

    def results(
        self, guild_id: int, tz: ZoneInfo, *, since: date | None = None, names: bool = False
    ) -> list[ResultRow]:
        """One row per member and task, over public posts (with `since`, those from local
        midnight of that date on)."""
        with self.store.read() as conn:
            return _results(conn, guild_id, tz, since, names)


def _per_day(
    moments: Any, first_day: date, last_day: date, tz: ZoneInfo
) -> tuple[tuple[DayActivity, ...], int]:
    # Local days in Python: a zone's offset changes within the window (DST), SQL knows none.
    members: dict[date, set[int]] = defaultdict(set)
    attempts: dict[date, int] = defaultdict(int)
    for user_id, created_at in moments:
        day = local_date(created_at, tz)
        members[day].add(user_id)
        attempts[day] += 1
    span = (last_day - first_day).days + 1
    every = (first_day + timedelta(days=n) for n in range(span))
    days = tuple(DayActivity(day, len(members[day]), attempts[day]) for day in every)
    return days, len(set().union(*members.values()))


def _results(
    conn: Connection, guild_id: int, tz: ZoneInfo, since: date | None, names: bool
) -> list[ResultRow]:
    pairs = union(
        select(_attempt.c.post_id, _attempt.c.user_id).where(_attempt.c.guild_id == guild_id),
        select(_score.c.post_id, _score.c.user_id).where(_score.c.guild_id == guild_id),
        select(_reveal.c.post_id, _reveal.c.user_id).where(_reveal.c.guild_id == guild_id),
    ).subquery("pairs")
    tries = (
        select(_attempt.c.post_id, _attempt.c.user_id, func.count().label("n"))
        .where(_attempt.c.guild_id == guild_id)
        .group_by(_attempt.c.post_id, _attempt.c.user_id)
        .subquery("tries")
    )
    hint = _reveal.alias("hint")
    solution = _reveal.alias("solution")

    def mine(table: Any) -> Any:
        return and_(table.c.post_id == pairs.c.post_id, table.c.user_id == pairs.c.user_id)

    def any_of(condition: Any) -> Any:
        return func.max(case((condition, 1), else_=0))

    joined = (
        pairs.join(_post, _post.c.id == pairs.c.post_id)
        .outerjoin(tries, mine(tries))
        .outerjoin(_score, mine(_score))
        .outerjoin(hint, and_(mine(hint), hint.c.kind == "hint"))
        .outerjoin(solution, and_(mine(solution), solution.c.kind == "solution"))
    )
    columns: list[Any] = [
        pairs.c.user_id,
        _post.c.task_id,
        func.sum(func.coalesce(tries.c.n, 0)),
        any_of(_score.c.solved),
        func.sum(func.coalesce(_score.c.points, 0)),
        any_of(_score.c.first_try),
        any_of(hint.c.kind.is_not(None)),
        any_of(solution.c.kind.is_not(None)),
    ]
    group: list[Any] = [pairs.c.user_id, _post.c.task_id]
    if names:
        joined = joined.outerjoin(
            _member,
            and_(_member.c.guild_id == guild_id, _member.c.user_id == pairs.c.user_id),
        )
        columns.append(_member.c.name)
        group.append(_member.c.name)
    stmt = (
        select(*columns)
        .select_from(joined)
        .where(_post.c.guild_id == guild_id, _post.c.session_id.is_(None))
        .group_by(*group)
        .order_by(pairs.c.user_id, _post.c.task_id)
    )
    if since is not None:
        stmt = stmt.where(_post.c.posted_at >= day_start(since, tz))
    last = _last_answers(conn, guild_id, tz, since)
    return [
        ResultRow(
            *(row[0], row[1], int(row[2]), bool(row[3]), int(row[4])),
            *(bool(row[5]), bool(row[6]), bool(row[7]), row[8] if names else None),
            answer=last.get((row[0], row[1]), ""),
        )
        for row in conn.execute(stmt)
    ]


def _last_answers(
    conn: Connection, guild_id: int, tz: ZoneInfo, since: date | None
) -> dict[tuple[int, str], str]:
    """Each member's last stored answer on each task, over the public posts `_results` reads."""
    stmt = (
        select(_attempt.c.user_id, _post.c.task_id, _attempt.c.picks)
        .select_from(_attempt.join(_post, _post.c.id == _attempt.c.post_id))
        .where(_post.c.guild_id == guild_id, _post.c.session_id.is_(None))
        .order_by(_attempt.c.created_at, _attempt.c.id)
    )
    if since is not None:
        stmt = stmt.where(_post.c.posted_at >= day_start(since, tz))
    return {(user, task): picks for user, task, picks in conn.execute(stmt)}
