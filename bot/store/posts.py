"""Posted tasks: creating, finding and closing them, and who answered them.

Decides which post is a channel's latest (newest `posted_at`, then highest id), what a search
matches, and that a post closes once (`closed_at` is set only while it is NULL).

A private practice or review task is a post too (`session_id` set), read with its session
(`PostInfo.session`). Group figures leave private posts out: `latest_post` and `search_posts`
here, and every leaderboard and group read through `public_scores` / `PRIVATE_POST_IDS`. A
post is created with its task's version (`ensure_versions`) and read with it (`PostInfo.task`,
`tasks_by_hash`, decoded once and cached), so it keeps the task it was posted with.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Row,
    RowMapping,
    Select,
    bindparam,
    delete,
    distinct,
    exists,
    func,
    or_,
    select,
    true,
    update,
)

from bot.clock import as_utc
from bot.quiz import refs
from bot.quiz.engine import check_owner, post_closed
from bot.quiz.errors import SessionExpiredError, UnknownTaskError
from bot.quiz.rules import check_session_live
from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import Task
from bot.store import dialect
from bot.store.learning_tables import PracticeSession
from bot.store.tables import Attempt, Post, Reveal, Score, TaskVersion, table_of


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A member's private practice or review session (`practice_session`); aware UTC times."""

    id: int
    guild_id: int
    user_id: int
    kind: str
    """'practice' or 'review'."""
    topic: str | None
    difficulty: str | None
    started_at: datetime
    last_active_at: datetime
    ended_at: datetime | None = None

    def check_member(self, user_id: int, now: datetime) -> None:
        """The one check that a member may click in this session: its owner
        (`engine.check_owner`, else PrivatePostError), while it lasts
        (`rules.check_session_live`, else SessionExpiredError)."""
        check_owner(self.user_id, user_id)
        check_session_live(self.ended_at, self.last_active_at, now, self.kind)


@dataclass(frozen=True, slots=True)
class PostInfo:
    """A posted task. Timestamps are aware UTC datetimes.

    `task` is the task exactly as it was posted (its stored version), whatever the banks say
    now; None only for a post from before versions (0.1.0) whose task was not loaded when the
    service last pinned (`pin_unversioned`): nothing can grade or show it (`graded_task`)."""

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
    task_version_id: int | None = None
    task: Task | None = field(default=None, repr=False, compare=False)
    """Decoded from the version `task_version_id` names (so equal ids mean equal tasks)."""
    session_id: int | None = None
    """The private practice or review session the post belongs to; None for a post in a
    channel."""
    session: SessionInfo | None = field(default=None, compare=False)
    """That session, read with the post (None if its row is gone)."""

    def graded_task(self) -> Task:
        """The task this post grades with: its stored version. A post without one (its task
        was gone from the banks when the service pinned) is refused with UnknownTaskError,
        as 0.1.0 refused it: there is no task left to grade it on."""
        if self.task is None:
            raise UnknownTaskError(self.task_id, gone=True)
        return self.task

    @property
    def private(self) -> bool:
        """A practice or review task: one member's, never shown in the channel, never scored
        on the leaderboard."""
        return self.session_id is not None

    def is_closed(self, now: datetime) -> bool:
        """Closed explicitly, or past its closing time (the rule: `engine.post_closed`)."""
        return post_closed(self.closed_at, self.closes_at, now)

    def check_member(self, user_id: int, now: datetime) -> None:
        """A private post is its owner's alone, and only while its session lasts
        (`SessionInfo.check_member`); a public post takes anyone."""
        if self.session is not None:
            self.session.check_member(user_id, now)
        elif self.session_id is not None:  # its session's row is gone: nobody's any more
            raise SessionExpiredError(idle=False, minutes=0)


@dataclass(frozen=True, slots=True)
class PostCounts:
    """Distinct members who answered, solved, and solved on the first try."""

    answered: int
    solved: int
    first_try: int


_version = table_of(TaskVersion)

_IDS_BY_HASH = select(_version.c.hash, _version.c.id).where(
    _version.c.hash.in_(bindparam("hashes", expanding=True))
)
_ID_BY_HASH = select(_version.c.id).where(_version.c.hash == bindparam("hash"))
"""One task's version (a /quiz, a practice or review step): a plain `=`, since expanding an
IN list costs more than the statement."""
_CONTENT_BY_HASH = select(_version.c.hash, _version.c.content).where(
    _version.c.hash.in_(bindparam("hashes", expanding=True))
)

CACHE_SIZE = 512
"""Distinct task versions kept decoded: far more than the posts open at once anywhere."""


