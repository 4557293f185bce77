"""Private practice and review sessions: their rows, their posts, their summary.

A session's tasks are posts with `post.session_id` set, so they behave as every post does; its
current task is its latest post. A member has one open session per server (starting one ends
the previous). Who may click in one is `SessionInfo.check_member`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection, Integer, bindparam, func, select, true, update
from sqlalchemy import cast as sql_cast

from bot.clock import as_utc
from bot.quiz.errors import SessionExpiredError, SessionMovedOnError
from bot.quiz.tasks import Task
from bot.store import answers, dialect, posts, review_cards
from bot.store.learning_tables import PracticeSession
from bot.store.posts import PostInfo, SessionInfo
from bot.store.tables import Post, Score, table_of


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What a session did: its tasks served and finished, solved, solved on the first try."""

    served: int
    finished: int
    solved: int
    first_try: int


_session = table_of(PracticeSession)
_post = table_of(Post)
_score = table_of(Score)

_SESSION = select(_session).where(_session.c.id == bindparam("sid"))
_INSERT = _session.insert()
_OPEN = (  # the member's open session in this server
    _session.c.guild_id == bindparam("g"),
    _session.c.user_id == bindparam("u"),
    _session.c.ended_at.is_(None),
)
_END_OPEN = update(_session).where(*_OPEN).values(ended_at=bindparam("at"))
_END = (
    update(_session)
    .where(_session.c.id == bindparam("sid"), _session.c.ended_at.is_(None))
    .values(ended_at=bindparam("at"))
)
_TOUCH = (
    update(_session).where(_session.c.id == bindparam("sid")).values(last_active_at=bindparam("at"))
)
_SERVED = (
    select(_post.c.id, _post.c.task_id)
    .where(_post.c.session_id == bindparam("sid"))
    .order_by(_post.c.id)
)
_SOLVED = (
    select(_post.c.task_id)
    .select_from(_score.join(_post, _post.c.id == _score.c.post_id))
    .where(
        _score.c.guild_id == bindparam("guild_id"),
        _score.c.user_id == bindparam("user_id"),
        _score.c.solved == true(),
    )
    .distinct()
)
_OPEN_SESSION_POST = (
    select(_post.c.id)
    .select_from(_post.join(_session, _session.c.id == _post.c.session_id))
    .where(*_OPEN)
    .order_by(_post.c.id.desc())
    .limit(1)
)
UPCOMING = 100  # cards not due yet read for "the next falls due": room to skip removed tasks
_session_posts = select(_post.c.id).where(_post.c.session_id == bindparam("sid"))
_of_session = _score.c.post_id.in_(_session_posts)
_SUMMARY = select(
    select(func.count()).where(_post.c.session_id == bindparam("sid")).scalar_subquery(),
    select(func.count()).where(_of_session).scalar_subquery(),
    # A sum of booleans is not portable (PostgreSQL has none): count them as 0/1.
    select(func.coalesce(func.sum(sql_cast(_score.c.solved, Integer)), 0))
    .where(_of_session)
    .scalar_subquery(),
    select(func.coalesce(func.sum(sql_cast(_score.c.first_try, Integer)), 0))
    .where(_of_session)
    .scalar_subquery(),
)


@dataclass(frozen=True, slots=True)
class SessionState:
    """What choosing a session's next task needs, read at once."""

    session: SessionInfo
    served: tuple[str, ...]  # task ids, in order
    solved: frozenset[str]
    """Task ids the member solved in this server (public or private); a review reads none."""
    due: tuple[str, ...] = ()  # review: due cards' task ids, the most overdue first
    upcoming: tuple[tuple[str, datetime], ...] = ()  # review: (task id, due), soonest first
    withheld: frozenset[str] = frozenset()  # `unfinished_public_tasks`: never served privately
    current_post: int | None = None  # the latest post; None before the first


@dataclass(frozen=True, slots=True)
class ReviewQueue:
    """What /review starts from and what its reminders count, read at once."""

    due: tuple[str, ...]  # as in `SessionState`
    upcoming: tuple[tuple[str, datetime], ...]
    withheld: frozenset[str]


@dataclass(frozen=True, slots=True)
class SessionAdvance:
    """What a Next click did (`advance`): the state it chose from, and the new post, or (None)
    the session's end and its summary."""

    state: SessionState
    post: PostInfo | None
    summary: SessionSummary | None = None


def start_session(
    conn: Connection,
    guild_id: int,
    user_id: int,
    kind: str,
    *,
    topic: str | None,
    difficulty: str | None,
    now: datetime,
) -> SessionInfo:
    """A new open session of the member's, ending their previous open one in this server."""
    conn.execute(_END_OPEN, {"g": guild_id, "u": user_id, "at": now})
    values = dict(
        guild_id=guild_id,
        user_id=user_id,
        kind=kind,
        topic=topic,
        difficulty=difficulty,
        started_at=now,
        last_active_at=now,
        ended_at=None,
    )
    inserted = conn.execute(_INSERT, values).inserted_primary_key
    assert inserted is not None
    session = get_session(conn, int(inserted[0]))
    assert session is not None
    return session


def get_session(conn: Connection, session_id: int) -> SessionInfo | None:
    row = conn.execute(_SESSION, {"sid": session_id}).first()
    return None if row is None else SessionInfo(**row._mapping)


