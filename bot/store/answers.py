"""Grading and recording answers and reveals: the hot write path.

One write unit of work reads each post's state once, lets the rules decide once, and writes:

- the post exists in this server: `_posts_in_guild` (else UnknownPostError), and the member
  may use it: a private practice or review task is its owner's, while its session lasts
  (`PostInfo.check_member`, in `_post_of`), and it has a task to grade and show: a 0.1.0 post
  whose task was gone when the service pinned has none (`PostInfo.graded_task`: refused);
- the member's progress: read from attempts (with the picks of each wrong one: the engine
  grades the same wrong answer again as a repeat, which stores nothing), reveals and the
  score (never stored twice), and what the rows mean decided by the engine
  (`bot.store.member_progress`); on a public post, with what the member did on the task's
  other public posts in the server (`Progress.with_other_posts`: a task's points count once,
  and so do its misses and hint), and within a batch, with the answers it records there
  (`Progress.after_answer_elsewhere`);
- whether the post takes the answer, the grade, what a hint or the solution costs: the rules in
  `bot.quiz.engine` (`check_open`, `grade`, `see_hint`, `open_solution`), on the task version
  the post was posted with (`PostInfo.graded_task`);
- the attempt limit: the database's own constraints (a fourth attempt cannot be stored).

A batch of answers (the service's group commit) costs two reads, whatever its size (three if
it mixes private and public posts), and one executemany per table it writes. Writers in
other processes (PostgreSQL) grade the same member on the same task one after the other,
whichever of its posts they answer (`_lock_members`): each must read the other's attempts. A
constraint violation (only possible if a writer bypassed those locks) rolls the batch's writes
back and replays it one answer at a time, so only the offending answer fails.

Each new score of a public post is also added to the member's leaderboard totals in the same
unit of work (`board_totals.add_scores`), so a leaderboard stays an index read however many
scores there are. A private post's score is stored (the member's own /stats counts it) but never
added: practice cannot be farmed for the leaderboard.

When a member finishes a post (its score row is written), the same unit of work rates their
review card for its task (`_rate_cards`): the rules `review.rating_of` and `review.rates_today`
(once per local day, in the server's zone, unless due), FSRS in `bot.review_scheduler`; one read
of the batch's cards and one upsert, only when something finished; what it did to each card is
returned with the answer (`Answered.card`), so the reply says the stored due time. A private
post's progress also says whether the member met its task on another post before
(`Progress.tried_before`): a review is never a first try. A click on a private post also moves
its session's `last_active_at`. The member's name is upserted only when this process has not
committed that name for them already (`KnownMembers`): most clicks write no member row.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import (
    Connection,
    bindparam,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from bot import review_scheduler
from bot.quiz.engine import (
    Outcome,
    PostLink,
    Progress,
    check_free_look,
    check_open,
    grade,
    hint_is_free,
    open_solution,
    see_hint,
)
from bot.quiz.errors import AttemptLimitError, UnknownPostError
from bot.quiz.review import CardUpdate, rates_today, rating_of
from bot.store import board_totals, dialect, review_cards
from bot.store.learning_tables import PracticeSession
from bot.store.member_progress import Pair, TaskKey, progress_of, progress_with_task, task_key
from bot.store.posts import (
    post_infos,
    select_posts,
    unfinished_post_of_task,
)
from bot.store.records import Answered, AnswerRequest, HintSeen, PostInfo, SolutionSeen
from bot.store.tables import (
    Attempt,
    BoardState,
    Member,
    MemberPeriod,
    MemberTotal,
    Post,
    Reveal,
    Score,
    table_of,
)

_post = table_of(Post)
_attempt = table_of(Attempt)
_reveal = table_of(Reveal)
_score = table_of(Score)
_member = table_of(Member)
_board = table_of(BoardState)
_total = table_of(MemberTotal)
_period = table_of(MemberPeriod)
_session = table_of(PracticeSession)

_POST = select_posts().where(_post.c.id == bindparam("id"))
_POSTS = select_posts().where(_post.c.id.in_(bindparam("ids", expanding=True)))
_INSERT_ATTEMPTS = _attempt.insert()
_INSERT_SCORES = _score.insert()
_TOUCH_SESSIONS = (
    update(_session)
    .where(_session.c.id == bindparam("sid"), _session.c.last_active_at < bindparam("at"))
    .values(last_active_at=bindparam("at"))
)


def _spread_answer(
    state: dict[Pair, Progress],
    by_task: Mapping[TaskKey, list[Pair]],
    key: TaskKey,
    done: Pair,
    outcome: Outcome,
) -> None:
    """A member's answer just recorded on the public post of `done`, on their other public
    posts of its task in this batch (`by_task[key]`), as a later batch would read it: a finish
    there, else one more miss."""
    for pair in by_task.get(key, ()):
        if pair != done:
            state[pair] = state[pair].after_answer_elsewhere(outcome)


def _posts_in_guild(conn: Connection, post_ids: Iterable[int]) -> dict[int, PostInfo]:
    """The posts, each with the task version it was posted with (`PostInfo.task`)."""
    ids = sorted(set(post_ids))
    rows = (
        conn.execute(_POST, {"id": ids[0]}).all()
        if len(ids) == 1
        else conn.execute(_POSTS, {"ids": ids}).all()
    )
    return {post.id: post for post in post_infos(conn, rows)}


def _post_of(
    posts: dict[int, PostInfo], post_id: int, guild_id: int, user_id: int, now: datetime
) -> PostInfo:
    """The one check that a post belongs to the server it is used in, and that the member
    may use it (a private task: its owner, while the session lasts; `PostInfo.check_member`)."""
    post = posts.get(post_id)
    if post is None or post.guild_id != guild_id:
        raise UnknownPostError(f"no posted task {post_id} in this server")
    post.check_member(user_id, now)
    return post


# -- what a unit of work writes ----------------------------------------------------------------


@dataclass(slots=True)
class _Writes:
    """The rows one unit of work adds, collected first and written with one executemany per
    table, all stamped with the unit's `now`."""

    now: datetime
    zone: ZoneInfo
    """The zone of a "local day" for a server without a configured one (the review cards'
    once-a-day rule)."""
    members: dict[tuple[int, int], str] = field(default_factory=dict)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    reveals: list[dict[str, Any]] = field(default_factory=list)
    scores: list[dict[str, Any]] = field(default_factory=list)
    board_scores: list[dict[str, Any]] = field(default_factory=list)
    """The scores of public posts: only these count on the leaderboard."""
    finished: list[tuple[PostInfo, int, Progress]] = field(default_factory=list)
    """(post, user id, progress) of each finish: each rates the member's review card."""
    sessions: set[int] = field(default_factory=set)
    """Private sessions clicked in: their `last_active_at` moves to `now`."""
    cards: list[CardUpdate] = field(default_factory=list)
    """What each of `finished` did to its review card, once flushed."""

    def member(self, guild_id: int, user_id: int, name: str) -> None:
        self.members[(guild_id, user_id)] = name

    def touch(self, post: PostInfo) -> None:
        """A click on a private post keeps its session alive."""
        if post.session_id is not None:
            self.sessions.add(post.session_id)

    def attempt(self, request: AnswerRequest, attempt_no: int, outcome: Outcome) -> None:
        """The attempt with the picks as the engine graded them (`Outcome.picks`, the form
        of `normalise_picks`), so a repeat of it is recognised when read back (`progress_of`).
        """
        self.attempts.append(
            {
                "post_id": request.post_id,
                "guild_id": request.guild_id,
                "user_id": request.user_id,
                "attempt_no": attempt_no,
                "picks": ",".join(outcome.picks),
                "correct": outcome.correct,
                "created_at": self.now,
            }
        )

    def reveal(self, post: PostInfo, user_id: int, kind: str) -> None:
        self.reveals.append(
            {
                "post_id": post.id,
                "user_id": user_id,
                "kind": kind,
                "guild_id": post.guild_id,
                "created_at": self.now,
            }
        )

    def score(self, post: PostInfo, user_id: int, progress: Progress) -> None:
        """The member finished the post: their one score row (on the leaderboard only for a
        public post), and a rating of their review card for its task."""
        row = {
                "post_id": post.id,
                "user_id": user_id,
                "guild_id": post.guild_id,
                "points": progress.points,
                "solved": progress.solved,
                "first_try": progress.first_try,
                "wrong_tries": progress.wrong_tries,
                "hint_seen": progress.hint_seen,
                "forfeited": progress.forfeited,
                "finished_at": self.now,
            }
        self.scores.append(row)
        if not post.private:
            self.board_scores.append(row)
        self.finished.append((post, user_id, progress))

    def flush(self, conn: Connection) -> None:
        if self.members:
            _upsert_members(conn, self.members, self.now)
        if self.attempts:
            conn.execute(_INSERT_ATTEMPTS, self.attempts)
        if self.reveals:
            conn.execute(_statements(conn).insert_reveals, self.reveals)
        if self.scores:
            conn.execute(_INSERT_SCORES, self.scores)
            if self.board_scores:
                board_totals.add_scores(conn, self.board_scores, self.now)
            self.cards = _rate_cards(conn, self.finished, self.now, self.zone)
        if self.sessions:
            conn.execute(
                _TOUCH_SESSIONS,
                [{"sid": sid, "at": self.now} for sid in sorted(self.sessions)],
            )


