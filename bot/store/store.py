"""The unit-of-work layer: every public method is one short transaction, or (the `…_unit`
methods) a `Unit` of work to run in the answers' group commit (`commit_group`).

Sync on purpose: the async service runs these methods in a worker thread. Nothing returned
is an ORM object (only frozen dataclasses and plain values), so results can cross threads.

`Store` owns the transactions; what runs inside them lives in one module per job: `posts`
(with `task_versions`, the task each post was made from), `answers` (the hot write path),
`leaderboard` and `board_totals`, `stats`, `guild_config`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Generic, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import DBAPIError, IntegrityError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.pool import StaticPool

from bot.quiz.engine import Progress
from bot.quiz.errors import StoreAction, StoreUnavailableError
from bot.quiz.tasks import Task
from bot.store import (
    answers,
    board_totals,
    dialect,
    faults,
    guild_config,
    leaderboard,
    posts,
    reminders,
    review_cards,
    sessions,
    stats,
)
from bot.store.db import file_watch, reader, writer
from bot.store.periods import Period
from bot.store.records import (
    Answered,
    AnswerRequest,
    GuildConfigInfo,
    HintSeen,
    Leaderboard,
    MemberActivity,
    MemberStats,
    PostCounts,
    PostInfo,
    SolutionSeen,
)

_UTC = ZoneInfo("UTC")
log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Unit(Generic[T]):
    """A write unit of work not yet run: `Store.commit_group` runs it in the transaction of
    a group commit, with the answers and other units queued with it (or alone).
    `action` is what a refusal of the database loses (its StoreError's message)."""

    run: Callable[[Connection], T]
    action: StoreAction


@dataclass(frozen=True, slots=True)
class Group:
    """What one group commit did: each answer's result and each unit's, in order; a slot
    holds the exception that answer or unit alone failed with."""

    answered: list[Answered | Exception]
    units: list[Any]


class Store:
    """All database access. Thread-safe: each call checks out its own pooled connection.

    Reads run in a deferred transaction (a consistent WAL snapshot, never blocked by writers;
    REPEATABLE READ on PostgreSQL); writes run in `BEGIN IMMEDIATE`, so read-then-write units
    (grading) are serialised by SQLite's write lock instead of failing with SQLITE_BUSY. On
    PostgreSQL writers run side by side (READ COMMITTED), and the units that read then write
    serialise on what they share with `dialect.lock` (a member's post, a server's totals).
    Every unit of work turns a fault of the database into a domain error (`read`, `write`):
    the one place that does.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.default_zone = _UTC
        """The zone of a "local day" for a server without a configured zone (a review card is
        rated once per local day); the service sets its own default zone here."""
        self._reader = reader(engine)
        self._members = answers.KnownMembers()
        """Member names this store committed: an answer under the same name writes no member."""
        self._writer = writer(engine).execution_options(**{answers.KNOWN_MEMBERS: self._members})
        if not event.contains(engine, "rollback_savepoint", _forget_members):
            event.listen(engine, "rollback_savepoint", _forget_members)
        self._file = file_watch(engine)
        # An in-memory engine has a single shared connection; interleaving two threads'
        # transactions on it would mix them, so units of work take turns.
        self._serial: contextlib.AbstractContextManager[Any] = (
            threading.RLock() if isinstance(engine.pool, StaticPool) else contextlib.nullcontext()
        )

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """A read unit of work (deferred BEGIN: a consistent snapshot). For store modules.

        A database fault (a lock held too long, a damaged file, ...) raises StoreBusyError or
        StoreUnavailableError, and is logged once (`faults`)."""
        with (
            faults.translated(self.engine.url, StoreAction.READ),
            self._serial,
            self._reader.connect() as conn,
            conn.begin(),
        ):
            yield conn

    @contextlib.contextmanager
    def write(self, action: StoreAction = StoreAction.WRITE) -> Iterator[Connection]:
        """A write unit of work (BEGIN IMMEDIATE); commits on exit, rolls back on error.

        A database fault (the write lock not obtained within the busy timeout, a full disk, a
        damaged or read-only file, ...) rolls it back and raises StoreBusyError or
        StoreUnavailableError, whose message says what `action` lost; logged once (`faults`).

        An SQLite file deleted or replaced while the bot runs (`db.FileWatch`) refuses the
        write as unavailable, looked at before it and again after its commit (the connection
        still held): a commit into the file a restart no longer finds is never acknowledged.
        """
        with faults.translated(self.engine.url, action), self._serial:
            if self._file is not None:
                self._file.check()
            with self._writer.connect() as conn:
                try:
                    with conn.begin():
                        yield conn
                    if self._file is not None:
                        self._file.check(committed=True)
                    self._members.committed(conn)
                finally:
                    answers.KnownMembers.discard(conn)

    # -- members and posts --------------------------------------------------------------------

    def upsert_member(
        self, guild_id: int, user_id: int, name: str, now: datetime | None = None
    ) -> None:
        """Remember a member's current display name (answers and reveals do this too)."""
        with self.write() as conn:
            answers.upsert_member(conn, guild_id, user_id, name, now or datetime.now(UTC))

    def create_post(
        self,
        guild_id: int,
        channel_id: int,
        task: Task,
        posted_by: int | None,
        *,
        schedule_id: int | None = None,
        closes_at: datetime | None = None,
        now: datetime,
    ) -> PostInfo:
        """A new post of `task`, recording the task's version with it (one is stored when this
        exact content has none yet): the post keeps this task whatever the banks do later."""
        with self.write(StoreAction.POST) as conn:
            return posts.create_post(
                conn,
                guild_id,
                channel_id,
                task,
                posted_by,
                schedule_id=schedule_id,
                closes_at=closes_at,
                now=now,
            )

    def pin_unversioned(self, tasks: Mapping[str, Task], now: datetime) -> int:
        """Pin each post without a task version (made by 0.1.0, before versions) to the version
        of `tasks[its task id]`, where `tasks` has it; the number of posts pinned. A read
        first, so the usual case (nothing to pin) takes no write lock."""
        with self.read() as conn:
            if not posts.unversioned_task_ids(conn) & tasks.keys():
                return 0
        with self.write() as conn:
            return posts.pin_unversioned(conn, tasks, now)

    def set_post_message(self, post_id: int, message_id: int) -> None:
        with self.write() as conn:
            posts.set_post_message(conn, post_id, message_id)

    def discard_post(self, post_id: int) -> bool:
        """Delete a post that never went out (`posts.discard_post`); whether it was deleted."""
        with self.write(StoreAction.POST) as conn:
            return posts.discard_post(conn, post_id)

    def get_post(self, post_id: int) -> PostInfo | None:
        with self.read() as conn:
            return posts.get_post(conn, post_id)

    def latest_post(self, guild_id: int, channel_id: int) -> PostInfo | None:
        with self.read() as conn:
            return posts.latest_post(conn, guild_id, channel_id)

    def search_posts(self, guild_id: int, text: str, limit: int = 25) -> list[PostInfo]:
        """Most recent first; `text` matches a task id substring (case-insensitive for ASCII),
        or a post id when it is a number ("12" or "#12")."""
        with self.read() as conn:
            return posts.search_posts(conn, guild_id, text, limit)

    def close_post(self, post_id: int, now: datetime) -> bool:
        """Close a post for answers; False if it was already closed (or does not exist)."""
        with self.write() as conn:
            return posts.close_post(conn, post_id, now)

    def open_public_tasks(self, guild_id: int, now: datetime) -> frozenset[str]:
        """`posts.open_public_tasks`: what a channel must not be told the answers of."""
        with self.read() as conn:
            return posts.open_public_tasks(conn, guild_id, now)

    def post_counts(self, post_id: int) -> PostCounts:
        with self.read() as conn:
            return posts.post_counts(conn, post_id)

    # -- progress and answers -----------------------------------------------------------------

    def progress(self, post_id: int, user_id: int) -> Progress:
        """A member's progress on a post (fresh progress for an unknown post)."""
        with self.read() as conn:
            return answers.read_progress(conn, post_id, user_id)

    def member_state(
        self, post_id: int, guild_id: int, user_id: int, now: datetime | None = None
    ) -> tuple[PostInfo, Progress]:
        """A post of this server and the member's progress on it. Raises UnknownPostError,
        and for a private post PrivatePostError (not the member's) or SessionExpiredError."""
        with self.read() as conn:
            return answers.member_state(conn, post_id, guild_id, user_id, now or datetime.now(UTC))

    def answer(self, request: AnswerRequest, now: datetime) -> Answered:
        """A batch of one: raises what the batch would have put in the slot."""
        (result,) = self.answer_batch([request], now)
        if isinstance(result, Exception):
            raise result
        return result

    def answer_batch(
        self, requests: Sequence[AnswerRequest], now: datetime
    ) -> list[Answered | Exception]:
        """Grade and record many answers in ONE write transaction (group commit).

        Requests are graded in order, so later requests see earlier ones (the same member
        twice in a batch is graded twice, in sequence). A request that fails (the engine
        refuses it, its post is unknown or closed, or the database rejects an attempt) leaves no
        trace and gets its exception in its slot; the rest commit. A fault of the transaction
        itself raises, and then nothing was written: StoreBusyError (the write lock not
        obtained within the busy timeout) or StoreUnavailableError (a full disk, a damaged or
        read-only file), each saying "your answer was not recorded".

        Per-slot errors: UnknownPostError (no such post in that guild), PostClosedError
        (closed, and the member has not finished), AttemptLimitError (the database refused
        the attempt or the score: only possible if a writer bypassed the write lock), or
        whatever `engine.grade` raises (e.g. InvalidAnswerError), UnknownTaskError (a 0.1.0
        post whose task was gone when the service pinned: `PostInfo.graded_task`); on a
        private post, PrivatePostError (another member's) or SessionExpiredError (its session
        ended).

        A private (practice or review) post's score is stored but never added to the
        leaderboard. Every finish rates the member's review card for the task, at most once
        per local day (in the server's zone, else `default_zone`) unless the card is due.
        """
        return self.commit_group(requests, now, ()).answered

    def commit_group(
        self,
        requests: Sequence[AnswerRequest],
            now: datetime,
        units: Sequence[Unit[Any]],
    ) -> Group:
        """The answers (as `answer_batch` records them), then the units, in ONE write
        transaction: one commit, and one wait for the disk, for all that arrived together.

        A unit that fails (a member's error, a refused row, a bug) is rolled back to its
        savepoint and gets its exception in its slot; nothing else is undone. A fault of the
        transaction itself raises (StoreBusyError, StoreUnavailableError), and then nothing was
        written; its message says what the first of the group loses (an answer, else the first
        unit's action). A unit alone needs no savepoint: its failure is the transaction's.
        Except on PostgreSQL, a COMMIT whose connection was lost and which the database shows
        done (a recorded answer of the group is there): the group's results are returned."""
        if not requests and not units:
            return Group([], [])  # not worth taking the write lock for
        action = StoreAction.ANSWER if requests else units[0].action
        try:
            return self._commit_group(action, answers.record_batch, requests, now, units)
        except IntegrityError:
            if not requests:
                raise  # a lone unit's refused row: it was the whole transaction
            # Rolled back whole; the replay isolates the refused answer (a savepoint each, a
            # cost the common path does not pay). A unit's own refusal never gets here.
            return self._commit_group(action, answers.replay_batch, requests, now, units)

    def _commit_group(
        self,
        action: StoreAction,
        record: Callable[..., list[Answered | Exception]],
        requests: Sequence[AnswerRequest],
            now: datetime,
        units: Sequence[Unit[Any]],
    ) -> Group:
        """`commit_group`'s one transaction, recording the answers with `record` (the batch,
        or its replay one savepoint each)."""
        group: Group | None = None
        try:
            with self.write(action) as conn:
                answered = record(conn, requests, now, self.default_zone) if requests else []
                alone = not requests and len(units) == 1
                group = Group(answered, [_run_in(conn, unit, alone) for unit in units])
        except StoreUnavailableError:
            # Set only if the fault came with the COMMIT: the server may have committed and
            # lost the reply (it crashed, the network broke). Members must not be told "not
            # recorded" of what was recorded: the database itself says which it was.
            if group is None or not self._committed_after_all(requests, group, now):
                raise
        assert group is not None
        return group

    def _committed_after_all(
        self, requests: Sequence[AnswerRequest], group: Group, now: datetime
    ) -> bool:
        """Whether a group whose COMMIT failed with a lost connection is in the database
        (`answers.batch_committed`), asked on a new connection without a second fault line:
        False if the server cannot be asked yet (at worst a refusal of what was stored, as
        before). Only where a COMMIT's reply can be lost (`dialect.commit_reply_can_be_lost`);
        costs nothing on the path without faults."""
        if not dialect.commit_reply_can_be_lost(self.engine):
            return False
        try:
            with self._serial, self._reader.connect() as conn, conn.begin():
                stored = answers.batch_committed(conn, requests, group.answered, now)
        except (DBAPIError, PoolTimeoutError):
            return False
        if stored:
            log.warning(
                "the write refused above had committed after all (the database has its "
                "answers): its %d answers and units count, and their members get their results",
                len(requests) + len(group.units),
            )
        return stored

    def reveal_hint(
        self, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
    ) -> HintSeen:
        """Record that the member saw the hint (halves the points of a later solve). After
        finishing, or on a closed post, it costs nothing and is not recorded. Raises
        UnknownPostError."""
        with self.write(StoreAction.REVEAL) as conn:
            return answers.reveal_hint(conn, post_id, guild_id, user_id, name, now)

    def reveal_solution(
        self,
        post_id: int,
        guild_id: int,
        user_id: int,
        name: str,
        now: datetime,
        *,
        confirmed: bool = True,
    ) -> SolutionSeen:
        """Show the member the solution, as `engine.open_solution` decides: before finishing
        (on an open post) only when `confirmed`, and then it forfeits: the member finishes
        with 0 points (and their review card is rated Again, as `answer_batch` says). Idempotent.
        Raises UnknownPostError (and on a private post what `answer_batch` says)."""
        with self.write(StoreAction.REVEAL) as conn:
            return answers.reveal_solution(
                conn,
                post_id,
                guild_id,
                user_id,
                name,
                now,
                confirmed=confirmed,
                zone=self.default_zone,
            )

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
        return leaderboard.leaderboard(self, guild_id, period, tz, now, user_id, limit)

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
            return leaderboard.leaderboard_exact(conn, guild_id, period, tz, now, user_id, limit)

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
            return board_totals.rebuild_totals(conn, guild_id, tz)

    def member_stats(self, guild_id: int, user_id: int, tz: ZoneInfo, now: datetime) -> MemberStats:
        with self.read() as conn:
            return stats.member_stats(conn, guild_id, user_id, tz, now)

    def member_activity(
        self, guild_id: int, user_id: int, tz: ZoneInfo, since: date, now: datetime
    ) -> MemberActivity:
        with self.read() as conn:
            return stats.member_activity(conn, guild_id, user_id, tz, since, now)

    # -- guild configuration ------------------------------------------------------------------

    def known_guild(self, guild_id: int) -> bool:
        """Whether the database has anything of the server (a mistyped id has nothing)."""
        with self.read() as conn:
            return guild_config.known_guild(conn, guild_id)

    def guild_config(self, guild_id: int) -> GuildConfigInfo:
        """The server's settings; defaults (not stored) when it never changed any."""
        with self.read() as conn:
            return guild_config.guild_config(conn, guild_id)

    def update_guild_config(
        self, guild_id: int, *, rezone: reminders.Rezone | None = None, **changes: Any
    ) -> GuildConfigInfo:
        """Change some settings (timezone, mod_role_id, post_policy, cooldown_seconds).
        `rezone`: moves the last reminder day of the members on the server's zone into its
        new zone.

        Raises TypeError for an unknown setting and ValueError for a bad value (an unknown
        time zone, a policy other than "anyone"/"mods", a negative cooldown).
        """
        guild_config.check_changes(changes)
        with self.write(StoreAction.CHANGE) as conn:
            old = guild_config.guild_config(conn, guild_id).timezone
            info = guild_config.update_guild_config(conn, guild_id, changes)
            if rezone is not None:
                reminders.rezone_server(conn, guild_id, old, info.timezone, rezone)
            return info

    # -- review cards -------------------------------------------------------------------------

    def review_queue(
        self, guild_id: int, user_id: int, now: datetime, limit: int = 25
    ) -> list[str]:
        """The task ids of the member's due cards, the most overdue first."""
        with self.read() as conn:
            return review_cards.due_queue(conn, guild_id, user_id, now, limit)

    def review_queue_state(
        self, guild_id: int, user_id: int, now: datetime, limit: int
    ) -> sessions.ReviewQueue:
        """The member's due cards, the next due time and the withheld tasks, in one read
        (what /review starts with, and what a reminder counts)."""
        with self.read() as conn:
            return sessions.review_queue(conn, guild_id, user_id, now, limit)

    # -- review reminders ---------------------------------------------------------------------

    def turn_reminder_on(
        self,
        guild_id: int,
        user_id: int,
        *,
        hour: int | None,
        timezone: str | None,
        default_hour: int,
        server_zone: bool = False,
        rezone: reminders.Rezone | None = None,
    ) -> reminders.ReminderInfo:
        """Enable the member's daily reminder; `hour` and `timezone` None keep the stored
        ones (a new reminder: `default_hour`, the server's zone); `server_zone` goes back to
        the server's zone. `rezone` moves the last reminder day into a new zone."""
        with self.write(StoreAction.CHANGE) as conn:
            return reminders.turn_on(
                conn,
                guild_id,
                user_id,
                hour=hour,
                timezone=timezone,
                default_hour=default_hour,
                server_zone=server_zone,
                rezone=rezone,
            )

    def turn_reminder_off(self, guild_id: int, user_id: int) -> bool:
        """Disable the member's reminder; whether it was on."""
        with self.write(StoreAction.CHANGE) as conn:
            return reminders.turn_off(conn, guild_id, user_id)

    def reminder_hours(self) -> list[reminders.ReminderHour]:
        """The (zone, hour) pairs enabled reminders use."""
        with self.read() as conn:
            return reminders.hours_in_use(conn)

    def reminder_candidates(
        self, hours: Sequence[int], before: date
    ) -> list[reminders.ReminderCandidate]:
        """Enabled reminders at one of `hours`, not sent on `before`."""
        with self.read() as conn:
            return reminders.candidates(conn, hours, before)

    def claim_reminder(self, guild_id: int, user_id: int, day: date) -> bool:
        """The member's local `day` for a reminder DM: True for exactly one caller (across
        processes), and only while the reminder is on and the day not yet claimed."""
        with self.write() as conn:
            return reminders.claim(conn, guild_id, user_id, day)

    def settle_reminder_day(self, guild_id: int, user_id: int, today: date) -> bool:
        """A last reminder day after the member's `today` becomes `today`."""
        with self.write() as conn:
            return reminders.settle_day(conn, guild_id, user_id, today)

    def reminder_dms_closed(self, guild_id: int, user_id: int, now: datetime) -> None:
        """Discord refused to DM the member: their reminder goes off, with a notice for them."""
        with self.write() as conn:
            reminders.dms_closed(conn, guild_id, user_id, now)

    def dm_notice_pending(self, guild_id: int, user_id: int) -> bool:
        """Whether `take_dm_notice` would find a notice: a read, so the usual case (nothing
        pending) takes no write lock."""
        with self.read() as conn:
            return reminders.dm_notice_pending(conn, guild_id, user_id)

    def take_dm_notice(self, guild_id: int, user_id: int) -> bool:
        """Whether the member's reminders were turned off because their DMs are closed and
        they were not told yet; telling is now the caller's (it is cleared): True once."""
        with self.write() as conn:
            return reminders.take_dm_notice(conn, guild_id, user_id)

    def review_card(
        self, guild_id: int, user_id: int, task_id: str
    ) -> review_cards.StoredCard | None:
        with self.read() as conn:
            return review_cards.load_cards(conn, guild_id, [user_id], [task_id]).get(
                (user_id, task_id)
            )

    # -- practice and review sessions ---------------------------------------------------------

    def practice_choices(
        self, guild_id: int, user_id: int, now: datetime
    ) -> tuple[set[str], list[posts.OpenPost]]:
        """The tasks the member solved in this server (public or private posts), and the open
        public posts whose tasks practice withholds (`posts.unfinished_public_posts`)."""
        with self.read() as conn:
            return (
                sessions.solved_tasks(conn, guild_id, user_id),
                posts.unfinished_public_posts(conn, guild_id, user_id, now),
            )

    def open_session_unit(
        self,
        guild_id: int,
        user_id: int,
        kind: str,
        channel_id: int,
        task: Task,
        now: datetime,
        *,
        topic: str | None = None,
        difficulty: str | None = None,
    ) -> Unit[PostInfo]:
        """Start the member's session of `kind` ('practice' or 'review'), ending their previous
        open one in this server, with `task` as its first private post: a unit for a group
        commit (`commit_group`)."""

        def run(conn: Connection) -> PostInfo:
            session = sessions.start_session(
                conn, guild_id, user_id, kind, topic=topic, difficulty=difficulty, now=now
            )
            return sessions.add_post(conn, session, channel_id, task, now)

        return Unit(run, StoreAction.POST)

    def advance_session_unit(
        self,
        session_id: int,
        guild_id: int,
        user_id: int,
        channel_id: int,
        now: datetime,
        choose: Callable[[sessions.SessionState], Task | None],
        *,
        queue: int = 0,
        shown: int | None = None,
    ) -> Unit[sessions.SessionAdvance]:
        """A Next click in ONE unit (`sessions.advance`), for a group commit: the member's
        session (else PrivatePostError or SessionExpiredError), what it served, what they
        solved, for a review session up to `queue` due cards; refused (SessionMovedOnError)
        when `shown`, the post of the message clicked, is not its current task; then
        `choose`'s task as its next private post, or the session's end and summary when
        `choose` picks none."""

        def run(conn: Connection) -> sessions.SessionAdvance:
            return sessions.advance(
                conn,
                session_id,
                guild_id,
                user_id,
                channel_id,
                now,
                choose,
                queue=queue,
                shown=shown,
            )

        return Unit(run, StoreAction.POST)

    def session_task(self, guild_id: int, user_id: int, now: datetime) -> PostInfo | None:
        """The task the member's live practice or review session in this server shows now."""
        with self.read() as conn:
            return sessions.live_session_post(conn, guild_id, user_id, now)


def _forget_members(conn: Connection, _name: str, _context: object) -> None:
    """A savepoint rolled back: what its transaction wrote is not all there."""
    answers.KnownMembers.discard(conn)


def _run_in(conn: Connection, unit: Unit[Any], alone: bool) -> Any:
    """`unit`'s result, or the exception it failed with, rolled back to its savepoint. A
    fault of the database (not a refused row) is the whole transaction's: it propagates."""
    if alone:
        return unit.run(conn)
    try:
        with conn.begin_nested():
            return unit.run(conn)
    except IntegrityError as exc:
        return exc
    except SQLAlchemyError:
        raise
    except Exception as exc:  # the member's error, or a bug: that unit's alone
        return exc


__all__ = ["Group", "Store", "Unit"]
