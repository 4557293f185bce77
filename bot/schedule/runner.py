"""The scheduler: posts each schedule's daily set once per local day, and closes yesterday's.

Discord only through the `Poster` protocol (bot/discord_ui/poster.py), so the loop runs in tests
on a fake clock. Exactly once, across restarts, crashes and processes: (1) one transaction claims
the (schedule, local day) run with its posts (UNIQUE) before anything is sent; (2) each message
carries its post id and its id is written back; (3) a run still claimed at the next tick is
resumed, looking each unsent post up in the channel's history first; (4) a day is held while it
goes out (`ScheduleStore.deliveries`), so another process leaves it alone. When the lookup
fails we lose the post rather than post twice: retried with backoff within the grace window,
then `failed`. Each process ticks only its shards' servers (`ShardPlan.owns_guild`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from datetime import date, datetime, timedelta
from functools import partial
from typing import Any, Protocol, TypeVar

from bot.clock import Clock, as_utc
from bot.i18n import _, formats, speaking
from bot.quiz import timing
from bot.quiz.errors import QuizError, StoreAction, StoreError
from bot.quiz.tasks import Difficulty, Task
from bot.quiz.timing import Due, Slot
from bot.reports import summary
from bot.schedule import rotation
from bot.service import PostedTask, QuizService
from bot.sharding import ShardPlan
from bot.store import ScheduleStore, posts
from bot.store.schedules import PauseChange, RunInfo, ScheduleInfo, TaskPosts

log = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]

MAX_SLEEP = 60.0
"""Seconds between looks at the database even with nothing due: new schedules made by
another process, and wall-clock jumps (NTP, suspend), are noticed within a minute."""
MIN_SLEEP = 1.0
ON_TIME = timedelta(seconds=30)
"""How late a tick of the running bot may look at a run and still be on time, beyond the
grace window: a sleep ends a little after the instant it was set for, and a busy tick delays
the next one. Without it a grace of 0 ("no late posts after an outage") would post nothing."""


class PosterError(Exception):
    """Discord could not do it (shown to moderators in /schedule list). `transient`: it may
    take it in a minute (a server error, a lost connection), unlike a refusal."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class Poster(Protocol):
    """What the scheduler asks of Discord. Implemented by bot/discord_ui/poster.py."""

    async def post(self, posted: PostedTask, *, extra: str) -> int:
        """Send the task post (with its buttons) to its channel; the new message's id."""
        ...

    async def find(self, posted: PostedTask, *, since: datetime) -> int | None:
        """The id of a message sent for this post at or after `since` (aware UTC), or None
        if there is none. Raises PosterError when it cannot look."""
        ...

    async def open_thread(
        self, posted: PostedTask, message_id: int, *, name: str, text: str
    ) -> None:
        """Open a discussion thread on the message (nothing if it already has one)."""
        ...

    async def close(self, posted: PostedTask, *, content: str) -> None:
        """Show the result (`content`, the message text) on the closed post's message and
        redraw it as closed; its buttons stay and answer that the quiz has closed."""
        ...

    async def language(self, guild_id: int) -> str:
        """The locale the server's public messages speak (`bot.i18n.server_locale`): the
        scheduler posts, opens threads and closes inside `speaking` it."""
        ...


class Pass(Protocol):
    """More work on the scheduler's loop and clock, run at every tick after the daily
    quizzes (the review reminders, bot/schedule/reminders.py)."""

    async def tick(self, now: datetime) -> datetime | None:
        """Do what is due at `now`; when to look next (None: nothing planned)."""
        ...


@contextlib.contextmanager
def survived(step: str) -> Iterator[None]:
    """Run one step of a tick so that its failure stops no other step. A database fault was
    logged once by the store (the host's to fix, no traceback) and the step is tried again at
    the next tick; anything else is a bug, logged with its traceback."""
    try:
        yield
    except StoreError:
        pass
    except Exception:
        log.exception("%s failed", step)


async def _real_sleep(seconds: float) -> None:
    await asyncio.sleep(seconds)