def _rate_cards(
    conn: Connection,
    finished: Sequence[tuple[PostInfo, int, Progress]],
    now: datetime,
    zone: ZoneInfo,
) -> list[CardUpdate]:
    """Rate each finisher's review card for the finished task, at most once per local day
    unless due (`review.rates_today`): one read of the cards (with each server's zone), one
    upsert. A batch that finishes the same task twice for a member rates it in order.
    Returns what each finish did to its card, in order (the reply tells the member)."""
    keys = [(post.guild_id, user_id, post.task_id) for post, user_id, _ in finished]
    cards, zones = review_cards.load_cards_with_zones(conn, keys)
    changed: dict[tuple[int, int, str], review_cards.StoredCard] = {}
    updates: list[CardUpdate] = []
    for (post, user_id, progress), key in zip(finished, keys, strict=True):
        card = cards.get(key)
        local = zones.get(post.guild_id) or zone
        if card is not None and not rates_today(card.last_review, card.due, now, local):
            updates.append(CardUpdate(None, card.due))
            continue
        rating = rating_of(progress)
        cards[key] = changed[key] = review_scheduler.review(
            card, rating, now, guild_id=post.guild_id, user_id=user_id, task_id=post.task_id
        )
        updates.append(CardUpdate(rating, changed[key].due))
    review_cards.save_cards(conn, list(changed.values()))
    return updates