class VersionCache:
    """A bounded map from a version's hash to its Task, least recently used out first.
    Thread-safe: the service's reader threads and its writer share it. Process-local, and
    correct with several processes on one database: versions are never changed and are named
    by their content, so no process can hold a stale one."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tasks)

    def __contains__(self, key: object) -> bool:
        return key in self._tasks

    def get(self, key: str) -> Task | None:
        with self._lock:
            task = self._tasks.get(key)
            if task is not None:
                self._tasks.move_to_end(key)
            return task

    def put(self, key: str, task: Task) -> None:
        with self._lock:
            self._tasks[key] = task
            self._tasks.move_to_end(key)
            while len(self._tasks) > self.size:
                self._tasks.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._tasks.clear()


CACHE = VersionCache()


def ensure_versions(conn: Connection, tasks: Sequence[Task], now: datetime) -> list[int]:
    """The version id of each task, inserting the versions not stored yet (in the caller's
    unit of work, so a post and its version commit together)."""
    if not tasks:
        return []
    encoded = [encode_task(task) for task in tasks]
    rows = {}
    for task, (content, key) in zip(tasks, encoded, strict=True):
        rows[key] = {
            "task_id": task.id,
            "hash": key,
            "content": content,
            "created_at": now,
        }
        # Exactly the task the version decodes to (the codec round-trips): no decoding later.
        CACHE.put(key, task)
    if len(rows) == 1:
        # The usual case, one task posted again: its version is found, nothing is written.
        (key,) = rows
        version_id = conn.execute(_ID_BY_HASH, {"hash": key}).scalar()
        if version_id is None:
            conn.execute(dialect.insert_ignoring_conflicts(conn, _version), list(rows.values()))
            version_id = conn.execute(_ID_BY_HASH, {"hash": key}).scalar_one()
        return [version_id for _ in tasks]
    conn.execute(dialect.insert_ignoring_conflicts(conn, _version), list(rows.values()))
    stored = conn.execute(_IDS_BY_HASH, {"hashes": list(rows)})
    ids = {key: version_id for key, version_id in stored}
    return [ids[key] for _, key in encoded]


def tasks_by_hash(conn: Connection, hashes: Iterable[str | None]) -> dict[str, Task]:
    """The Task of each version hash (None, a post without a version, is skipped): from the
    cache, else read and decoded once, in one statement for all the misses."""
    found: dict[str, Task] = {}
    missing: set[str] = set()
    for key in hashes:
        if key is None or key in found:
            continue
        task = CACHE.get(key)
        if task is None:
            missing.add(key)
        else:
            found[key] = task
    if missing:
        for key, content in conn.execute(_CONTENT_BY_HASH, {"hashes": sorted(missing)}):
            task = found[key] = decode_task(content)
            CACHE.put(key, task)
    return found


__all__ = ["CACHE", "CACHE_SIZE", "VersionCache", "ensure_versions", "tasks_by_hash"]


_post = table_of(Post)
_version = table_of(TaskVersion)
_attempt = table_of(Attempt)
_score = table_of(Score)
_reveal = table_of(Reveal)
_session = table_of(PracticeSession)

_p_post: BindParameter[int] = bindparam("post_id")

PRIVATE_POST_IDS = select(_post.c.id).where(_post.c.session_id.is_not(None))
"""The ids of private (practice and review) posts: a range of `ix_post_session_id`."""


def public_scores(post_id: ColumnElement[Any]) -> ColumnElement[bool]:
    """The condition that a score (or attempt) row's post is public: what every group figure
    (leaderboards and their totals, /insights, the results export) counts. The subquery is
    uncorrelated, so the engine builds it once per statement, not once per row."""
    return post_id.not_in(PRIVATE_POST_IDS)


def select_posts() -> Select[Any]:
    """Posts with their version's hash (`task_hash`, NULL without a version) and, for a
    private post, its session's owner and times (`s_*`): every read of a post starts here, and
    `post_infos` turns its rows into PostInfos with their Task and session."""
    joined = _post.outerjoin(_version, _post.c.task_version_id == _version.c.id).outerjoin(
        _session, _post.c.session_id == _session.c.id
    )
    return select(
        _post,
        _version.c.hash.label("task_hash"),
        _session.c.user_id.label("s_user_id"),
        _session.c.kind.label("s_kind"),
        _session.c.topic.label("s_topic"),
        _session.c.difficulty.label("s_difficulty"),
        _session.c.started_at.label("s_started_at"),
        _session.c.last_active_at.label("s_last_active_at"),
        _session.c.ended_at.label("s_ended_at"),
    ).select_from(joined)


_POST = select_posts().where(_post.c.id == _p_post)
_LATEST_FIRST = (_post.c.posted_at.desc(), _post.c.id.desc())
_LATEST_IN_CHANNEL = (
    select_posts()
    .where(
        _post.c.guild_id == bindparam("guild_id"),
        _post.c.channel_id == bindparam("channel_id"),
        # /hint and /solution without a task must never pick a member's private task.
        _post.c.session_id.is_(None),
    )
    .order_by(*_LATEST_FIRST)
    .limit(1)
)
_SET_MESSAGE = update(_post).where(_post.c.id == _p_post).values(message_id=bindparam("message_id"))
_INSERT_POST = _post.insert()
_DISCARD = delete(_post).where(
    _post.c.id == _p_post,
    _post.c.message_id.is_(None),
    # Nothing may point at it: a post someone has already used is kept, sent or not.
    ~exists().where(_attempt.c.post_id == _p_post),
    ~exists().where(_reveal.c.post_id == _p_post),
    ~exists().where(_score.c.post_id == _p_post),
)
_CLOSE = (
    update(_post)
    .where(_post.c.id == _p_post, _post.c.closed_at.is_(None))
    .values(closed_at=bindparam("closed_at"))
)

_OPEN_PUBLIC = (
    select(_post.c.task_id, _post.c.closes_at)
    .where(
        _post.c.guild_id == bindparam("guild_id"),
        _post.c.session_id.is_(None),
        _post.c.closed_at.is_(None),
    )
    .distinct()
)

_OPEN_PUBLIC_POSTS = (
    select(_post.c.id, _post.c.task_id, _post.c.closes_at, _post.c.channel_id, _post.c.message_id)
    .where(
        _post.c.guild_id == bindparam("g"),
        _post.c.session_id.is_(None),
        # Closed explicitly is closed for good; the closing time is `engine.post_closed`'s.
        _post.c.closed_at.is_(None),
    )
    .order_by(_post.c.id.desc())
)
"""A server's public posts not closed explicitly, the latest first: `ix_post_guild_task`'s
range. Whether the member can still score on one is the engine's (`Progress.can_score`)."""

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


