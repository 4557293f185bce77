"""What the bot keeps about a member in a server (`member_summary`), and deleting it: one
member's (`delete_member`) or a whole server's (`delete_guild`), each in the caller's one
transaction, the leaderboard totals with it.

Which rows are a member's is decided here, once: `MEMBER_TABLES` by `user_id`, the posts of
their private sessions, and their id on what they posted with /quiz (cleared; the post is the
channel's). Kept: the ids of moderators on a server's daily quizzes and uploaded banks, which
are the server's records (`KEPT_MEMBER_IDS`), deleted with the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Connection,
    Integer,
    Table,
    and_,
    bindparam,
    case,
    delete,
    func,
    select,
    update,
)

from bot.store.answers import forget_members, lock_boards
from bot.store.departures import GuildRemoval
from bot.store.learning_tables import MemberReminder, PracticeSession, ReviewCard
from bot.store.posts import public_scores
from bot.store.schedule_tables import Schedule, ScheduleRun
from bot.store.tables import (
    Attempt,
    BoardState,
    GuildConfig,
    GuildWelcome,
    Member,
    MemberPeriod,
    MemberRating,
    MemberTotal,
    Post,
    Reveal,
    Score,
    ServerBank,
    TaskRating,
    table_of,
)

_member = table_of(Member)
_attempt = table_of(Attempt)
_reveal = table_of(Reveal)
_score = table_of(Score)
_post = table_of(Post)
_session = table_of(PracticeSession)
_card = table_of(ReviewCard)
_reminder = table_of(MemberReminder)
_schedule = table_of(Schedule)
_run = table_of(ScheduleRun)

MEMBER_TABLES: tuple[Table, ...] = tuple(
    table_of(model)
    for model in (
        Attempt,
        Reveal,
        Score,
        MemberTotal,
        MemberPeriod,
        MemberRating,
        ReviewCard,
        MemberReminder,
        PracticeSession,
        Member,
    )
)
"""The tables whose rows are one member's, by (guild_id, user_id); children of `post` first."""

CLEARED_MEMBER_IDS: tuple[Column[Any], ...] = (_post.c.posted_by,)
"""Columns naming a member on a row that is not theirs: set to NULL when they delete."""

KEPT_MEMBER_IDS: tuple[Column[Any], ...] = (
    _schedule.c.created_by,
    table_of(ServerBank).c.uploaded_by,
)
"""Moderators' ids on the server's own records: kept until the server's data goes."""

GUILD_TABLES: tuple[Table, ...] = (
    *MEMBER_TABLES,
    _post,
    _schedule,
    *(
        table_of(model)
        for model in (ServerBank, BoardState, GuildConfig, GuildWelcome, GuildRemoval, TaskRating)
    ),
)
"""The tables whose rows are one server's, by guild_id, in an order that deletes children
first (`schedule_run` goes by its schedule, before it)."""

_g = bindparam("g", type_=BigInteger)
_u = bindparam("u", type_=BigInteger)


def _of_member(table: Table) -> Any:
    return and_(table.c.guild_id == _g, table.c.user_id == _u)


_SESSION_POSTS = select(_post.c.id).where(
    _post.c.guild_id == _g,
    _post.c.session_id.in_(select(_session.c.id).where(_of_member(_session))),
)


@dataclass(frozen=True, slots=True)
class Span:
    """How many rows, and the times of the first and the last."""

    count: int = 0
    first: datetime | None = None
    last: datetime | None = None


@dataclass(frozen=True, slots=True)
class MemberData:
    """What the bot keeps about one member in one server: counts and dates, no other member's."""

    name: str | None
    first_seen: datetime | None
    attempts: Span
    correct: int
    finished: int
    """Tasks they finished (a score each), in channels and in private sessions."""
    solved: int
    points: int
    """Their points on the server's leaderboard (public posts only)."""
    hints: int
    """Posts they opened a hint of (one or more of its hints)."""
    solutions: int
    review_cards: int
    next_review: datetime | None
    reminder: tuple[int, str | None] | None
    """Their review reminder's hour and own zone, while it is on; None when off or never set."""
    practice_sessions: Span
    review_sessions: Span
    posts: int
    """Tasks they posted with /quiz (the posts stay the channel's)."""

    @property
    def empty(self) -> bool:
        return self.first_seen is None and not any(
            (
                self.attempts.count,
                self.finished,
                self.hints,
                self.solutions,
                self.review_cards,
                self.reminder,
                self.practice_sessions.count,
                self.review_sessions.count,
                self.posts,
            )
        )