@dataclass(frozen=True, slots=True)
class _DialectStatements:
    """The write statements whose SQL depends on the engine (upserts), built once each."""

    upsert_member: Any
    insert_reveals: Any


def _statements(conn: Connection) -> _DialectStatements:
    return dialect.built_once(conn, "answers", _build_statements)


def _build_statements(conn: Connection) -> _DialectStatements:
    return _DialectStatements(
        upsert_member=dialect.upsert(
            conn,
            _member,
            ("guild_id", "user_id"),
            lambda new: {"name": new.name},
            # The common case (same name as last time) does not rewrite the row.
            where=lambda new: _member.c.name.is_distinct_from(new.name),
        ),
        insert_reveals=dialect.insert_ignoring_conflicts(conn, _reveal),
    )


MemberKey = tuple[int, int]
"""(guild id, user id)."""

KNOWN_MEMBERS = "quizbot_known_members"
"""The execution option of a store's writer that carries its `KnownMembers`."""
_PENDING = "quizbot_members_written"
"""`Connection.info` key: the members written by the connection's open transaction."""


class KnownMembers:
    """Each member's name as this process last committed it, so that the answer path skips
    the member upsert (a statement per click) when the name is the same.

    Sound because only committed writes are remembered: a write is pending in its
    transaction (`Connection.info`) until `committed`, forgotten when that or one of its
    savepoints rolls back (`discard`). A member never seen, or forgotten (a restart, the
    oldest past `limit`), is written as before. No code deletes a member row, and a server's
    clicks are served by one process (its shard), so the last name this process wrote is
    the stored one."""

    def __init__(self, limit: int = 65_536) -> None:
        self._names: OrderedDict[MemberKey, str] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()  # a store's writers are threads (several on PostgreSQL)

    def to_write(self, conn: Connection, members: Mapping[MemberKey, str]) -> dict[MemberKey, str]:
        """The members whose name this process has not committed, now pending in `conn`'s
        transaction."""
        with self._lock:
            fresh = {key: name for key, name in members.items() if self._names.get(key) != name}
        if fresh:
            conn.info.setdefault(_PENDING, {}).update(fresh)
        return fresh

    def committed(self, conn: Connection) -> None:
        """`conn`'s transaction committed: its member writes are in the database."""
        written: dict[MemberKey, str] = conn.info.pop(_PENDING, {})
        with self._lock:
            for key, name in written.items():
                self._names[key] = name
                self._names.move_to_end(key)
            while len(self._names) > self._limit:
                self._names.popitem(last=False)

    @staticmethod
    def discard(conn: Connection) -> None:
        """Forget what `conn`'s transaction wrote (it, or a savepoint of it, rolled back)."""
        conn.info.pop(_PENDING, None)


