"""A member's progress on posts, read from the stored rows: one read of their attempts (with
the picks of each wrong one), reveals and scores, folded into `bot.quiz.engine.Progress`.

What the rows mean is the engine's: `Progress.of_record` (a post's own rows, and when a solution
seen was a forfeit) and `Progress.with_other_posts` (on a public post, what the member did on
the task's other public posts in the server). Read by the answer path (`bot.store.answers`) and
by what practice and review hold back (`posts.unfinished_public_posts`), so both see the same
progress.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from sqlalchemy import (
    ColumnElement,
    CompoundSelect,
    Connection,
    Select,
    String,
    Table,
    bindparam,
    case,
    literal,
    null,
    select,
    true,
    union_all,
)

from bot.quiz.engine import Progress
from bot.store.tables import Attempt, Post, Reveal, Score, table_of

_post = table_of(Post)
_attempt = table_of(Attempt)
_reveal = table_of(Reveal)
_score = table_of(Score)


class PostKey(Protocol):
    """What reading progress needs of a post (`records.PostInfo` has it)."""

    @property
    def guild_id(self) -> int: ...

    @property
    def task_id(self) -> str: ...

    @property
    def private(self) -> bool: ...


Pair = tuple[int, int]
"""(post id, user id): one member on one post."""

_ATTEMPT, _REVEAL, _SCORE = 0, 1, 2


def _progress_statement(
    match: Callable[[Table], tuple[ColumnElement[bool], ...]], *, of_task: bool = False
) -> CompoundSelect:
    """Every matched pair's attempts (one row each, with its picks: at most MAX_ATTEMPTS),
    reveals and score, in one statement. `of_task`: `match` may also test the post (a member's
    rows on a task's posts), and each row ends with its post's server and task."""
    no_picks = null().cast(String)
    task_columns = (_post.c.guild_id, _post.c.task_id) if of_task else ()

    def part(table: Table, *columns: ColumnElement[Any]) -> Select[Any]:
        stmt = select(table.c.post_id, table.c.user_id, *columns, *task_columns)
        if of_task:
            stmt = stmt.select_from(table.join(_post, _post.c.id == table.c.post_id))
        return stmt.where(*match(table))

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
            case((_reveal.c.kind == "hint", 1), else_=0),
            case((_reveal.c.kind == "solution", 1), else_=0),
            no_picks,
        ),
        part(_score, literal(_SCORE), _score.c.points, literal(0), no_picks),
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


# Built once: building a Core statement costs far more than running it (milliseconds for the
# union), and a prebuilt one reuses its compiled form. A lone answer (most batches outside
# bursts) takes the plain `=` forms: expanding an IN list is the costliest part of a run.
PROGRESS_ONE = _progress_statement(_one_pair)
PROGRESS_MANY = _progress_statement(_many_pairs)
TASK_PROGRESS_ONE = _progress_statement(_one_task, of_task=True)
TASK_PROGRESS_MANY = _progress_statement(_many_tasks, of_task=True)


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
    hint: bool = False
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
            self.hint |= bool(a)
            self.solution |= bool(b)
        else:
            self.points = int(a or 0)

    def progress(self) -> Progress:
        return Progress.of_record(
            wrong_tries=self.wrong,
            solved=self.solved,
            hint_seen=self.hint,
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


def progress_with_task(
    conn: Connection, pairs: Sequence[Pair], posts: Mapping[int, PostKey]
) -> tuple[dict[Pair, Progress], dict[TaskKey, list[Pair]]]:
    """Each member's progress on each (known) post. A private post's comes from its own rows
    (`progress_of`). A public post's comes from the member's rows on all its task's public
    posts in the server, in one read: a task's points count once, and so do its misses and
    hint (`Progress.with_other_posts`). Also returns the public pairs by task (the answer
    batch's, which applies each answer it records to the member's other posts of the task)."""
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
    if len(by_task) == 1:
        ((guild, task, user),) = by_task
        params: dict[str, Any] = {"guild": guild, "task": task, "user": user}
        rows: Iterable[Any] = conn.execute(TASK_PROGRESS_ONE, params).all()
    else:
        params = {
            "guilds": sorted({g for g, _, _ in by_task}),
            "tasks": sorted({t for _, t, _ in by_task}),
            "users": sorted({u for _, _, u in by_task}),
        }
        rows = conn.execute(TASK_PROGRESS_MANY, params).all()
    facts: dict[TaskKey, dict[int, _Facts]] = defaultdict(lambda: defaultdict(_Facts))
    for post_id, user_id, part, a, b, picks, guild, task in rows:
        if (guild, task, user_id) in by_task:
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