class Scheduler:
    def __init__(
        self,
        service: QuizService,
        poster: Poster,
        *,
        grace: timedelta,
        clock: Clock | None = None,
        sleep: Sleep = _real_sleep,
        max_sleep: float = MAX_SLEEP,
        shards: ShardPlan = ShardPlan.UNSHARDED,
    ) -> None:
        """`shards`: this process's shards; it posts and closes only the daily quizzes of the
        servers they own (`ShardPlan.owns_guild`). Unsharded, that is every server."""
        self.service = service
        self.shards = shards
        self.schedules = ScheduleStore(service.store)
        self.poster = poster
        self.grace = grace
        self._window = grace + ON_TIME
        """How late a run is still posted (`ON_TIME`)."""
        self.clock = clock or service.clock
        """The time source; read it through `now()`."""
        self._sleep = sleep
        self.max_sleep = max_sleep
        self._woken = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.passes: list[Pass] = []

    # -- lifecycle -----------------------------------------------------------------------------

    def now(self) -> datetime:
        """The clock's reading as aware UTC (a naive reading is taken to be UTC)."""
        return as_utc(self.clock())

    def start(self) -> asyncio.Task[None]:
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self.run_forever(), name="quizbot-scheduler")
        return self._task

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        # Closing its database connection (PostgreSQL) may wait on the network: off the loop.
        await asyncio.to_thread(self.schedules.deliveries.close)

    def add_pass(self, extra: Pass) -> None:
        """Run `extra` at every tick from now on; its next moment joins the wake-up time."""
        self.passes.append(extra)

    def wake(self) -> None:
        """Look again now (a schedule was added, removed, paused or resumed)."""
        self._woken.set()

    async def run_forever(self) -> None:
        while True:
            # Cleared before the tick, so a wake() arriving during it is not lost.
            self._woken.clear()
            wake_at: datetime | None = None  # a failed tick: look again shortly
            with survived("scheduler tick"):
                wake_at = await self.tick()
            await self._pause(self._delay(wake_at))

    def _delay(self, wake_at: datetime | None) -> float:
        if wake_at is None:
            return self.max_sleep
        seconds = (wake_at - self.now()).total_seconds()
        return min(self.max_sleep, max(MIN_SLEEP, seconds))

    async def _pause(self, seconds: float) -> None:
        sleeper = asyncio.ensure_future(self._sleep(seconds))
        waker = asyncio.ensure_future(self._woken.wait())
        try:
            done, _ = await asyncio.wait({sleeper, waker}, return_when=asyncio.FIRST_COMPLETED)
            if sleeper in done:
                sleeper.result()  # an injected sleep may raise; that must reach the caller
        finally:
            for pending in (sleeper, waker):
                pending.cancel()

    # -- what /schedule does (each change wakes the loop, so it takes effect at once) -----------

    async def add_schedule(self, **fields: Any) -> ScheduleInfo:
        """`ScheduleStore.add`'s fields; `now` is the scheduler's clock. Raises
        ScheduleLimitError when the server has as many schedules as it may."""
        info = await self._write(self.schedules.add, now=self.now(), **fields)
        self.wake()
        return info

    async def schedules_of(self, guild_id: int) -> list[ScheduleInfo]:
        return await self._db(self.schedules.list_guild, guild_id)

    async def remove_schedule(self, guild_id: int, schedule_id: int) -> ScheduleInfo | None:
        info = await self._write(self.schedules.remove, guild_id, schedule_id, self.now())
        self.wake()
        return info

    async def set_paused(self, guild_id: int, schedule_id: int, paused: bool) -> PauseChange | None:
        change = await self._write(
            self.schedules.set_paused, guild_id, schedule_id, paused, self.now()
        )
        if change is not None and change.changed:
            self.wake()
        return change

    def next_run(self, schedule: ScheduleInfo) -> Slot:
        return timing.next_slot(schedule.at, schedule.zone, self.now())

    # -- one pass ------------------------------------------------------------------------------

    async def tick(self) -> datetime:
        """Close what is due, then give every schedule its turn; when to look next."""
        now = self.now()
        wake = [now + timedelta(seconds=self.max_sleep)]
        with survived("closing daily posts"):  # they stay open until the next tick
            await self._close_due(now)
        schedules = [
            s for s in await self._db(self.schedules.runnable) if self.shards.owns_guild(s.guild_id)
        ]
        stopped = [
            s
            for s in await self._db(self.schedules.stopped_with_pending)
            if self.shards.owns_guild(s.guild_id)
        ]
        # Concurrently: a channel that is slow (rate limits) or broken delays nobody else.
        results = await asyncio.gather(*(self._guarded(s, now) for s in schedules))
        for schedule in stopped:
            with survived(f"schedule {schedule.id}: finishing a stopped schedule's day"):
                await self._resume_pending(schedule, now, live=None)
        wake += [r for r in results if r is not None]
        upcoming = await self._db(self.schedules.next_close, now)
        if upcoming is not None:
            wake.append(upcoming)
        for extra in self.passes:
            with survived(f"scheduler pass {type(extra).__name__}"):
                if (at := await extra.tick(now)) is not None:
                    wake.append(at)
        return min(wake)

    async def _guarded(self, schedule: ScheduleInfo, now: datetime) -> datetime | None:
        try:
            return await self._handle(schedule, now)
        except Exception as exc:
            retry_at = now + timing.retry_delay(schedule.failures + 1)
            if isinstance(exc, PosterError | QuizError):
                log.warning("schedule %s: %s (retry at %s)", schedule.id, exc, retry_at)
            else:
                log.exception("schedule %s failed (retry at %s)", schedule.id, retry_at)
            with survived(f"schedule {schedule.id}: recording the error"):  # retry still due
                await self._write(
                    self.schedules.record_error, schedule.id, _describe(exc), now, retry_at
                )
            return retry_at

    async def _handle(self, schedule: ScheduleInfo, now: datetime) -> datetime | None:
        at, zone = schedule.at, schedule.zone
        upcoming = timing.next_slot(at, zone, now)
        if schedule.retry_at is not None and now < schedule.retry_at:
            return min(schedule.retry_at, upcoming.at)
        slot = timing.current_slot(at, zone, now)
        await self._resume_pending(schedule, now, live=slot.local_date)

        if await self._db(self.schedules.run, schedule.id, slot.local_date) is None:
            match timing.due(slot, now, active_since=schedule.active_since, grace=self._window):
                case Due.POST:
                    # Held before the claim, so no one resumes the day while it goes out.
                    async with self._holding(schedule.id, slot.local_date) as held:
                        run = await self._claim(schedule, slot, now) if held else None
                        if run is not None:
                            await self._deliver(schedule, run, now, send=True, fresh=True)
                case Due.LATE:
                    await self._write(
                        self.schedules.skip,
                        schedule.id,
                        slot.local_date,
                        scheduled_for=slot.at,
                        reason=self._late_reason(schedule, slot, now),
                        now=now,
                    )
                case Due.NOT_OWED:
                    pass
        return upcoming.at

    async def _resume_pending(
        self, schedule: ScheduleInfo, now: datetime, *, live: date | None
    ) -> None:
        """Finish the schedule's interrupted days: only the `live` day's run still sends what is
        missing; the others recover what went out, so it closes on time with its result."""
        for pending in await self._db(self.schedules.pending_runs, schedule.id):
            async with self._holding(schedule.id, pending.local_date) as held:
                # Read again once held: whoever held it before may have finished it.
                run = await self._db(self.schedules.get_run, pending.id) if held else None
                if run is None or run.status != "claimed":
                    continue  # another process is sending it (or has sent it)
                send = run.local_date == live and now - run.scheduled_for <= self._window
                await self._deliver(schedule, run, now, send=send, fresh=False)

    def _late_reason(self, schedule: ScheduleInfo, slot: Slot, now: datetime) -> str:
        """Why a day with nothing recorded is skipped. Errors since its time mean the bot was
        up and kept failing (the claim: no matching task, the database); only without them was
        the bot away."""
        failed = schedule.last_error_at is not None and schedule.last_error_at >= slot.at
        if failed and schedule.last_error:
            return f"not posted within the grace window ({_minutes(self.grace)}): " + (
                schedule.last_error
            )
        return (
            f"the bot was offline at {schedule.local_time}"
            f" ({_minutes(now - slot.at)} late, grace {_minutes(self.grace)})"
        )

    @contextlib.asynccontextmanager
    async def _holding(self, schedule_id: int, day: date) -> AsyncIterator[bool]:
        """Hold the day while sending it (`ScheduleStore.deliveries`); yields False when
        another tick or process holds it: it is being sent, and is left alone."""
        deliveries = self.schedules.deliveries
        held = await self._db(deliveries.take, schedule_id, day)
        try:
            yield held
        finally:
            if held:
                await self._db(deliveries.give_back, schedule_id, day)

    async def _claim(self, schedule: ScheduleInfo, slot: Slot, now: datetime) -> RunInfo | None:
        difficulty = Difficulty(schedule.difficulty) if schedule.difficulty else None
        # Raises NoMatchingTaskError (shown in /schedule list) when the banks changed under it.
        matching = self.service.tasks_matching(schedule.guild_id, schedule.topic, difficulty)
        candidates = {t.id: t for t in matching}

        def choose(history: Mapping[str, TaskPosts]) -> Sequence[Task]:
            chosen = rotation.choose(
                list(candidates), history, schedule.count, seed=str(schedule.guild_id)
            )
            return [candidates[task_id] for task_id in chosen]

        closes = timing.following(slot, schedule.at, schedule.zone)
        return await self._write(
            self.schedules.claim,
            schedule,
            slot.local_date,
            scheduled_for=slot.at,
            closes_at=closes.at,
            choose=choose,
            now=now,
        )

    async def _deliver(
        self, schedule: ScheduleInfo, run: RunInfo, now: datetime, *, send: bool, fresh: bool
    ) -> None:
        """Get every post of the run out exactly once, then finish it. Unless `fresh` (claimed by
        this call), an unrecorded post is looked up in the channel first; `send=False` only
        recovers what went out."""
        total = len(run.post_ids)
        notes: list[str] = []
        # The posts and their threads are public: in the server's language.
        with speaking(await self.poster.language(schedule.guild_id)):
            out = await self._send_posts(schedule, run, notes, send=send, fresh=fresh)
        day = run.local_date
        if out == total:
            status, result = "posted", f"posted {day}: {_tasks(total)}"
        elif out:
            status, result = "posted", f"posted {day}: {out} of {_tasks(total)}"
        elif notes:
            status, result = "failed", f"failed {day}: nothing posted"
        else:
            # Never went out, and its day is over: the schedule's last_error says why.
            status, result = "skipped", f"skipped {day}: not posted within the grace window"
        if notes:
            result += " (" + "; ".join(notes) + ")"
        await self._write(
            self.schedules.finish,
            run.id,
            status,
            result=result,
            now=now,
            error="; ".join(notes) or None,
        )

    async def _send_posts(
        self, schedule: ScheduleInfo, run: RunInfo, notes: list[str], *, send: bool, fresh: bool
    ) -> int:
        """`_deliver`'s posts, each out once (`send`, `fresh`: as there); how many are out."""
        total = len(run.post_ids)
        out = 0
        for n, post_id in enumerate(run.post_ids, 1):
            posted = await self.service.posted(post_id)
            message_id = posted.post.message_id
            if message_id is None and not fresh:
                try:
                    message_id = await self.poster.find(posted, since=run.claimed_at)
                except PosterError as exc:
                    if send:
                        raise  # retried with backoff while the day is still live
                    # We cannot tell whether it went out: losing it beats posting it twice.
                    notes.append(f"could not check post {n}: {exc}")
                    continue
                if message_id is not None:
                    await self.service.run_write(
                        StoreAction.WRITE, posts.set_post_message, post_id, message_id
                    )
            if message_id is None and send:
                message_id = await self.poster.post(posted, extra=_header(run, n, total))
                await self.service.run_write(
                    StoreAction.WRITE, posts.set_post_message, post_id, message_id
                )
            if message_id is None:
                continue
            out += 1
            if schedule.open_thread:
                await self._open_thread(posted, message_id, notes)
        return out

    async def _open_thread(self, posted: PostedTask, message_id: int, notes: list[str]) -> None:
        # The quiz is out; a missing thread is worth a note, not a failed (and retried) day.
        try:
            await self.poster.open_thread(
                posted,
                message_id,
                name=summary.discussion_name(posted.task),
                text=summary.discussion_text(posted.task),
            )
        except PosterError as exc:
            notes.append(f"no discussion thread: {exc}")
        except Exception as exc:
            log.exception("opening a thread on post %s failed", posted.post.id)
            notes.append(f"no discussion thread: {_describe(exc)}")

    # -- closing -------------------------------------------------------------------------------

    async def _close_due(self, now: datetime) -> None:
        for run in await self._db(self.schedules.runs_to_close, now):
            # A run that fails stays open in the database; the next tick tries again.
            with survived(f"closing run {run.id} of schedule {run.schedule_id}"):
                if await self._owns_run(run):
                    await self._close_run(run, now)

    async def _owns_run(self, run: RunInfo) -> bool:
        """Whether this process closes the run: its server's shard is one of ours. (A removed
        schedule's last run still closes: `get` finds removed schedules too.)"""
        if not self.shards.sharded:
            return True
        schedule = await self._db(self.schedules.get, run.schedule_id)
        return schedule is None or self.shards.owns_guild(schedule.guild_id)

    async def _close_run(self, run: RunInfo, now: datetime) -> None:
        # Close for answers first, so the result cannot change under the summary.
        for post_id in run.post_ids:
            await self.service.run_write(StoreAction.WRITE, posts.close_post, post_id, now)
        attempts = await self._db(self.schedules.attempts, run.post_ids)
        total = len(run.post_ids)
        still_open: frozenset[str] | None = None
        language: str | None = None
        for n, post_id in enumerate(run.post_ids, 1):
            posted = await self.service.posted(post_id)
            if posted.post.message_id is None:
                continue
            if still_open is None or language is None:  # a run's posts share one server
                still_open = await self.service.run_read(
                    posts.open_public_tasks, posted.post.guild_id, now
                )
                language = await self.poster.language(posted.post.guild_id)
            result = summary.summarise(
                posted.task,
                [a for a in attempts if a.post_id == post_id],
                open_elsewhere=posted.post.task_id in still_open,
            )
            try:
                with speaking(language):  # the summary is public: the server's language
                    # TRANSLATORS: a closed daily quiz's first line, after its header.
                    head = _("{header} · closed").format(header=_header(run, n, total))
                    await self.poster.close(posted, content=result.text(head=head))
            except PosterError as exc:
                if exc.transient and not self._closing_overdue(run, now):
                    # The result would be lost for good: leave the run open, so the next tick
                    # edits again (answers are closed already, so the result stays the same).
                    log.warning(
                        "post %s closed, its message not edited yet (tried again): %s",
                        post_id,
                        exc,
                    )
                    return
                log.warning("post %s closed, but its message could not be edited: %s", post_id, exc)
        await self._write(self.schedules.mark_closed, run.id, now)

    def _closing_overdue(self, run: RunInfo, now: datetime) -> bool:
        """Whether a closing edit has failed for longer than the grace window: then it is
        given up, as a post would be."""
        return run.closes_at is None or now - run.closes_at > self.grace

    # -- database, off the event loop -----------------------------------------------------------

    async def _db(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        return await self.service.in_readers(partial(fn, *args, **kwargs))

    async def _write(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        return await self.service.in_writer(partial(fn, *args, **kwargs))


def _header(run: RunInfo, n: int, total: int) -> str:
    """A daily post's first line, in the current locale."""
    # The closing time is on the post already: its embed shows the post's `closes_at`.
    # TRANSLATORS: a CLDR date pattern (EEE weekday, dd day, MMM month, y year) for a daily
    # quiz's date, "Sun 02 Mar 2025": reorder the fields and add punctuation as your language
    # writes dates; the letters must stay Latin.
    day = formats.pattern_date(run.local_date, _("EEE dd MMM y"))
    head = _("📅 **Daily quiz** · {date}").format(date=day)
    return f"{head} · {n}/{total}" if total > 1 else head


def _tasks(n: int) -> str:
    return "1 task" if n == 1 else f"{n} tasks"


def _minutes(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _describe(exc: BaseException) -> str:
    """An error as /schedule list shows it: ours as worded (without the full stop, which the
    list adds), anything else with its type, as a clue for whoever reads the logs."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, PosterError | QuizError):
        return text.rstrip(".")
    return f"{type(exc).__name__}: {text}"