def _upsert_members(conn: Connection, members: dict[MemberKey, str], now: datetime) -> None:
    known = conn.get_execution_options().get(KNOWN_MEMBERS)
    if isinstance(known, KnownMembers):
        members = known.to_write(conn, members)
        if not members:
            return
    rows = [
        {"guild_id": g, "user_id": u, "name": name, "first_seen": now}
        # In key order: two writers upserting the same members lock their rows in one order.
        for (g, u), name in sorted(members.items())
    ]
    conn.execute(_statements(conn).upsert_member, rows)


# -- the units of work -------------------------------------------------------------------------


def read_progress(conn: Connection, post_id: int, user_id: int) -> Progress:
    return progress_of(conn, [(post_id, user_id)])[(post_id, user_id)]


def member_state(
    conn: Connection, post_id: int, guild_id: int, user_id: int, now: datetime
) -> tuple[PostInfo, Progress]:
    """A post of this server that the member may use (`_post_of`) and their progress on it,
    in one read."""
    post = _member_post(conn, post_id, guild_id, user_id, now)
    return post, _progress_on(conn, post, user_id)


def _member_post(
    conn: Connection, post_id: int, guild_id: int, user_id: int, now: datetime
) -> PostInfo:
    return _post_of(_posts_in_guild(conn, [post_id]), post_id, guild_id, user_id, now)


def _progress_on(conn: Connection, post: PostInfo, user_id: int) -> Progress:
    """The member's progress on the post, with what they did on its task's other public
    posts (`progress_with_task`)."""
    state, _ = progress_with_task(conn, [(post.id, user_id)], {post.id: post})
    return state[(post.id, user_id)]


def _free_look_state(
    conn: Connection, post_id: int, guild_id: int, user_id: int, now: datetime
) -> tuple[PostInfo, Progress, bool]:
    """`member_state` for a hint or the solution, and whether the post is closed; a free look
    at a closed post is refused while the member can still answer its task elsewhere
    (`engine.check_free_look`). Holds the member's credit for the post's task (`_lock_members`)
    until the unit of work ends."""
    post = _member_post(conn, post_id, guild_id, user_id, now)
    post.graded_task()  # no task left to show a hint or solution of: refused, nothing stored
    _lock_members(conn, {post_id: post}, [(post_id, user_id)])
    progress = _progress_on(conn, post, user_id)
    closed = post.is_closed(now)
    elsewhere: PostLink | None = None
    if closed and not post.private:
        found = unfinished_post_of_task(conn, guild_id, user_id, post.task_id, now)
        if found is not None:
            elsewhere = (guild_id, found.channel_id, found.message_id)
    check_free_look(closed, progress, elsewhere)
    return post, progress, closed


def batch_committed(
    conn: Connection,
    requests: Sequence[AnswerRequest],
    answered: Sequence[Answered | Exception],
    now: datetime,
) -> bool:
    """Whether a batch whose COMMIT lost its reply committed after all: its first recorded
    attempt (the member's, on that post, stamped with the batch's `now`) is in the database,
    and the transaction was all or nothing. False when the batch recorded no attempt: then
    nothing can tell."""
    for request, result in zip(requests, answered, strict=True):
        if isinstance(result, Answered) and result.outcome.recorded:
            stmt = select(_attempt.c.id).where(
                _attempt.c.post_id == request.post_id,
                _attempt.c.user_id == request.user_id,
                _attempt.c.created_at == now,
            )
            return conn.execute(stmt.limit(1)).first() is not None
    return False


def upsert_member(conn: Connection, guild_id: int, user_id: int, name: str, now: datetime) -> None:
    _upsert_members(conn, {(guild_id, user_id): name}, now)


_UTC = ZoneInfo("UTC")


def record_batch(
    conn: Connection,
    requests: Sequence[AnswerRequest],
    now: datetime,
    zone: ZoneInfo = _UTC,
) -> list[Answered | Exception]:
    """`Store.answer_batch` inside its write unit of work. Raises IntegrityError when the
    database refused a row: the caller rolls back and calls `replay_batch`. `zone`: the
    local day of a server without a configured zone."""
    return _record(conn, requests, now, zone)


