"""Units of work for the daily quizzes (sync; the scheduler runs them in a worker thread).
The schedule limit is decided inside the insert (`add`), so no two adds can both pass it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, func, literal, select, update

from bot.quiz.engine import post_closed
from bot.quiz.errors import ScheduleLimitError
from bot.quiz.rules import MAX_SCHEDULES, MAX_TASKS_PER_RUN
from bot.store import dialect, posts
from bot.store.deliveries import Deliveries
from bot.store.schedule_records import (
    AttemptInfo,
    Chooser,
    PauseChange,
    RunInfo,
    ScheduleInfo,
    TaskPosts,
    run_info,
    schedule_info,
)
from bot.store.schedule_tables import Schedule, ScheduleRun
from bot.store.store import Store
from bot.store.tables import Attempt, Post, table_of

_schedule = table_of(Schedule)
_run = table_of(ScheduleRun)
_post = table_of(Post)
_attempt = table_of(Attempt)


def _clip(text: str, limit: int = 300) -> str:
    # Errors end up in a Discord embed line; a traceback-sized message would not fit.
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ScheduleStore:
    """Schedules and their runs. Shares `Store`'s connections and, on an in-memory engine,
    its lock, so the two never interleave transactions on the one shared connection."""

    def __init__(self, store: Store | Engine) -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self.deliveries = Deliveries(self.store)  # the days this process is sending

    def add(
        self,
        *,
        guild_id: int,
        channel_id: int,
        local_time: str,
        timezone: str,
        created_by: int,
        now: datetime,
        topic: str | None = None,
        difficulty: str | None = None,
        count: int = 1,
        open_thread: bool = False,
    ) -> ScheduleInfo:
        """A new schedule; ScheduleLimitError when the server already has MAX_SCHEDULES (one
        INSERT … SELECT … WHERE count < limit, so two adds cannot both slip under it)."""
        if not 1 <= count <= MAX_TASKS_PER_RUN:
            raise ValueError(f"count must be between 1 and {MAX_TASKS_PER_RUN}")
        values = dict(
            guild_id=guild_id,
            channel_id=channel_id,
            local_time=local_time,
            timezone=timezone,
            topic=topic,
            difficulty=difficulty,
            count=count,
            paused=False,
            open_thread=open_thread,
            created_by=created_by,
            created_at=now,
            active_since=now,
            failures=0,
        )
        existing = (
            select(func.count())
            .select_from(_schedule)
            .where(_schedule.c.guild_id == guild_id, _schedule.c.removed_at.is_(None))
            .scalar_subquery()
        )
        row_values = select(
            *(literal(value, _schedule.c[name].type) for name, value in values.items())
        ).where(existing < MAX_SCHEDULES)
        insert = _schedule.insert().from_select(list(values), row_values).returning(*_schedule.c)
        with self.store.write() as conn:
            # Counted and inserted by one writer of this server at a time (PostgreSQL).
            dialect.lock(conn, "schedules", [guild_id])
            row = conn.execute(insert).first()
        if row is None:
            raise ScheduleLimitError(MAX_SCHEDULES)
        return schedule_info(row)

    def _schedules(self, *where: ColumnElement[bool]) -> list[ScheduleInfo]:
        stmt = select(_schedule).where(*where).order_by(_schedule.c.id)
        with self.store.read() as conn:
            return [schedule_info(r) for r in conn.execute(stmt)]

    def get(self, schedule_id: int) -> ScheduleInfo | None:
        return next(iter(self._schedules(_schedule.c.id == schedule_id)), None)

    def list_guild(self, guild_id: int) -> list[ScheduleInfo]:
        return self._schedules(_schedule.c.guild_id == guild_id, _schedule.c.removed_at.is_(None))

    def runnable(self) -> list[ScheduleInfo]:
        """Every schedule the scheduler should look at: not removed, not paused."""
        return self._schedules(_schedule.c.removed_at.is_(None), _schedule.c.paused.is_(False))

    def stopped_with_pending(self) -> list[ScheduleInfo]:
        """Paused or removed schedules with a day still claimed (interrupted while sent): the
        scheduler finishes those days, so their posts that are out still close."""
        return self._schedules(
            (_schedule.c.removed_at.is_not(None)) | _schedule.c.paused.is_(True),
            _schedule.c.id.in_(select(_run.c.schedule_id).where(_run.c.status == "claimed")),
        )

    def remove(self, guild_id: int, schedule_id: int, now: datetime) -> ScheduleInfo | None:
        """Soft delete; None when the server has no such schedule."""
        return self._change(guild_id, schedule_id, removed_at=now)

    def set_paused(
        self, guild_id: int, schedule_id: int, paused: bool, now: datetime
    ) -> PauseChange | None:
        """Pause or resume; None when the server has no such schedule. Only a change writes:
        a stray resume of a running schedule must not disown a day still being retried."""
        changes: dict[str, Any] = {"paused": paused}
        if not paused:
            # Days missed while paused are not owed: resuming at 10:00 must not post the
            # 09:00 quiz, and the backoff of an old failure no longer applies.
            changes |= {"active_since": now, "retry_at": None, "failures": 0}
        mine = _mine(guild_id, schedule_id)
        with self.store.write() as conn:
            flipped = update(_schedule).where(*mine, _schedule.c.paused.is_(not paused))
            changed = conn.execute(flipped.values(**changes)).rowcount == 1
            row = conn.execute(select(_schedule).where(*mine)).one_or_none()
        return None if row is None else PauseChange(schedule_info(row), changed)

    def _change(self, guild_id: int, schedule_id: int, **values: Any) -> ScheduleInfo | None:
        mine = _mine(guild_id, schedule_id)
        with self.store.write() as conn:
            if conn.execute(update(_schedule).where(*mine).values(**values)).rowcount != 1:
                return None
            return schedule_info(
                conn.execute(select(_schedule).where(_schedule.c.id == schedule_id)).one()
            )

    def record_error(
        self, schedule_id: int, error: str, now: datetime, retry_at: datetime | None
    ) -> None:
        """A failed attempt: shown by /schedule list; no attempt before `retry_at`."""
        with self.store.write() as conn:
            conn.execute(
                update(_schedule)
                .where(_schedule.c.id == schedule_id)
                .values(
                    last_error=_clip(error),
                    last_error_at=now,
                    failures=_schedule.c.failures + 1,
                    retry_at=retry_at,
                )
            )

    def _runs(self, stmt: Any) -> list[RunInfo]:
        with self.store.read() as conn:
            return [run_info(r) for r in conn.execute(stmt)]

    def run(self, schedule_id: int, local_date: date) -> RunInfo | None:
        at = select(_run).where(_run.c.schedule_id == schedule_id, _run.c.local_date == local_date)
        return next(iter(self._runs(at)), None)

    def get_run(self, run_id: int) -> RunInfo | None:
        return next(iter(self._runs(select(_run).where(_run.c.id == run_id))), None)

    def pending_runs(self, schedule_id: int) -> list[RunInfo]:
        """Runs claimed but not finished: posting was interrupted or is being retried."""
        return self._runs(
            select(_run)
            .where(_run.c.schedule_id == schedule_id, _run.c.status == "claimed")
            .order_by(_run.c.local_date)
        )

    def claim(
        self,
        schedule: ScheduleInfo,
        local_date: date,
        *,
        scheduled_for: datetime,
        closes_at: datetime | None,
        choose: Chooser,
        now: datetime,
    ) -> RunInfo | None:
        """Claim the day and create its posts (with their task versions) in one transaction;
        None when the day was claimed already. The posts exist before anything is sent: a
        message's buttons carry its post id, and recovery after a crash looks for those."""
        claim = dict(
            schedule_id=schedule.id,
            local_date=local_date,
            status="claimed",
            scheduled_for=scheduled_for,
            closes_at=closes_at,
            post_ids="",
            claimed_at=now,
        )
        with self.store.write() as conn:
            run_id = conn.execute(_claim_statement(conn).values(claim)).scalar()
            if run_id is None:
                return None
            tasks = list(choose(self._history(conn, schedule.guild_id, now)))
            if not tasks:
                # The scheduler checks for matching tasks before it claims: this is a bug.
                raise ValueError("the chooser picked no task")  # rolls the claim back
            posted = posts.insert_posts(
                conn,
                tasks,
                guild_id=schedule.guild_id,
                channel_id=schedule.channel_id,
                posted_by=None,
                schedule_id=schedule.id,
                closes_at=closes_at,
                now=now,
            )
            conn.execute(
                update(_run)
                .where(_run.c.id == run_id)
                .values(post_ids=",".join(str(post.id) for post in posted))
            )
            row = conn.execute(select(_run).where(_run.c.id == run_id)).one()
        return run_info(row)

    def skip(
        self,
        schedule_id: int,
        local_date: date,
        *,
        scheduled_for: datetime,
        reason: str,
        now: datetime,
    ) -> RunInfo | None:
        """Record a day that will not be posted (missed by more than the grace window)."""
        skipped = dict(
            schedule_id=schedule_id,
            local_date=local_date,
            status="skipped",
            scheduled_for=scheduled_for,
            post_ids="",
            claimed_at=now,
            closed_at=now,
            error=_clip(reason),
        )
        with self.store.write() as conn:
            run_id = conn.execute(_claim_statement(conn).values(skipped)).scalar()
            if run_id is None:
                return None
            self._set_result(conn, schedule_id, local_date, f"skipped {local_date}: {reason}")
            row = conn.execute(select(_run).where(_run.c.id == run_id)).one()
        return run_info(row)

    def finish(
        self, run_id: int, status: str, *, result: str, now: datetime, error: str | None = None
    ) -> RunInfo:
        """End a claimed run: posted (every message is out and recorded), or given up
        (skipped/failed). A posted run clears the schedule's error and backoff."""
        with self.store.write() as conn:
            values: dict[str, Any] = {"status": status, "error": error and _clip(error)}
            if status == "posted":
                values["posted_at"] = now
            conn.execute(update(_run).where(_run.c.id == run_id).values(**values))
            row = conn.execute(select(_run).where(_run.c.id == run_id)).one()
            self._set_result(conn, row.schedule_id, row.local_date, result, ok=status == "posted")
        return run_info(row)

    @staticmethod
    def _set_result(
        conn: Connection, schedule_id: int, local_date: date, result: str, *, ok: bool = False
    ) -> None:
        values: dict[str, Any] = {"last_run_local_date": local_date, "last_result": _clip(result)}
        if ok:
            values |= {"last_error": None, "last_error_at": None, "failures": 0, "retry_at": None}
        conn.execute(update(_schedule).where(_schedule.c.id == schedule_id).values(**values))

    def runs_to_close(self, now: datetime) -> list[RunInfo]:
        """Finished runs whose closing time has come and whose posts are not closed yet."""
        return self._runs(
            select(_run)
            .where(_run.c.closed_at.is_(None), _run.c.closes_at <= now, _run.c.status != "claimed")
            .order_by(_run.c.closes_at, _run.c.id)
        )

    def next_close(self, after: datetime) -> datetime | None:
        """The earliest closing time still ahead. Overdue runs are left out on purpose: one
        whose closing keeps failing must not make the scheduler wake in a tight loop."""
        stmt = select(func.min(_run.c.closes_at)).where(
            _run.c.closed_at.is_(None),
            _run.c.status != "claimed",
            _run.c.closes_at > after,
        )
        with self.store.read() as conn:
            return conn.execute(stmt).scalar()

    def mark_closed(self, run_id: int, now: datetime) -> None:
        with self.store.write() as conn:
            conn.execute(update(_run).where(_run.c.id == run_id).values(closed_at=now))

    @staticmethod
    def _history(conn: Connection, guild_id: int, now: datetime) -> dict[str, TaskPosts]:
        """The posts members have seen, or will: sent, or unsent and still open (one that
        closed unsent never reached them, so its task is still to come)."""
        # The rotation follows the channel's posts, not members' private practice.
        public = (_post.c.guild_id == guild_id, _post.c.session_id.is_(None))
        sent = (
            select(_post.c.task_id, func.count(), func.max(_post.c.posted_at))
            .where(*public, _post.c.message_id.is_not(None))
            .group_by(_post.c.task_id)
        )
        history = {task_id: TaskPosts(times, last) for task_id, times, last in conn.execute(sent)}
        unsent = select(_post.c.task_id, _post.c.posted_at, _post.c.closes_at).where(
            *public, _post.c.message_id.is_(None), _post.c.closed_at.is_(None)
        )
        for task_id, posted_at, closes_at in conn.execute(unsent):
            if post_closed(None, closes_at, now):
                continue
            seen = history.get(task_id)
            history[task_id] = (
                TaskPosts(1, posted_at)
                if seen is None
                else TaskPosts(seen.times + 1, max(seen.last_at, posted_at))
            )
        return history

    def attempts(self, post_ids: Iterable[int]) -> list[AttemptInfo]:
        ids = list(post_ids)
        stmt = (
            select(_attempt)
            .where(_attempt.c.post_id.in_(ids))
            .order_by(_attempt.c.created_at, _attempt.c.id)
        )
        with self.store.read() as conn:
            return [
                AttemptInfo(
                    post_id=r.post_id,
                    user_id=r.user_id,
                    attempt_no=r.attempt_no,
                    picks=tuple(r.picks.split(",")),
                    correct=bool(r.correct),
                    created_at=r.created_at,
                )
                for r in conn.execute(stmt)
            ]


def _mine(guild_id: int, schedule_id: int) -> tuple[ColumnElement[bool], ...]:
    """The server's schedule of that id, not removed (ids are global: the guild check keeps
    one server from changing another's)."""
    return (
        _schedule.c.id == schedule_id,
        _schedule.c.guild_id == guild_id,
        _schedule.c.removed_at.is_(None),
    )


def _claim_statement(conn: Connection) -> Any:
    """INSERT of a day's run that does nothing (no row returned) when the day is claimed
    already: the unique key on (schedule, local date) decides, across processes."""
    statement = dialect.insert_ignoring_conflicts(conn, _run, ("schedule_id", "local_date"))
    return statement.returning(_run.c.id)