def post_infos(conn: Connection, rows: Iterable[Row[Any]]) -> list[PostInfo]:
    """PostInfos of rows of `select_posts`, each with the Task of its version."""
    rows = list(rows)
    tasks = tasks_by_hash(conn, (row.task_hash for row in rows))
    return [_post_info(row._mapping, tasks.get(row.task_hash), _session_info(row)) for row in rows]


def post_info(conn: Connection, row: Row[Any]) -> PostInfo:
    (info,) = post_infos(conn, [row])
    return info


def _session_info(row: Row[Any]) -> SessionInfo | None:
    if row.session_id is None or row.s_user_id is None:
        return None
    return SessionInfo(
        id=row.session_id,
        guild_id=row.guild_id,
        user_id=row.s_user_id,
        kind=row.s_kind,
        topic=row.s_topic,
        difficulty=row.s_difficulty,
        started_at=row.s_started_at,
        last_active_at=row.s_last_active_at,
        ended_at=row.s_ended_at,
    )


def _post_info(
    columns: RowMapping | Mapping[str, Any], task: Task | None, session: SessionInfo | None
) -> PostInfo:
    """A post's PostInfo from its columns (a row read, or the values just inserted, whose
    timestamps are aware UTC as a read gives them)."""
    return PostInfo(
        id=columns["id"],
        guild_id=columns["guild_id"],
        channel_id=columns["channel_id"],
        message_id=columns["message_id"],
        task_id=columns["task_id"],
        posted_by=columns["posted_by"],
        posted_at=columns["posted_at"],
        schedule_id=columns["schedule_id"],
        closes_at=columns["closes_at"],
        closed_at=columns["closed_at"],
        task_version_id=columns["task_version_id"],
        task=task,
        session_id=columns["session_id"],
        session=session,
    )


def insert_posts(
    conn: Connection,
    tasks: Sequence[Task],
    *,
    guild_id: int,
    channel_id: int,
    posted_by: int | None,
    schedule_id: int | None,
    closes_at: datetime | None,
    now: datetime,
    session: SessionInfo | None = None,
) -> list[PostInfo]:
    """One new post per task, each recording its task's version; their PostInfos, in order,
    built from the values inserted (what reading them back gives, without the read: a Next
    makes a post on every click). `session`: a private practice or review task of it."""
    versions = ensure_versions(conn, tasks, now)
    infos = []
    for task, version_id in zip(tasks, versions, strict=True):
        values = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "message_id": None,
            "task_id": task.id,
            "task_version_id": version_id,
            "posted_by": posted_by,
            "posted_at": as_utc(now),
            "schedule_id": schedule_id,
            "closes_at": None if closes_at is None else as_utc(closes_at),
            "closed_at": None,
            "session_id": None if session is None else session.id,
        }
        inserted = conn.execute(_INSERT_POST, values).inserted_primary_key
        assert inserted is not None
        post_id = int(inserted[0])
        # `task` is what its version decodes to (`ensure_versions` caches it as such).
        infos.append(_post_info({**values, "id": post_id}, task, session))
    return infos