def replay_batch(
    conn: Connection,
    requests: Sequence[AnswerRequest],
    now: datetime,
    zone: ZoneInfo = _UTC,
) -> list[Answered | Exception]:
    """The slow path after a refused row: one answer at a time, each in a savepoint, so only
    the offending answer fails (with AttemptLimitError)."""
    results: list[Answered | Exception] = []
    for request in requests:
        try:
            with conn.begin_nested():
                (result,) = _record(conn, [request], now, zone)
        except IntegrityError as exc:
            result = AttemptLimitError(f"an attempt on post {request.post_id} was refused")
            result.__cause__ = exc
        results.append(result)
    return results


def _lock_members(
    conn: Connection, posts: Mapping[int, PostInfo], pairs: Iterable[Pair]
) -> None:
    """Hold each member's credit for each post's task in its server (`TaskKey`) until the unit
    of work ends, so two writers (several processes on PostgreSQL) grade one member's clicks
    one after the other, each seeing the other's attempt; and their clicks on two posts of one
    task too, each seeing the other's finish (a task's points count once). A post's task never
    changes, so its row is read before the lock. A no-op on SQLite, whose write lock already
    does this. Pairs of unknown posts lock nothing: they are refused."""
    keys = (task_key(posts[p], u) for p, u in pairs if p in posts)
    dialect.lock(conn, "answer", keys)


def _record(
    conn: Connection,
    requests: Sequence[AnswerRequest],
    now: datetime,
    zone: ZoneInfo,
) -> list[Answered | Exception]:
    posts = _posts_in_guild(conn, (r.post_id for r in requests))
    _lock_members(conn, posts, ((r.post_id, r.user_id) for r in requests))
    known = [r for r in requests if r.post_id in posts]
    state, by_task = progress_with_task(
        conn, sorted({(r.post_id, r.user_id) for r in known}), posts
    )
    writes = _Writes(now, zone)
    results: list[Answered | Exception] = []
    finishing: dict[int, int] = {}
    """Index in `results` -> index in `writes.finished` (its card update)."""
    for request in requests:
        try:
            post = _post_of(posts, request.post_id, request.guild_id, request.user_id, now)
            pair = (request.post_id, request.user_id)
            progress = state[pair]
            check_open(post.is_closed(now), progress)
            outcome = grade(post.graded_task(), progress, request.picks)
        except Exception as exc:  # the member's error (or the engine's): this answer only
            results.append(exc)
            continue
        writes.member(request.guild_id, request.user_id, request.member_name)
        writes.touch(post)
        if outcome.recorded:
            # Later answers in the batch by the same member see this one.
            state[pair] = outcome.progress
            writes.attempt(request, progress.attempts_used + 1, outcome)
            if outcome.progress.finished:
                finishing[len(results)] = len(writes.finished)
                writes.score(post, request.user_id, outcome.progress)
            if not post.private:
                _spread_answer(state, by_task, task_key(post, request.user_id), pair, outcome)
        results.append(Answered(post, outcome))
    writes.flush(conn)
    for index, finish in finishing.items():
        answered = results[index]
        assert isinstance(answered, Answered)
        results[index] = replace(answered, card=writes.cards[finish])
    return results


def reveal_hint(
    conn: Connection, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
) -> HintSeen:
    post, progress, closed = _free_look_state(conn, post_id, guild_id, user_id, now)
    after = see_hint(progress, closed=closed)
    writes = _Writes(now, _UTC)  # a hint finishes nothing: no card is rated
    writes.member(guild_id, user_id, name)
    writes.touch(post)
    if after != progress:
        writes.reveal(post, user_id, "hint")
    writes.flush(conn)
    return HintSeen(post, after, free=hint_is_free(progress, closed))


def reveal_solution(
    conn: Connection,
    post_id: int,
    guild_id: int,
    user_id: int,
    name: str,
    now: datetime,
    *,
    confirmed: bool,
    zone: ZoneInfo = _UTC,
) -> SolutionSeen:
    post, progress, closed = _free_look_state(conn, post_id, guild_id, user_id, now)
    access = open_solution(progress, closed=closed, confirmed=confirmed)
    writes = _Writes(now, zone)
    writes.touch(post)
    if access.shown:
        writes.member(guild_id, user_id, name)
    if access.recorded:
        writes.reveal(post, user_id, "solution")
    if access.forfeited_now:
        writes.score(post, user_id, access.progress)
    writes.flush(conn)
    return SolutionSeen(post, access, writes.cards[0] if writes.cards else None)


__all__ = [
    "KNOWN_MEMBERS",
    "KnownMembers",
    "member_state",
    "read_progress",
    "record_batch",
    "replay_batch",
    "reveal_hint",
    "reveal_solution",
]
