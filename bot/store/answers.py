"""Grading and recording answers and reveals: the hot write path.

It runs a few fixed SQL statements straight on the unit of work's DBAPI cursor: measured,
SQLAlchemy's per-statement overhead (~35 µs, plus compiling a SAVEPOINT each time) was 90% of
an answer's cost, and the group-committed answer path is the one that must keep up with bursts.

Each new score is also added to the member's leaderboard totals here, in the same unit of
work, so a leaderboard stays an index read however many scores there are (see `board_totals`).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy import Connection

from bot.quiz.engine import Outcome, Progress, Status, forfeit, see_hint
from bot.quiz.errors import AttemptLimitError, PostClosedError, UnknownPostError
from bot.quiz.tasks import MAX_ATTEMPTS
from bot.store.periods import local_date, to_utc_naive, week_start
from bot.store.records import AnswerRequest, Grader
from bot.store.timestamps import sql_time

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

_RECORDED = frozenset({Status.CORRECT, Status.WRONG, Status.FAILED})


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

    Values are bound as the DBAPI gets them: timestamps as `sql_time` text, flags as 0/1.
    """

    def __init__(self, conn: Connection, now: datetime) -> None:
        self._cursor = conn.connection.cursor()
        self.moment = to_utc_naive(now)
        self.stamp = sql_time(self.moment)
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


def read_progress(conn: Connection, post_id: int, user_id: int) -> Progress:
    row = (
        conn.connection.cursor()
        .execute(_STATE_SQL, {"post_id": post_id, "user_id": user_id, "now": ""})
        .fetchone()
    )
    return _progress_of(row)


def upsert_member(conn: Connection, guild_id: int, user_id: int, name: str, now: datetime) -> None:
    _Writes(conn, now).upsert_member(guild_id, user_id, name)


def record_batch(
    conn: Connection, requests: Sequence[AnswerRequest], grade: Grader, now: datetime
) -> list[Outcome | Exception]:
    """`Store.answer_batch` inside its write unit of work."""
    results: list[Outcome | Exception] = []
    upserted: set[tuple[int, int, str]] = set()
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


def reveal_hint(
    conn: Connection, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
) -> Progress:
    writes = _Writes(conn, now)
    progress = writes.progress(post_id, guild_id, user_id)
    writes.upsert_member(guild_id, user_id, name)
    after = see_hint(progress)
    if after != progress:
        writes.insert_reveal(post_id, guild_id, user_id, "hint")
    return after


def reveal_solution(
    conn: Connection, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
) -> Progress:
    writes = _Writes(conn, now)
    progress = writes.progress(post_id, guild_id, user_id)
    writes.upsert_member(guild_id, user_id, name)
    writes.insert_reveal(post_id, guild_id, user_id, "solution")
    after = forfeit(progress)
    if after.finished and not progress.finished:
        writes.insert_score(post_id, guild_id, user_id, after)
    return after