_NAME = select(_member.c.name, _member.c.first_seen).where(_of_member(_member))
_ATTEMPTS = select(
    func.count(),
    func.coalesce(func.sum(case((_attempt.c.correct, 1), else_=0)), 0),
    func.min(_attempt.c.created_at),
    func.max(_attempt.c.created_at),
).where(_of_member(_attempt))
_SCORES = select(
    func.count(),
    func.coalesce(func.sum(case((_score.c.solved, 1), else_=0)), 0),
    func.coalesce(func.sum(case((public_scores(_score.c.post_id), _score.c.points), else_=0)), 0),
).where(_of_member(_score))
_REVEALS = select(_reveal.c.kind, func.count()).where(_of_member(_reveal)).group_by(_reveal.c.kind)
_CARDS = select(func.count(), func.min(_card.c.due)).where(_of_member(_card))
_REMINDER = select(_reminder.c.hour, _reminder.c.timezone).where(
    _of_member(_reminder), _reminder.c.enabled
)
_SESSIONS = (
    select(
        _session.c.kind,
        func.count(),
        func.min(_session.c.started_at),
        func.max(_session.c.last_active_at),
    )
    .where(_of_member(_session))
    .group_by(_session.c.kind)
)
_POSTED = select(func.count()).where(
    _post.c.guild_id == _g, _post.c.posted_by == _u, _post.c.session_id.is_(None)
)


def member_summary(conn: Connection, guild_id: int, user_id: int) -> MemberData:
    """Everything `delete_member` would delete or clear, summed up (`/mydata show`)."""
    p = {"g": guild_id, "u": user_id}
    named = conn.execute(_NAME, p).first()
    attempts, correct, first, last = conn.execute(_ATTEMPTS, p).one()
    finished, solved, points = conn.execute(_SCORES, p).one()
    reveals: dict[str, int] = {kind: n for kind, n in conn.execute(_REVEALS, p)}
    cards, next_due = conn.execute(_CARDS, p).one()
    reminder = conn.execute(_REMINDER, p).first()
    sessions = {kind: Span(n, a, b) for kind, n, a, b in conn.execute(_SESSIONS, p).all()}
    return MemberData(
        name=named.name if named else None,
        first_seen=named.first_seen if named else None,
        attempts=Span(attempts, first, last),
        correct=int(correct),
        finished=finished,
        solved=int(solved),
        points=int(points),
        hints=reveals.get("hint", 0),
        solutions=reveals.get("solution", 0),
        review_cards=cards,
        next_review=next_due,
        reminder=(reminder.hour, reminder.timezone) if reminder else None,
        practice_sessions=sessions.get("practice", Span()),
        review_sessions=sessions.get("review", Span()),
        posts=conn.execute(_POSTED, p).scalar_one(),
    )


Deleted = Mapping[str, int]
"""Rows deleted (or, for a cleared id, changed) per table, in deletion order; tables with
none left out."""


def delete_member(conn: Connection, guild_id: int, user_id: int) -> Deleted:
    """Delete everything of the member's in the server, and clear their id where the row is
    not theirs; their leaderboard totals go with their scores, in this transaction."""
    lock_boards(conn, [guild_id])  # no score of theirs is added to the totals meanwhile
    p = {"g": guild_id, "u": user_id}
    session_posts = [row.id for row in conn.execute(_SESSION_POSTS, p)]
    counts: dict[str, int] = {}
    for table in MEMBER_TABLES:
        if table is _session:  # its posts first: theirs alone, then the sessions
            _count(counts, "post", _delete_posts(conn, session_posts))
        _count(counts, table.name, conn.execute(delete(table).where(_of_member(table)), p))
    for column in CLEARED_MEMBER_IDS:
        table = column.table
        assert isinstance(table, Table)
        stmt = update(table).where(table.c.guild_id == _g, column == _u).values({column.name: None})
        _count(counts, f"{table.name}.{column.name}", conn.execute(stmt, p))
    forget_members(conn, guild_id, user_id)
    return counts


def delete_guild(conn: Connection, guild_id: int) -> Deleted:
    """Delete everything the bot keeps of the server (its task versions are shared: kept)."""
    lock_boards(conn, [guild_id])
    p = {"g": guild_id}
    counts: dict[str, int] = {}
    for table in GUILD_TABLES:
        if table is _schedule:
            runs = delete(_run).where(
                _run.c.schedule_id.in_(select(_schedule.c.id).where(_schedule.c.guild_id == _g))
            )
            _count(counts, _run.name, conn.execute(runs, p))
        _count(counts, table.name, conn.execute(delete(table).where(table.c.guild_id == _g), p))
    forget_members(conn, guild_id)
    return counts


def _delete_posts(conn: Connection, post_ids: list[int]) -> Any:
    """Delete these posts with every row hanging off them (practice posts: all the member's)."""
    if not post_ids:
        return None
    ids = {"ids": post_ids}
    in_ids = bindparam("ids", type_=Integer, expanding=True)
    for child in (_attempt, _reveal, _score):
        conn.execute(delete(child).where(child.c.post_id.in_(in_ids)), ids)
    return conn.execute(delete(_post).where(_post.c.id.in_(in_ids)), ids)


def _count(counts: dict[str, int], name: str, result: Any) -> None:
    n = 0 if result is None else (result.rowcount or 0)
    if n:
        counts[name] = counts.get(name, 0) + n


def describe(deleted: Deleted) -> str:
    """For hosts (the log, `quizbot forget`): "attempt 12, score 3, post.posted_by cleared 1"."""
    if not deleted:
        return "nothing"
    return ", ".join(
        f"{name} {'cleared ' if '.' in name else ''}{n:,}" for name, n in deleted.items()
    )