def create_post(
    conn: Connection,
    guild_id: int,
    channel_id: int,
    task: Task,
    posted_by: int | None,
    *,
    schedule_id: int | None,
    closes_at: datetime | None,
    now: datetime,
    session: SessionInfo | None = None,
) -> PostInfo:
    (post,) = insert_posts(
        conn,
        [task],
        guild_id=guild_id,
        channel_id=channel_id,
        posted_by=posted_by,
        schedule_id=schedule_id,
        closes_at=closes_at,
        now=now,
        session=session,
    )
    return post


def set_post_message(conn: Connection, post_id: int, message_id: int) -> None:
    conn.execute(_SET_MESSAGE, {"post_id": post_id, "message_id": message_id})


def discard_post(conn: Connection, post_id: int) -> bool:
    """Delete a post whose message Discord refused: without a message id and unused (no
    attempt, reveal or score). Whether it was deleted."""
    return conn.execute(_DISCARD, {"post_id": post_id}).rowcount == 1


def get_post(conn: Connection, post_id: int) -> PostInfo | None:
    row = conn.execute(_POST, {"post_id": post_id}).first()
    return None if row is None else post_info(conn, row)


def latest_post(conn: Connection, guild_id: int, channel_id: int) -> PostInfo | None:
    params = {"guild_id": guild_id, "channel_id": channel_id}
    row = conn.execute(_LATEST_IN_CHANNEL, params).first()
    return None if row is None else post_info(conn, row)


def search_posts(conn: Connection, guild_id: int, text: str, limit: int) -> list[PostInfo]:
    """Public posts only: the suggestions would show others' private tasks."""
    text = text.strip()
    match = _post.c.task_id.icontains(text, autoescape=True)
    number = refs.post_number(text)  # not every digit is ASCII, nor every number an id
    if number is not None:
        match = or_(match, _post.c.id == number)
    stmt = (
        select_posts()
        .where(_post.c.guild_id == guild_id, _post.c.session_id.is_(None), match)
        .order_by(*_LATEST_FIRST)
        .limit(limit)
    )
    return post_infos(conn, conn.execute(stmt))


def close_post(conn: Connection, post_id: int, now: datetime) -> bool:
    result = conn.execute(_CLOSE, {"post_id": post_id, "closed_at": now})
    return result.rowcount == 1


def open_public_tasks(conn: Connection, guild_id: int, now: datetime) -> frozenset[str]:
    """The tasks of the server's public posts still open at `now` (`engine.post_closed`):
    a member who has not finished one may still answer it, so nothing shown in a channel may
    tell its answer or its wrong options."""
    rows = conn.execute(_OPEN_PUBLIC, {"guild_id": guild_id})
    return frozenset(
        task_id for task_id, closes_at in rows if not post_closed(None, closes_at, now)
    )


def open_public_posts(conn: Connection, guild_id: int, now: datetime) -> list[Any]:
    """This server's open public posts, the latest first."""
    rows = conn.execute(_OPEN_PUBLIC_POSTS, {"g": guild_id}).all()
    return [row for row in rows if not post_closed(None, row.closes_at, now)]


def post_counts(conn: Connection, post_id: int) -> PostCounts:
    answered, solved, first_try = conn.execute(_POST_COUNTS, {"post_id": post_id}).one()
    return PostCounts(answered, solved, first_try)


_UNVERSIONED_TASKS = select(_post.c.task_id).where(_post.c.task_version_id.is_(None)).distinct()
_PIN = (
    update(_post)
    .where(_post.c.task_id == bindparam("task"), _post.c.task_version_id.is_(None))
    .values(task_version_id=bindparam("version"))
)


def unversioned_task_ids(conn: Connection) -> set[str]:
    """The tasks of posts without a version (made before versions existed, by 0.1.0)."""
    return set(conn.execute(_UNVERSIONED_TASKS).scalars())


def pin_unversioned(conn: Connection, tasks: Mapping[str, Task], now: datetime) -> int:
    """Give each post without a version the version of `tasks[its task id]`, where there is
    one; the number of posts pinned."""
    known = [tasks[task_id] for task_id in sorted(unversioned_task_ids(conn)) if task_id in tasks]
    if not known:
        return 0
    versions = ensure_versions(conn, known, now)
    pinned = 0
    for task, version_id in zip(known, versions, strict=True):
        pinned += conn.execute(_PIN, {"task": task.id, "version": version_id}).rowcount
    return pinned
