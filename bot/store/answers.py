"""The answer's write unit: grading and recording answers and reveals, the hot write path.

One unit reads each post and each member's progress once, lets `bot.quiz.engine` decide once
(`check_open`, `grade`, `see_hint`, `open_solution`, on the task version the post was made
with, `PostInfo.graded_task`), and writes. The member's progress is read here (`progress_of`,
`progress_with_task`: attempts with their picks, reveals, the score; what the rows mean is the
engine's), on a public post with the task's other public posts (`Progress.with_other_posts`).
The database's constraints are the attempt limit's last word.

A batch (the service's group commit) costs two reads whatever its size, and one executemany
per table. On PostgreSQL, writers of the same member and task take turns (`_lock_members`); a
constraint violation replays the batch one answer at a time, so only the offender fails.

In the same unit: a public score is added to the leaderboard totals (`add_scores`; private
scores never count), a finish rates the member's review card (`_rate_cards`: `review.rating_of`,
at most once per local day unless due, FSRS in `bot.quiz.review`) and the reply carries
the stored due time (`Answered.card`); a click on a private post moves its session's
`last_active_at`; the member's name is written only when this process has not committed it
(`KnownMembers`); a member's first try at a task on a channel post moves their and the
task's Elo ratings (`rate_first_tries`: `ratings.update`; practice and review move none),
read with the progress (`KnownRatings`) and written with one upsert per table.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    CompoundSelect,
    Connection,
    Float,
    Select,
    String,
    Table,
    bindparam,
    case,
    func,
    literal,
    null,
    select,
    true,
    union_all,
    update,
)
from sqlalchemy.exc import IntegrityError

from bot.clock import local_date, week_start, zone_or
from bot.quiz import ratings
from bot.quiz.engine import (
    HintAccess,
    Outcome,
    PostLink,
    Progress,
    SolutionAccess,
    check_free_look,
    check_open,
    grade,
    open_solution,
    see_hint,
)
from bot.quiz.errors import AttemptLimitError, UnknownPostError
from bot.quiz.ratings import Rating
from bot.quiz.review import CardUpdate, StoredCard, rates_today, rating_of, review
from bot.store import dialect
from bot.store.learning_tables import PracticeSession, ReviewCard
from bot.store.posts import (
    PostInfo,
    open_public_posts,
    post_infos,
    select_posts,
)
from bot.store.tables import (
    Attempt,
    BoardState,
    GuildConfig,
    Member,
    MemberPeriod,
    MemberRating,
    MemberTotal,
    Post,
    Reveal,
    Score,
    TaskRating,
    table_of,
)


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    post_id: int
    guild_id: int
    user_id: int
    member_name: str
    picks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Answered:
    """A graded answer and the post it was given on, as the write unit read it; the service
    answers with it as is (`QuizService.posted_of` adds the post's task for the reply)."""

    post: PostInfo
    outcome: Outcome
    card: CardUpdate | None = None
    """What the answer did to the member's review card, when it finished the post."""


@dataclass(frozen=True, slots=True)
class HintSeen:
    """A hint seen, as the write unit recorded it (the service answers with it as is)."""

    post: PostInfo
    access: HintAccess
    """The hints shown, and the member's progress after them (`engine.see_hint`)."""

    @property
    def progress(self) -> Progress:
        return self.access.progress

    @property
    def free(self) -> bool:
        """It cost nothing: the member had finished, or the post had closed."""
        return self.access.free


@dataclass(frozen=True, slots=True)
class SolutionSeen:
    """The solution asked for: shown, or first the forfeit to confirm (`access.shown`); the
    service answers with it as is."""

    post: PostInfo
    access: SolutionAccess
    card: CardUpdate | None = None
    """What forfeiting the post did to the member's review card (None unless forfeited now)."""


_post = table_of(Post)
_attempt = table_of(Attempt)
_reveal = table_of(Reveal)
_score = table_of(Score)


class PostKey(Protocol):
    """What reading progress needs of a post (`PostInfo` has it)."""

    @property
    def guild_id(self) -> int: ...

    @property
    def task_id(self) -> str: ...

    @property
    def private(self) -> bool: ...


Pair = tuple[int, int]
"""(post id, user id): one member on one post."""

_ATTEMPT, _REVEAL, _SCORE, _TASK_RATING, _MEMBER_RATING = 0, 1, 2, 3, 4

_task_rating = table_of(TaskRating)
_member_rating = table_of(MemberRating)


def _progress_statement(
    match: Callable[[Table], tuple[ColumnElement[bool], ...]],
    *,
    of_task: bool = False,
    rated: Callable[[Table, str], tuple[ColumnElement[bool], ...]] | None = None,
) -> CompoundSelect:
    """Every matched pair's attempts (one row each, with its picks: at most MAX_ATTEMPTS),
    reveals and score, in one statement. `of_task`: `match` may also test the post (a member's
    rows on a task's posts), and each row ends with its post's server and task. `rated` (with
    `of_task`): also the Elo rating rows it matches (answers in `a`, the value in a last column),
    so the answer's write unit needs no read of its own for them (issue 31's cost)."""
    no_picks = null().cast(String)
    task_columns = (_post.c.guild_id, _post.c.task_id) if of_task else ()
    no_value = (null().cast(Float).label("value"),) if rated else ()

    def part(table: Table, *columns: ColumnElement[Any]) -> Select[Any]:
        stmt = select(table.c.post_id, table.c.user_id, *columns, *task_columns, *no_value)
        if of_task:
            stmt = stmt.select_from(table.join(_post, _post.c.id == table.c.post_id))
        return stmt.where(*match(table))

    def rating(table: Table, kind: int, key: str) -> Select[Any]:
        assert rated is not None
        no_id = null().cast(BigInteger)
        return select(
            no_id,
            table.c.user_id if key == "user_id" else no_id,
            literal(kind),
            table.c.answers,
            literal(0),
            no_picks,
            table.c.guild_id,
            table.c.task_id if key == "task_id" else no_picks,
            table.c.value,
        ).where(*rated(table, key))

    ratings_parts = (
        (
            rating(_task_rating, _TASK_RATING, "task_id"),
            rating(_member_rating, _MEMBER_RATING, "user_id"),
        )
        if rated
        else ()
    )
    return union_all(
        part(
            _attempt,
            literal(_ATTEMPT).label("part"),
            case((_attempt.c.correct == true(), 1), else_=0).label("a"),
            literal(0).label("b"),
            _attempt.c.picks,
        ),
        part(
            _reveal,
            literal(_REVEAL),
            case((_reveal.c.kind == "hint", func.coalesce(_reveal.c.hints, 1)), else_=0),
            case((_reveal.c.kind == "solution", 1), else_=0),
            no_picks,
        ),
        part(_score, literal(_SCORE), _score.c.points, literal(0), no_picks),
        *ratings_parts,
    )


def _one_pair(table: Table) -> tuple[ColumnElement[bool], ...]:
    return (table.c.post_id == bindparam("post"), table.c.user_id == bindparam("user"))


def _many_pairs(table: Table) -> tuple[ColumnElement[bool], ...]:
    # Two plain INs seek the (post_id, user_id, …) key on every engine; a row-value IN would
    # scan SQLite's whole index. They also match cross pairs (another asked member on another
    # asked post), which `progress_of` drops.
    return (
        table.c.post_id.in_(bindparam("posts", expanding=True)),
        table.c.user_id.in_(bindparam("users", expanding=True)),
    )


def _one_task(table: Table) -> tuple[ColumnElement[bool], ...]:
    # `ix_post_guild_task` finds the task's posts, then each table's (post_id, user_id) key.
    return (
        _post.c.guild_id == bindparam("guild"),
        _post.c.task_id == bindparam("task"),
        _post.c.session_id.is_(None),
        table.c.user_id == bindparam("user"),
    )


def _many_tasks(table: Table) -> tuple[ColumnElement[bool], ...]:
    # Cross triples (an asked member on another asked task) are dropped by
    # `progress_with_task`.
    return (
        _post.c.guild_id.in_(bindparam("guilds", expanding=True)),
        _post.c.task_id.in_(bindparam("tasks", expanding=True)),
        _post.c.session_id.is_(None),
        table.c.user_id.in_(bindparam("users", expanding=True)),
    )


def _one_rating(table: Table, key: str) -> tuple[ColumnElement[bool], ...]:
    # The same names as `_one_task`'s: one set of parameters for the whole statement.
    return (table.c.guild_id == bindparam("guild"), table.c[key] == bindparam(_KEY_PARAM[key]))


def _many_ratings(table: Table, key: str) -> tuple[ColumnElement[bool], ...]:
    # Like `_many_tasks`: the rows of cross pairs go unused.
    return (
        table.c.guild_id.in_(bindparam("guilds", expanding=True)),
        table.c[key].in_(bindparam(_KEY_PARAM[key] + "s", expanding=True)),
    )


_KEY_PARAM = {"task_id": "task", "user_id": "user"}

# Built once: building a Core statement costs far more than running it (milliseconds for the
# union), and a prebuilt one reuses its compiled form. A lone answer (most batches outside
# bursts) takes the plain `=` forms: expanding an IN list is the costliest part of a run.
PROGRESS_ONE = _progress_statement(_one_pair)
PROGRESS_MANY = _progress_statement(_many_pairs)
TASK_PROGRESS_ONE = _progress_statement(_one_task, of_task=True)
TASK_PROGRESS_MANY = _progress_statement(_many_tasks, of_task=True)
RATED_PROGRESS_ONE = _progress_statement(_one_task, of_task=True, rated=_one_rating)
RATED_PROGRESS_MANY = _progress_statement(_many_tasks, of_task=True, rated=_many_ratings)


def _progress_rows(conn: Connection, pairs: Sequence[Pair]) -> Iterable[Any]:
    if len(pairs) == 1:
        ((post_id, user_id),) = pairs
        return conn.execute(PROGRESS_ONE, {"post": post_id, "user": user_id}).all()
    params = {"posts": sorted({p for p, _ in pairs}), "users": sorted({u for _, u in pairs})}
    return conn.execute(PROGRESS_MANY, params).all()


@dataclass(slots=True)
class _Facts:
    wrong: int = 0
    solved: bool = False
    hints: int = 0
    solution: bool = False
    points: int = 0
    """The score row's: they finished the post."""
    tried: set[tuple[str, ...]] = field(default_factory=set)

    def add(self, part: int, a: Any, b: Any, picks: str | None) -> None:
        """One row of `_progress_statement`."""
        if part == _ATTEMPT:
            if a:
                self.solved = True
            else:
                self.wrong += 1
                self.tried.add(tuple((picks or "").split(",")))
        elif part == _REVEAL:
            self.hints = max(self.hints, int(a or 0))
            self.solution |= bool(b)
        else:
            self.points = int(a or 0)

    def progress(self) -> Progress:
        return Progress.of_record(
            wrong_tries=self.wrong,
            solved=self.solved,
            hints_seen=self.hints,
            solution_seen=self.solution,
            points=self.points,
            tried=frozenset(self.tried),
        )


def progress_of(conn: Connection, pairs: Sequence[Pair]) -> dict[Pair, Progress]:
    """Each member's progress on each post; a pair with no rows has fresh progress."""
    facts: dict[Pair, _Facts] = defaultdict(_Facts)
    wanted = set(pairs)
    for post_id, user_id, part, a, b, picks in _progress_rows(conn, pairs):
        if (post_id, user_id) in wanted:
            facts[(post_id, user_id)].add(part, a, b, picks)
    return {pair: (facts[pair].progress() if pair in facts else Progress()) for pair in pairs}


TaskKey = tuple[int, str, int]
"""(server, task id, user id): one member's credit for one task in one server."""


def task_key(post: PostKey, user_id: int) -> TaskKey:
    return (post.guild_id, post.task_id, user_id)


@dataclass(slots=True)
class KnownRatings:
    """The Elo ratings of the public pairs' tasks and members, as `progress_with_task` read
    them (absent: no row yet); `rate_first_tries` moves them in place."""

    tasks: dict[tuple[int, str], Rating] = field(default_factory=dict)
    members: dict[tuple[int, int], Rating] = field(default_factory=dict)


def progress_with_task(
    conn: Connection,
    pairs: Sequence[Pair],
    posts: Mapping[int, PostKey],
    ratings_into: KnownRatings | None = None,
) -> tuple[dict[Pair, Progress], dict[TaskKey, list[Pair]]]:
    """Each member's progress on each (known) post. A private post's comes from its own rows
    (`progress_of`). A public post's comes from the member's rows on all its task's public
    posts in the server, in one read: a task's points count once, and so do its misses and
    hint (`Progress.with_other_posts`). Also returns the public pairs by task (the answer
    batch's, which applies each answer it records to the member's other posts of the task).
    `ratings_into`: the same read also fills it with the public pairs' Elo ratings."""
    by_task: dict[TaskKey, list[Pair]] = defaultdict(list)
    private: list[Pair] = []
    for post_id, user_id in pairs:
        post = posts[post_id]
        if post.private:
            private.append((post_id, user_id))
        else:
            by_task[task_key(post, user_id)].append((post_id, user_id))
    state = progress_of(conn, private) if private else {}
    if private:
        _mark_tried_before(conn, state, private, posts)
    if not by_task:
        return state, by_task
    rated = ratings_into is not None
    if len(by_task) == 1:
        ((guild, task, user),) = by_task
        params: dict[str, Any] = {"guild": guild, "task": task, "user": user}
        stmt = RATED_PROGRESS_ONE if rated else TASK_PROGRESS_ONE
    else:
        params = {
            "guilds": sorted({g for g, _, _ in by_task}),
            "tasks": sorted({t for _, t, _ in by_task}),
            "users": sorted({u for _, _, u in by_task}),
        }
        stmt = RATED_PROGRESS_MANY if rated else TASK_PROGRESS_MANY
    rows = conn.execute(stmt, params).all()
    facts: dict[TaskKey, dict[int, _Facts]] = defaultdict(lambda: defaultdict(_Facts))
    for post_id, user_id, part, a, b, picks, guild, task, *value in rows:
        if part > _SCORE:
            assert ratings_into is not None
            if part == _TASK_RATING:
                ratings_into.tasks[(guild, task)] = Rating(value[0], a)
            else:
                ratings_into.members[(guild, user_id)] = Rating(value[0], a)
        elif (guild, task, user_id) in by_task:
            facts[(guild, task, user_id)][post_id].add(part, a, b, picks)
    for key, task_pairs in by_task.items():
        on_task = facts.get(key, {})
        for post_id, user_id in task_pairs:
            own = on_task[post_id].progress() if post_id in on_task else Progress()
            others = [fact.progress() for other, fact in on_task.items() if other != post_id]
            state[(post_id, user_id)] = own.with_other_posts(others)
    return state, by_task


_EARLIER = union_all(
    *(
        select(table.c.post_id, table.c.user_id, _post.c.guild_id, _post.c.task_id)
        .select_from(table.join(_post, _post.c.id == table.c.post_id))
        .where(
            _post.c.guild_id.in_(bindparam("guilds", expanding=True)),
            _post.c.task_id.in_(bindparam("tasks", expanding=True)),
            table.c.user_id.in_(bindparam("users", expanding=True)),
        )
        for table in (_attempt, _score)
    )
)
"""The posts (public or private) on which members answered or finished tasks: a private
post's "first try" is only one if the member has none of its task's but that post."""


def _mark_tried_before(
    conn: Connection,
    state: dict[Pair, Progress],
    private: Sequence[Pair],
    posts: Mapping[int, PostKey],
) -> None:
    """Set `Progress.tried_before` on each private pair whose member answered or finished its
    task on another post of the server: a review (or a practice of a task met before) is
    never a first try, whatever this post's attempts say."""
    params = {
        "guilds": sorted({posts[p].guild_id for p, _ in private}),
        "tasks": sorted({posts[p].task_id for p, _ in private}),
        "users": sorted({u for _, u in private}),
    }
    met: dict[TaskKey, set[int]] = defaultdict(set)
    for post_id, user_id, guild, task in conn.execute(_EARLIER, params).all():
        met[(guild, task, user_id)].add(post_id)
    for pair in private:
        post_id, user_id = pair
        if met.get(task_key(posts[post_id], user_id), set()) - {post_id}:
            state[pair] = replace(state[pair], tried_before=True)


@dataclass(frozen=True, slots=True)
class _PublicPost:
    guild_id: int
    task_id: str
    private: bool = False


def public_progress(
    conn: Connection, guild_id: int, user_id: int, tasks: Mapping[int, str]
) -> dict[int, Progress]:
    """The member's progress on each of this server's public posts `tasks` (post id -> its
    task id), as the answer path reads it: in one read, with the task's other public posts."""
    posts = {post_id: _PublicPost(guild_id, task_id) for post_id, task_id in tasks.items()}
    state, _ = progress_with_task(conn, [(post_id, user_id) for post_id in sorted(posts)], posts)
    return {post_id: state[(post_id, user_id)] for post_id in posts}


_member = table_of(Member)
_board = table_of(BoardState)
_total = table_of(MemberTotal)
_period = table_of(MemberPeriod)
_session = table_of(PracticeSession)
_card = table_of(ReviewCard)
_config = table_of(GuildConfig)

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


def _rates(post: PostKey) -> bool:
    """A channel post's first tries move Elo ratings; practice and review move none."""
    return not post.private


def _first_at_task(before: Progress) -> bool:
    """The answer is the member's first try at the task in the server: no attempt on this
    post nor, as far as they count, on its other public posts (item analysis' population)."""
    elsewhere = before.wrong_elsewhere or before.finished_elsewhere
    return before.attempts_used == 0 and not elsewhere


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
    first_tries: list[FirstTry] = field(default_factory=list)
    """Members' first tries at a task on a channel post: each moves two Elo ratings."""
    ratings: KnownRatings | None = None
    """The ratings `first_tries` move, as the unit's progress read found them."""

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

    def first_try(self, post: PostInfo, user_id: int, correct: bool) -> None:
        self.first_tries.append(FirstTry(post.guild_id, user_id, post.task_id, correct))

    def reveal(self, post: PostInfo, user_id: int, kind: str, hints: int | None = None) -> None:
        """A reveal row; a hint row's `hints` raises the member's stored count on the post."""
        self.reveals.append(
            {
                "post_id": post.id,
                "user_id": user_id,
                "kind": kind,
                "guild_id": post.guild_id,
                "created_at": self.now,
                "hints": hints,
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
                add_scores(conn, self.board_scores, self.now)
            self.cards = _rate_cards(conn, self.finished, self.now, self.zone)
        if self.first_tries:
            assert self.ratings is not None, "first tries without their ratings read"
            rate_first_tries(conn, self.first_tries, self.ratings)
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
    cards, zones = load_cards_with_zones(conn, keys)
    changed: dict[CardKey, StoredCard] = {}
    updates: list[CardUpdate] = []
    for (post, user_id, progress), key in zip(finished, keys, strict=True):
        card = cards.get(key)
        local = zones.get(post.guild_id) or zone
        if card is not None and not rates_today(card.last_review, card.due, now, local):
            updates.append(CardUpdate(None, card.due))
            continue
        rating = rating_of(progress)
        cards[key] = changed[key] = review(
            card, rating, now, guild_id=post.guild_id, user_id=user_id, task_id=post.task_id
        )
        updates.append(CardUpdate(rating, changed[key].due))
    save_cards(conn, list(changed.values()))
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
        # A reveal is recorded once; a hint row's count only rises (the ladder's next hint).
        insert_reveals=dialect.upsert(
            conn,
            _reveal,
            ("post_id", "user_id", "kind"),
            lambda new: {"hints": new.hints},
            where=lambda new: func.coalesce(_reveal.c.hints, 1) < new.hints,
        ),
    )


MemberKey = tuple[int, int]
"""(guild id, user id)."""

KNOWN_MEMBERS = "quizbot_known_members"
"""The execution option of a store's writer that carries its `KnownMembers`."""
_PENDING = "quizbot_members_written"
"""`Connection.info` key: the members written by the connection's open transaction."""


class KnownMembers:
    """Each member's name as this process last committed it: the answer path skips the member
    upsert when the name is the same. Sound because only committed writes are remembered
    (pending in `Connection.info` until `committed`, dropped on a rollback), a deletion forgets
    its members (`forget_members`), and one process (the shard) serves a server's clicks."""

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

    def forget(self, conn: Connection, guild_id: int, user_id: int | None) -> None:
        """The member (None: every member of the server) was deleted in `conn`'s transaction:
        their next answer writes them again. Early is safe: forgetting costs one upsert."""

        def gone(key: MemberKey) -> bool:
            return key[0] == guild_id and user_id in (None, key[1])

        pending: dict[MemberKey, str] = conn.info.get(_PENDING, {})
        for key in [key for key in pending if gone(key)]:
            del pending[key]
        with self._lock:
            for key in [key for key in self._names if gone(key)]:
                del self._names[key]


def forget_members(conn: Connection, guild_id: int, user_id: int | None = None) -> None:
    """`KnownMembers.forget` for the store whose writer `conn` is (if any)."""
    known = conn.get_execution_options().get(KNOWN_MEMBERS)
    if isinstance(known, KnownMembers):
        known.forget(conn, guild_id, user_id)


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
    """The answers of a group commit (`Store.commit_group`). Raises IntegrityError when the
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


def _lock_members(conn: Connection, posts: Mapping[int, PostInfo], pairs: Iterable[Pair]) -> None:
    """Hold each member's credit for each post's task (`TaskKey`) until the unit ends, so that
    writers on PostgreSQL grade one member's clicks on a task one after the other, each seeing
    the other's attempt or finish. A no-op on SQLite, whose write lock does this already."""
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
    rated = KnownRatings() if any(_rates(post) for post in posts.values()) else None
    state, by_task = progress_with_task(
        conn, sorted({(r.post_id, r.user_id) for r in known}), posts, rated
    )
    writes = _Writes(now, zone, ratings=rated)
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
            if _rates(post) and _first_at_task(progress):
                writes.first_try(post, request.user_id, outcome.correct)
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
    access = see_hint(post.graded_task(), progress, closed=closed)
    writes = _Writes(now, _UTC)  # a hint finishes nothing: no card is rated
    writes.member(guild_id, user_id, name)
    writes.touch(post)
    if access.progress != progress:
        writes.reveal(post, user_id, "hint", access.progress.hints_seen)
    writes.flush(conn)
    return HintSeen(post, access)


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


@dataclass(frozen=True, slots=True)
class OpenPost:
    """A public post the member can still score on (`unfinished_public_posts`)."""

    task_id: str
    channel_id: int
    message_id: int | None
    """None until its message was sent."""


def unfinished_public_posts(
    conn: Connection, guild_id: int, user_id: int, now: datetime
) -> list[OpenPost]:
    """This server's open public posts on which the member can still score
    (`Progress.can_score`, with their progress as the answer path reads it), the latest first.
    Two reads: the open posts, then the member's rows on their tasks' public posts."""
    rows = open_public_posts(conn, guild_id, now)
    if not rows:
        return []
    progress = public_progress(conn, guild_id, user_id, {row.id: row.task_id for row in rows})
    return [
        OpenPost(row.task_id, row.channel_id, row.message_id)
        for row in rows
        if progress[row.id].can_score
    ]


def unfinished_post_of_task(
    conn: Connection, guild_id: int, user_id: int, task_id: str, now: datetime
) -> OpenPost | None:
    """The latest open public post of `task_id` in this server, if the member can still score
    with that task there (`unfinished_public_posts`)."""
    return next(
        (p for p in unfinished_public_posts(conn, guild_id, user_id, now) if p.task_id == task_id),
        None,
    )


# -- the answer's writes to the leaderboard totals and review cards -------------------------


def lock_boards(conn: Connection, guild_ids: Sequence[int], *, shared: bool = False) -> None:
    """Keep the servers' totals from being built and added to at once (on PostgreSQL, where
    writers run side by side): a build (exclusive) waits for the writers adding scores
    (shared), and they for it, so a score is either in the build's sums or added after it,
    never both nor neither. Take it before reading `board_state`."""
    dialect.lock(conn, "board", guild_ids, shared=shared)


def period_keys(day: date) -> tuple[tuple[str, date], tuple[str, date]]:
    """The kept periods a score finished on local `day` counts toward: its day and its ISO
    week (`add_scores` adds to them, `board_totals.build_board` rebuilds them)."""
    return ("day", day), ("week", week_start(day))


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
        for kind, start in period_keys(day):
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


CardKey = tuple[int, int, str]
"""(guild id, user id, task id): one member's card for one task."""


def card_of(row: Any) -> StoredCard:
    return StoredCard(
        guild_id=row.guild_id,
        user_id=row.user_id,
        task_id=row.task_id,
        state=row.state,
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=row.due,
        last_review=row.last_review,
    )


def save_cards(conn: Connection, cards: Sequence[StoredCard]) -> None:
    """Insert or replace these cards (one statement)."""
    if not cards:
        return
    rows = [
        {
            "guild_id": card.guild_id,
            "user_id": card.user_id,
            "task_id": card.task_id,
            "state": card.state,
            "step": card.step,
            "stability": card.stability,
            "difficulty": card.difficulty,
            "due": card.due,
            "last_review": card.last_review,
        }
        for card in cards
    ]
    conn.execute(_upsert(conn), rows)


def _upsert(conn: Connection) -> Any:
    """`save_cards`' statement: built once per engine (it runs in the answers' write unit)."""
    key = ("guild_id", "user_id", "task_id")
    return dialect.built_once(conn, "review_card upsert", lambda c: dialect.upsert(c, _card, key))


# Three plain INs (like the answers' progress read): they seek the primary key on every
# engine; the cross pairs they also match are dropped in Python.
_CARDS_WITH_ZONES = (
    select(_card, _config.c.timezone.label("zone"))
    .select_from(_card.outerjoin(_config, _config.c.guild_id == _card.c.guild_id))
    .where(
        _card.c.guild_id.in_(bindparam("guilds", expanding=True)),
        _card.c.user_id.in_(bindparam("users", expanding=True)),
        _card.c.task_id.in_(bindparam("tasks", expanding=True)),
    )
)


def load_cards_with_zones(
    conn: Connection, keys: Iterable[CardKey]
) -> tuple[dict[CardKey, StoredCard], dict[int, ZoneInfo]]:
    """The existing cards of these (guild, user, task) keys, across servers, in one read; and
    the configured zone of each server that has one of them (a card's "local day" needs it; a
    missing card needs none). A server without a (known) configured zone is left out."""
    wanted = set(keys)
    if not wanted:
        return {}, {}
    params = {
        "guilds": sorted({g for g, _, _ in wanted}),
        "users": sorted({u for _, u, _ in wanted}),
        "tasks": sorted({t for _, _, t in wanted}),
    }
    cards: dict[CardKey, StoredCard] = {}
    zones: dict[int, ZoneInfo] = {}
    for row in conn.execute(_CARDS_WITH_ZONES, params).all():
        key = (row.guild_id, row.user_id, row.task_id)
        if key not in wanted:
            continue
        cards[key] = card_of(row)
        if row.guild_id not in zones and (zone := zone_or(row.zone, None)) is not None:
            zones[row.guild_id] = zone
    return cards, zones


# -- the answer's writes to the Elo ratings ---------------------------------------------------
# Read by /insights and /practice (`store/ratings.py`). On PostgreSQL two writers may rate the
# same task at once: the upserts add each rating's change to the stored row (like the totals),
# so neither write is lost.


@dataclass(frozen=True, slots=True)
class FirstTry:
    """A member's first try at a task on a channel post, as the write unit graded it."""

    guild_id: int
    user_id: int
    task_id: str
    correct: bool


def _rating_adder(conn: Connection, table: Table, key: tuple[str, ...]) -> Any:
    return dialect.upsert(
        conn,
        table,
        key,
        lambda new: {"value": table.c.value + new.value, "answers": table.c.answers + new.answers},
    )


def _rating_adders(conn: Connection) -> tuple[Any, Any]:
    return dialect.built_once(
        conn,
        "rating adders",
        lambda c: (
            _rating_adder(c, _task_rating, ("guild_id", "task_id")),
            _rating_adder(c, _member_rating, ("guild_id", "user_id")),
        ),
    )


_UNRATED = Rating()


def rate_first_tries(conn: Connection, tries: Sequence[FirstTry], known: KnownRatings) -> None:
    """Move the member's and the task's ratings by each first try, in order (a batch may rate
    one task or member twice; `ratings.update` computes), from `known` (the unit's progress
    read, which holds every try's rows): one upsert per table, each touched row once."""
    tasks, members = known.tasks, known.members
    task_before: dict[tuple[int, str], Rating] = {}
    member_before: dict[tuple[int, int], Rating] = {}
    for t in tries:
        task_key, member_key = (t.guild_id, t.task_id), (t.guild_id, t.user_id)
        level = tasks.get(task_key, _UNRATED)
        skill = members.get(member_key, _UNRATED)
        task_before.setdefault(task_key, level)
        member_before.setdefault(member_key, skill)
        members[member_key], tasks[task_key] = ratings.update(skill, level, t.correct)
    add_tasks, add_members = _rating_adders(conn)
    # In key order: concurrent writers (PostgreSQL) lock the rows in one order. A lone row
    # goes as one execute, not an executemany (most batches: a third cheaper).
    task_rows = [
        _rating_change(before, tasks[key], guild_id=key[0], task_id=key[1])
        for key, before in sorted(task_before.items())
    ]
    member_rows = [
        _rating_change(before, members[key], guild_id=key[0], user_id=key[1])
        for key, before in sorted(member_before.items())
    ]
    conn.execute(add_tasks, task_rows[0] if len(task_rows) == 1 else task_rows)
    conn.execute(add_members, member_rows[0] if len(member_rows) == 1 else member_rows)


def _rating_change(before: Rating, after: Rating, **key: Any) -> dict[str, Any]:
    """What the upsert adds to the row: on a new row (`before` unrated), the whole rating."""
    key["value"] = after.value - before.value
    key["answers"] = after.answers - before.answers
    return key