def member_session(
    conn: Connection, session_id: int, guild_id: int, user_id: int, now: datetime
) -> SessionInfo:
    """The session, if the member may click in it now (else `check_member`'s error); a missing
    one, or another server's, has ended (SessionExpiredError)."""
    session = get_session(conn, session_id)
    if session is None or session.guild_id != guild_id:
        raise SessionExpiredError(idle=False, minutes=0)
    session.check_member(user_id, now)
    return session


def live_session_post(
    conn: Connection, guild_id: int, user_id: int, now: datetime
) -> PostInfo | None:
    """The latest post of the member's open session here, while they may click in it."""
    post_id = conn.execute(_OPEN_SESSION_POST, {"g": guild_id, "u": user_id}).scalar()
    post = None if post_id is None else posts.get_post(conn, post_id)
    if post is None or post.session is None:
        return None
    try:
        post.session.check_member(user_id, now)
    except SessionExpiredError:
        return None
    return post


def unfinished_public_tasks(
    conn: Connection, guild_id: int, user_id: int, now: datetime
) -> frozenset[str]:
    """The tasks of `answers.unfinished_public_posts`: withheld from practice and review (a
    solution seen in private would give a public answer away)."""
    open_posts = answers.unfinished_public_posts(conn, guild_id, user_id, now)
    return frozenset(post.task_id for post in open_posts)


def review_queue(
    conn: Connection, guild_id: int, user_id: int, now: datetime, limit: int
) -> ReviewQueue:
    """The member's due cards (up to `limit`), the next ones, and what is withheld."""
    return ReviewQueue(
        tuple(review_cards.due_queue(conn, guild_id, user_id, now, limit)),
        tuple(review_cards.upcoming(conn, guild_id, user_id, now, UPCOMING)),
        unfinished_public_tasks(conn, guild_id, user_id, now),
    )


def solved_tasks(conn: Connection, guild_id: int, user_id: int) -> set[str]:
    """The tasks the member solved in this server, on public or private posts."""
    params = {"guild_id": guild_id, "user_id": user_id}
    return set(conn.execute(_SOLVED, params).scalars())


def add_post(
    conn: Connection, session: SessionInfo, channel_id: int, task: Task, now: datetime
) -> PostInfo:
    """The session's next task: a private post (no message), and the session touched."""
    touch(conn, session.id, now)
    return posts.create_post(
        conn,
        session.guild_id,
        channel_id,
        task,
        session.user_id,
        schedule_id=None,
        closes_at=None,
        now=now,
        session=replace(session, last_active_at=as_utc(now)),
    )


def touch(conn: Connection, session_id: int, now: datetime) -> None:
    conn.execute(_TOUCH, {"sid": session_id, "at": now})


def summary(conn: Connection, session_id: int) -> SessionSummary:
    served, finished, solved, first_try = conn.execute(_SUMMARY, {"sid": session_id}).one()
    return SessionSummary(int(served), int(finished), int(solved), int(first_try))


def session_state(
    conn: Connection,
    session_id: int,
    guild_id: int,
    user_id: int,
    now: datetime,
    *,
    queue: int,
) -> SessionState:
    """All a Next click reads: the session (`member_session`), what it served, what the member
    solved or, for a review, up to `queue` of their due cards and the next ones."""
    session = member_session(conn, session_id, guild_id, user_id, now)
    posts_served = conn.execute(_SERVED, {"sid": session_id}).all()
    served = tuple(task_id for _, task_id in posts_served)
    current = posts_served[-1][0] if posts_served else None
    if session.kind == "review" and queue > 0:
        # A review serves due cards, solved or not: "solved" only orders practice (and it is
        # the read that grows with every finish).
        cards = review_queue(conn, guild_id, user_id, now, queue)
        return SessionState(
            session,
            served,
            solved=frozenset(),
            due=cards.due,
            upcoming=cards.upcoming,
            withheld=cards.withheld,
            current_post=current,
        )
    return SessionState(
        session,
        served,
        frozenset(solved_tasks(conn, guild_id, user_id)),
        withheld=unfinished_public_tasks(conn, guild_id, user_id, now),
        current_post=current,
    )


def advance(
    conn: Connection,
    session_id: int,
    guild_id: int,
    user_id: int,
    channel_id: int,
    now: datetime,
    choose: Callable[[SessionState], Task | None],
    *,
    queue: int,
    shown: int | None = None,
) -> SessionAdvance:
    """A Next click in one write unit: the state, a check that the click came from the current
    task's message (`shown`; else SessionMovedOnError, so a second click skips nothing),
    `choose`'s pick, then its private post, or the session ended and summed up. One unit, so
    two clicks cannot both pick the same task (on PostgreSQL the session's lock)."""
    dialect.lock(conn, "session", [session_id])
    state = session_state(conn, session_id, guild_id, user_id, now, queue=queue)
    if shown is not None and shown != state.current_post:
        raise SessionMovedOnError()
    task = choose(state)
    if task is None:
        conn.execute(_END, {"sid": session_id, "at": now})
        return SessionAdvance(state, None, summary(conn, session_id))
    return SessionAdvance(state, add_post(conn, state.session, channel_id, task, now))
