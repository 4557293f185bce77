"""The async façade the Discord layer and the scheduler call: the rules (bot.quiz) joined with
storage (bot.store), every database call off the event loop.

Reads run in a small thread pool (`run_read`); writes in one writer thread (`run_write`); answers,
and a session's first task or Next (`run_grouped`), in a group commit that acknowledges each only
after its transaction committed. A post keeps the task it was posted with (`PostInfo.graded_task`);
the catalog only decides what can be posted next. Each server sees the shipped banks plus its own
uploads (`catalog_for`), checked in a worker process under a time limit (`upload_bank`); a
server's banks are swapped in by the process that owns its shard, and re-read by the others
when they start or before the reminders count (`refresh_server_banks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import random
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar
from zoneinfo import ZoneInfo

from bot.clock import Clock, Period, local_date, utcnow, week_start, zone_or
from bot.content import uploads
from bot.content.uploads import RefusedUpload, UploadedBank
from bot.i18n import _
from bot.practice_sessions import PracticeSessions
from bot.progress import ACTIVITY_WEEKS, OTHER_TOPIC, MemberProgress, topic_progress
from bot.quiz import reminders
from bot.quiz.engine import Progress
from bot.quiz.errors import (
    BankRefusedError,
    QuizError,
    StoreAction,
    StoreError,
    UnknownBankError,
    UnknownPostError,
    UnknownTaskError,
)
from bot.quiz.tasks import Catalog, Difficulty, Task
from bot.reports import insights
from bot.reports.insights import Insights, InsightsPeriod
from bot.reports.items import ItemStats, item_stats
from bot.store import (
    Answered,
    AnswerRequest,
    GuildConfigInfo,
    HintSeen,
    Leaderboard,
    MemberStats,
    PostInfo,
    SolutionSeen,
    Store,
    Unit,
    answers,
    guild_config,
    leaderboard,
    posts,
    review_cards,
    stats,
)
from bot.store import reminders as store_reminders
from bot.store.insights import InsightsStore
from bot.store.items import first_attempts
from bot.store.reminders import Rezone
from bot.store.server_banks import BankStore, BankSummary

if TYPE_CHECKING:
    from sqlalchemy import Connection

log = logging.getLogger(__name__)


def _upload_process() -> Executor:
    """Where uploads are checked: one worker process, started (spawned, not forked from this
    threaded process) on the first upload. In a thread, libyaml's and expat's C parsers hold
    the GIL for a whole 1 MB document (about 0.3 s): every other server's click would wait;
    a process also lets a check past the time limit be stopped."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=uploads.limit_worker_memory,  # a file that needs more is refused
    )


UPLOAD_TIMEOUT = 30.0
"""Seconds an uploaded bank's check may take before it is refused (a 1 MB GIFT file takes
well under one on a slow core)."""

MAX_DUE_COUNTED = 10_000
"""The most due reviews /stats counts per member (more than any bank holds tasks)."""

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True, slots=True)
class PostedTask:
    """A post with the task it was made with, as the service answers about it."""

    post: PostInfo
    task: Task
    closed: bool = False
    """Whether the post had closed when it was read (`PostInfo.is_closed`): the Discord layer
    shows this and never decides it again."""


@dataclass(frozen=True, slots=True)
class MemberView:
    """A post and one member's progress on it, read together."""

    posted: PostedTask
    progress: Progress


@dataclass(frozen=True, slots=True)
class WriterWindow:
    """How busy the writer thread was over `seconds`; logged beside the loop lag, as
    `writer busy_pct=73 units=171 wait_max_ms=64.0`."""

    seconds: float
    units: int
    busy: float
    """Seconds spent running units (wall time: under a burst a unit takes about twice its CPU
    time, as each driver call hands the interpreter lock to the event loop)."""
    wait_max: float
    """Seconds the longest-queued unit waited to start (a group commit: since its first
    answer or unit was queued)."""

    def describe(self) -> str:
        busy_pct = 100 * self.busy / self.seconds if self.seconds > 0 else 0.0
        return (
            f"writer busy_pct={busy_pct:.0f} units={self.units} "
            f"wait_max_ms={self.wait_max * 1000:.1f}"
        )


class WriterLoad:
    """Counters the writer thread adds to (`timed`) and the loop-lag probe takes a window of
    (`take`): under a burst of clicks that thread, not the event loop, is what members wait for."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._since = clock()
        self._units = 0
        self._busy = 0.0
        self._wait_max = 0.0

    def timed(self, work: Callable[[], T], submitted: float) -> T:
        """Run `work`, counting it; `submitted` is when it was queued (`clock()`)."""
        started = self.clock()
        try:
            return work()
        finally:
            ran = self.clock() - started
            with self._lock:
                self._units += 1
                self._busy += ran
                self._wait_max = max(self._wait_max, started - submitted)

    def take(self) -> WriterWindow:
        """The window since the last `take`, and a new one begun."""
        now = self.clock()
        with self._lock:
            window = WriterWindow(now - self._since, self._units, self._busy, self._wait_max)
            self._since, self._units, self._busy, self._wait_max = now, 0, 0.0, 0.0
        return window


@dataclass(frozen=True, slots=True)
class BankUploaded:
    bank: UploadedBank
    replaced: bool
    """A bank of the same name was replaced (its open posts keep their task versions)."""


@dataclass(slots=True)
class _PendingAnswer:
    request: AnswerRequest
    future: asyncio.Future[Answered]
    queued_at: float
    """When it joined the group-commit queue (`WriterLoad.clock`)."""


@dataclass(slots=True)
class _PendingUnit:
    unit: Unit[Any]
    future: asyncio.Future[Any]
    queued_at: float


class QuizService:
    def __init__(
        self,
        catalog: Catalog,
        store: Store,
        *,
        default_zone: ZoneInfo | None = None,
        clock: Clock = utcnow,
        batch_window: float = 0.002,
        max_batch: int = 256,
        rng: random.Random | None = None,
        upload_timeout: float = UPLOAD_TIMEOUT,
        upload_pool: Callable[[], Executor] | None = None,
    ) -> None:
        self.catalog = catalog
        """The shipped banks (CONTENT_DIR), served in every server."""
        self.store = store
        self.banks = BankStore(store)
        self.upload_timeout = upload_timeout
        self._server_banks: dict[int, dict[str, tuple[Task, ...]]] = {}
        """Each server's uploaded banks' tasks, by bank name."""
        self._server_catalogs: dict[int, Catalog] = {}
        """`catalog_for`'s results, dropped whenever the shipped or the server's banks change."""
        self._banks_version: tuple[int, datetime | None] | None = None
        """`BankStore.version` when the banks were last read (`load_server_banks`)."""
        self._upload_pool_factory = upload_pool or _upload_process
        self._upload_pool: Executor | None = None
        self._upload_lock = asyncio.Lock()
        self.default_zone = default_zone or ZoneInfo("UTC")
        store.default_zone = self.default_zone  # a review card's "local day" (answers.py)
        self.clock = clock
        self._batch_window = batch_window
        self._max_batch = max_batch
        self.rng = rng or random.Random()
        """Which task a /quiz or a practice session picks among equals (seeded in tests)."""
        # Reads may overlap; SQLite serialises the writers itself (BEGIN IMMEDIATE).
        self._readers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="quizbot-db")
        self._writer_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quizbot-write")
        self.writer_load = WriterLoad()
        """How busy the writer thread is (logged beside the loop lag)."""
        self._queue: asyncio.Queue[_PendingAnswer | _PendingUnit] | None = None
        self._writer: asyncio.Task[None] | None = None
        self.sessions = PracticeSessions(self)
        """/practice and /review (bot/practice_sessions.py)."""

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the answer writer, after pinning posts from before versions (once)."""
        if self._writer is None:
            self._queue = asyncio.Queue()
            self._writer = asyncio.create_task(self._group_commits(), name="quizbot-writer")
            await self.load_server_banks()
            await self.pin_unversioned()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        self._readers.shutdown(wait=True)
        self._writer_pool.shutdown(wait=True)
        self._discard_upload_pool()

    async def run_read(
        self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """`fn(conn, *args)`, a store unit function, in a read unit of work off the event loop."""

        def work() -> T:
            with self.store.read() as conn:
                return fn(conn, *args, **kwargs)

        return await self.in_readers(work)

    async def run_write(
        self,
        action: StoreAction,
        fn: Callable[Concatenate[Connection, P], T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """`fn(conn, *args)` in a write unit of work (`action`: what a refusal loses), in the
        one writer thread: SQLite has one writer anyway, and one thread keeps writers from
        queueing on the lock's busy timeout."""

        def work() -> T:
            with self.store.write(action) as conn:
                return fn(conn, *args, **kwargs)

        return await self.in_writer(work)

    async def in_readers(self, work: Callable[[], T]) -> T:
        """`work`, which opens its own read units (a `ScheduleStore` method, ...), off the loop."""
        return await asyncio.get_running_loop().run_in_executor(self._readers, work)

    async def in_writer(self, work: Callable[[], T]) -> T:
        """`work`, which opens its own write units, in the writer thread."""
        return await self._in_writer(self.writer_load.clock(), work)

    async def _in_writer(self, queued_at: float, work: Callable[[], T]) -> T:
        """`work` in the writer thread, counted in `writer_load` as queued since `queued_at`."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._writer_pool, self.writer_load.timed, work, queued_at
        )

    async def run_grouped(self, unit: Unit[T]) -> T:
        """`unit` as a savepoint of the next group commit, returning once it committed: what
        queues behind a stalled disk then waits for it once, not once each."""
        queue = await self._write_queue()
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        queue.put_nowait(_PendingUnit(unit, future, self.writer_load.clock()))
        return await future

    async def _write_queue(self) -> asyncio.Queue[_PendingAnswer | _PendingUnit]:
        if self._queue is None:
            await self.start()
        assert self._queue is not None
        return self._queue

    # -- tasks and posts -----------------------------------------------------------------------

    async def use_catalog(self, catalog: Catalog) -> None:
        """Serve `catalog` from now on: one assignment, so /topics, autocomplete and the next
        post see it at once. Open posts keep the task versions they were posted with."""
        self.catalog = catalog
        self._server_catalogs = {}
        await self.pin_unversioned()

    async def pin_unversioned(self) -> int:
        """Pin 0.1.0's posts (made before task versions) to the loaded task of their id."""
        tasks = self.catalog.tasks
        if not await self.run_read(posts.unversioned_task_ids) & tasks.keys():
            return 0  # the usual case, without the write lock
        pinned = await self.run_write(StoreAction.WRITE, posts.pin_unversioned, tasks, self.clock())
        if pinned:
            log.info("pinned %d posts from before task versions to the loaded tasks", pinned)
        return pinned

    def catalog_for(self, guild_id: int | None) -> Catalog:
        """The tasks a server may post: the shipped banks, then its own uploads (a shipped task
        wins an id both have: a later reload of CONTENT_DIR may add one)."""
        if guild_id is None or guild_id not in self._server_banks:
            return self.catalog
        cached = self._server_catalogs.get(guild_id)
        if cached is None:
            tasks = dict(self.catalog.tasks)
            for bank in self._server_banks[guild_id].values():
                for task in bank:
                    tasks.setdefault(task.id, task)
            cached = self._server_catalogs[guild_id] = Catalog(tasks)
        return cached

    def choose_task(
        self,
        guild_id: int | None,
        topic: str | None = None,
        difficulty: Difficulty | None = None,
        task_id: str | None = None,
    ) -> Task:
        catalog = self.catalog_for(guild_id)
        if task_id:
            return catalog.get_or_raise(task_id)
        return self.rng.choice(catalog.matching(topic, difficulty))

    def posted_of(self, post: PostInfo) -> PostedTask:
        """A post with its task (`PostInfo.graded_task`), and whether it has closed by now:
        what a reply to an answer, a hint or a solution shows."""
        return PostedTask(post, post.graded_task(), post.is_closed(self.clock()))

    async def create_post(
        self,
        guild_id: int,
        channel_id: int,
        task: Task,
        posted_by: int | None,
        *,
        schedule_id: int | None = None,
        closes_at: datetime | None = None,
    ) -> PostedTask:
        post = await self.run_write(
            StoreAction.POST,
            posts.create_post,
            guild_id,
            channel_id,
            task,
            posted_by,
            schedule_id=schedule_id,
            closes_at=closes_at,
            now=self.clock(),
        )
        return PostedTask(post, post.graded_task())

    async def posted(
        self, post_id: int, guild_id: int | None = None, *, user_id: int | None = None
    ) -> PostedTask:
        """The post; with `user_id`, only if that member may use it (`PostInfo.check_member`)."""
        post = await self.run_read(posts.get_post, post_id)
        if post is None or (guild_id is not None and post.guild_id != guild_id):
            raise UnknownPostError(f"no posted task {post_id} in this server")
        if user_id is not None:
            post.check_member(user_id, self.clock())
        return self.posted_of(post)

    async def member_view(self, post_id: int, guild_id: int, user_id: int) -> MemberView:
        """A post and the member's progress, in one read (the picker opens with this)."""
        post, progress = await self.run_read(
            answers.member_state, post_id, guild_id, user_id, self.clock()
        )
        return MemberView(self.posted_of(post), progress)

    async def latest_posted(self, guild_id: int, channel_id: int) -> PostedTask | None:
        post = await self.run_read(posts.latest_post, guild_id, channel_id)
        return None if post is None else self.posted_of(post)

    async def search_posts(self, guild_id: int, text: str, limit: int = 25) -> list[PostedTask]:
        found = []
        for post in await self.run_read(posts.search_posts, guild_id, text, limit):
            # Left out: only a 0.1.0 post whose task was gone when pinned (`PostInfo.graded_task`).
            with contextlib.suppress(UnknownTaskError):
                found.append(self.posted_of(post))
        return found

    # -- answering -----------------------------------------------------------------------------

    async def answer(
        self, post_id: int, guild_id: int, user_id: int, name: str, picks: tuple[str, ...]
    ) -> Answered:
        """Grade and record one answer; returns after its transaction has committed."""
        queue = await self._write_queue()
        future: asyncio.Future[Answered] = asyncio.get_running_loop().create_future()
        request = AnswerRequest(post_id, guild_id, user_id, name, tuple(picks))
        queue.put_nowait(_PendingAnswer(request, future, self.writer_load.clock()))
        return await future

    async def _group_commits(self) -> None:
        """One transaction for the answers and units that arrive within `batch_window`."""
        assert self._queue is not None
        queue = self._queue
        loop = asyncio.get_running_loop()
        window = self._batch_window
        max_batch = self._max_batch
        while True:
            batch = [await queue.get()]
            deadline = loop.time() + window
            while True:
                # Drain what has arrived, then sleep out the rest of the window: one timer per
                # batch rather than a wait_for task per answer that arrives within it.
                while len(batch) < max_batch and not queue.empty():
                    batch.append(queue.get_nowait())
                if len(batch) >= max_batch:
                    break
                timeout = deadline - loop.time()
                if timeout <= 0:
                    break
                await asyncio.sleep(timeout)
            await self._commit_batch(batch)

    async def _commit_batch(self, batch: list[_PendingAnswer | _PendingUnit]) -> None:
        answering = [p for p in batch if isinstance(p, _PendingAnswer)]
        grouped = [p for p in batch if isinstance(p, _PendingUnit)]
        results: list[Any]
        try:
            # Counted as waiting since the first of the group queued: the window, and any
            # group still committing ahead of it, are the writer's queue too.
            group = await self._in_writer(
                min(p.queued_at for p in batch),
                partial(
                    self.store.commit_group,
                    [p.request for p in answering],
                    self.clock(),
                    [p.unit for p in grouped],
                ),
            )
            results = [*group.answered, *group.units]
        except StoreError as exc:
            # The database refused the transaction, which stored nothing; the store logged it.
            # Each member is told what they lost: their answer, their next task, ...
            results = [exc] * len(answering) + [exc.lost(p.unit.action) for p in grouped]
        except Exception as exc:  # the whole transaction failed: nothing was stored
            if answering or len(grouped) > 1:  # a lone unit's error is its caller's to report
                log.exception("group commit of %d failed", len(batch))
            results = [exc] * len(batch)
        in_result_order: list[_PendingAnswer | _PendingUnit] = [*answering, *grouped]
        for pending, result in zip(in_result_order, results, strict=True):
            if pending.future.done():  # the member's interaction was cancelled meanwhile
                continue
            if isinstance(result, BaseException):
                pending.future.set_exception(result)
            else:
                pending.future.set_result(result)

    # -- hints and solutions -------------------------------------------------------------------

    async def hint(self, post_id: int, guild_id: int, user_id: int, name: str) -> HintSeen:
        return await self.run_write(
            StoreAction.REVEAL, answers.reveal_hint, post_id, guild_id, user_id, name, self.clock()
        )

    async def solution(
        self, post_id: int, guild_id: int, user_id: int, name: str, *, confirmed: bool
    ) -> SolutionSeen:
        """The worked solution, or (`access.shown` False) the need to confirm the forfeit
        first. The rule is `engine.open_solution`, applied inside one write transaction."""
        return await self.run_write(
            StoreAction.REVEAL,
            answers.reveal_solution,
            post_id,
            guild_id,
            user_id,
            name,
            self.clock(),
            confirmed=confirmed,
            zone=self.default_zone,
        )

    # -- standings -----------------------------------------------------------------------------

    async def guild_config(self, guild_id: int) -> GuildConfigInfo:
        return await self.run_read(guild_config.guild_config, guild_id)

    async def update_guild_config(self, guild_id: int, **changes: Any) -> GuildConfigInfo:
        """Change some settings: TypeError or ValueError for a bad one, before the write lock."""
        guild_config.check_changes(changes)
        rezone = self._reminder_rezone(self.clock())
        return await self.run_write(
            StoreAction.CHANGE, guild_config.update_guild_config, guild_id, changes, rezone
        )

    async def zone(self, guild_id: int) -> ZoneInfo:
        config = await self.guild_config(guild_id)
        zone = zone_or(config.timezone, None)
        if zone is None and config.timezone:
            log.warning("guild %s has unknown time zone %r", guild_id, config.timezone)
        return zone or self.default_zone

    async def leaderboard(
        self, guild_id: int, period: Period, user_id: int | None, limit: int = 10
    ) -> Leaderboard:
        zone = await self.zone(guild_id)
        return await self.in_readers(
            partial(
                leaderboard.leaderboard,
                self.store,
                guild_id,
                period,
                zone,
                self.clock(),
                user_id,
                limit,
            )
        )

    async def stats(self, guild_id: int, user_id: int) -> MemberStats:
        zone = await self.zone(guild_id)
        return await self.run_read(stats.member_stats, guild_id, user_id, zone, self.clock())

    async def insights(
        self, guild_id: int, period: InsightsPeriod, *, public: bool = False
    ) -> Insights:
        """/insights: the server's period (`insights.window`, local to its zone), read once
        and read with the task each post was made with (`PostInfo.graded_task`). `public`: for the
        channel, so the tasks still open keep their wrong options to themselves."""
        zone = await self.zone(guild_id)
        now = self.clock()
        first, last = insights.window(period, local_date(now, zone))
        activity = await self.in_readers(
            partial(InsightsStore(self.store).window, guild_id, first, last, zone)
        )
        tasks: dict[int, Task] = {}
        for post in activity.posts.values():
            # Left out: only a 0.1.0 post whose task was gone when pinned (`PostInfo.graded_task`).
            with contextlib.suppress(UnknownTaskError):
                tasks[post.id] = post.graded_task()
        withheld = frozenset[str]()
        if public:
            withheld = await self.run_read(posts.open_public_tasks, guild_id, now)
        return insights.build(period, activity, tasks, withheld=withheld)

    async def item_stats(self, guild_id: int) -> list[ItemStats]:
        """/insights tasks: every task's item analysis over all time (`reports/items.py`). The
        analysis takes seconds at scale: off the event loop, like the read."""
        attempts = await self.run_read(first_attempts, guild_id)
        return await asyncio.to_thread(item_stats, attempts)

    async def stats_progress(
        self, guild_id: int, user_id: int, due: Mapping[str, int] | None = None
    ) -> MemberProgress:
        """A member's answers per local day over the last `ACTIVITY_WEEKS` calendar weeks and
        their posts tried per topic (the topic of each post's own task version,
        `PostInfo.graded_task`). `due`: reviews due per topic (`reviews_due_by_topic`)."""
        zone = await self.zone(guild_id)
        now = self.clock()
        today = local_date(now, zone)
        since = week_start(today) - timedelta(weeks=ACTIVITY_WEEKS - 1)
        activity = await self.run_read(stats.member_activity, guild_id, user_id, zone, since, now)
        topics = topic_progress(activity.tried, self._topic_of, due or {})
        return MemberProgress(since, today, activity.attempts_per_day, topics)

    def _topic_of(self, post: PostInfo) -> str:
        try:
            return post.graded_task().topic
        except UnknownTaskError:
            return _(OTHER_TOPIC)  # the member's language: /stats is private

    # -- for the scheduler --------------------------------------------------------------------

    def tasks_matching(
        self, guild_id: int, topic: str | None, difficulty: Difficulty | None
    ) -> list[Task]:
        """The tasks a server's schedule may post; NoMatchingTaskError when there are none."""
        return self.catalog_for(guild_id).matching(topic, difficulty)

    # -- uploaded banks ------------------------------------------------------------------------

    async def load_server_banks(self) -> int:
        """Read every server's uploaded banks from the database (when the service starts);
        the number of banks. A stored bank that a newer check refuses in part serves the rest,
        and the log says what was left out."""
        # Not beside an upload or a removal in this process: swapped in after it, what was
        # read before it would undo it here until the next change anywhere.
        async with self._upload_lock:
            version = await self.in_readers(self.banks.version)
            stored = await self.in_readers(self.banks.all)
            loaded: dict[int, dict[str, tuple[Task, ...]]] = {}
            for bank in stored:
                tasks, problems = await asyncio.to_thread(
                    uploads.stored_tasks, bank.name, bank.yaml
                )
                for problem in problems:
                    log.warning("server %s, bank %r: %s", bank.guild_id, bank.name, problem)
                loaded.setdefault(bank.guild_id, {})[bank.name] = tuple(tasks)
            self._server_banks = loaded
            self._server_catalogs = {}
            self._banks_version = version
        return len(stored)

    async def refresh_server_banks(self) -> bool:
        """Read the uploaded banks again if any changed since they were read, in any process
        (`BankStore.version`); whether they were. The process that sends every reminder counts
        other shards' servers' reviews too, whose uploads another process takes."""
        if await self.in_readers(self.banks.version) == self._banks_version:
            return False
        await self.load_server_banks()
        return True

    def bank_names(self, guild_id: int) -> list[str]:
        """The server's uploaded banks, by name (for autocomplete)."""
        return sorted(self._server_banks.get(guild_id, {}))

    def _taken_ids(self, guild_id: int, replacing: str) -> dict[str, str]:
        """Task ids an upload to `guild_id` may not use, and where each is used already."""
        taken = {task.id: f"the shipped bank '{task.bank}'" for task in self.catalog}
        for name, tasks in self._server_banks.get(guild_id, {}).items():
            if name != replacing:
                taken.update((task.id, f"this server's bank '{name}'") for task in tasks)
        return taken

    async def upload_bank(
        self,
        guild_id: int,
        filename: str,
        data: bytes,
        uploaded_by: int,
        *,
        topic: str | None = None,
    ) -> BankUploaded:
        """Check an uploaded file and store it as the server's bank of its name (replacing
        one of that name); BankRefusedError lists every problem. The check runs in a worker
        process (`_upload_process`), one upload at a time, and is refused (the process
        stopped) after `upload_timeout` seconds."""
        too_big = uploads.size_problem(filename, len(data))
        if too_big:
            raise BankRefusedError(filename, [too_big])
        async with self._upload_lock:
            name = uploads.bank_name(filename)
            taken = self._taken_ids(guild_id, name)
            loop = asyncio.get_running_loop()
            check = partial(uploads.check_upload_encoded, data, filename, topic=topic, taken=taken)
            if self._upload_pool is None:
                self._upload_pool = self._upload_pool_factory()
            try:
                result = await asyncio.wait_for(
                    loop.run_in_executor(self._upload_pool, check), self.upload_timeout
                )
            except TimeoutError:
                self._discard_upload_pool()  # the worker process is stopped, not waited for
                why = f"{filename}: checking it took over {self.upload_timeout:g} s: split it"
                raise BankRefusedError(filename, [why]) from None
            except BrokenExecutor as exc:
                # The worker ended under us (the out-of-memory killer, a crash): the pool is
                # unusable for good, so the next upload gets a new one.
                log.warning("checking %r for server %s: %s", filename, guild_id, exc)
                self._discard_upload_pool()
                why = (
                    f"{filename}: the check stopped before it ended (its worker process quit): "
                    "upload it again"
                )
                raise BankRefusedError(filename, [why]) from None
            if isinstance(result, RefusedUpload):
                raise BankRefusedError(filename, result.problems)
            bank = await asyncio.to_thread(result.decode)
            replaced = await self.in_writer(
                partial(
                    self.banks.save,
                    guild_id,
                    bank.name,
                    bank.yaml,
                    len(bank.tasks),
                    uploaded_by,
                    self.clock(),
                )
            )
            self._server_banks.setdefault(guild_id, {})[bank.name] = bank.tasks
            self._server_catalogs.pop(guild_id, None)
        log.info(
            "server %s: bank %r uploaded (%d tasks, %s)",
            guild_id,
            bank.name,
            len(bank.tasks),
            bank.fmt,
        )
        return BankUploaded(bank, replaced)

    def _discard_upload_pool(self) -> None:
        pool, self._upload_pool = self._upload_pool, None
        if pool is None:
            return
        # A process pool's workers (a private attribute: Python 3.14 has terminate_workers).
        workers = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()

    async def list_banks(self, guild_id: int) -> list[BankSummary]:
        return await self.in_readers(partial(self.banks.list, guild_id))

    async def bank_yaml(self, guild_id: int, name: str) -> str:
        """The server's bank as our YAML; UnknownBankError if it has none of that name."""
        stored = await self.in_readers(partial(self.banks.get, guild_id, name))
        if stored is None:
            raise UnknownBankError(name)
        return stored.yaml

    async def remove_bank(self, guild_id: int, name: str) -> int:
        """Stop serving the server's bank and delete it; the number of tasks it had. Its open
        posts keep their task versions. UnknownBankError if it has none of that name."""
        async with self._upload_lock:
            if not await self.in_writer(partial(self.banks.remove, guild_id, name)):
                raise UnknownBankError(name)
            banks = self._server_banks.get(guild_id, {})
            removed = banks.pop(name, ())
            if not banks:
                self._server_banks.pop(guild_id, None)
            self._server_catalogs.pop(guild_id, None)
        return len(removed)

    # -- review reminders ----------------------------------------------------------------------

    async def turn_reminders_on(
        self,
        guild_id: int,
        user_id: int,
        *,
        hour: int | None = None,
        timezone: str | None = None,
        server_zone: bool = False,
    ) -> reminders.ReminderPlan:
        """Turn the member's daily review reminder on. `hour` None keeps their previous hour
        (else `reminders.DEFAULT_HOUR`); `timezone` (an IANA name, checked by the caller)
        None keeps their previous zone (else the server's); `server_zone` goes back to the
        server's zone."""
        now = self.clock()
        info = await self.run_write(
            StoreAction.CHANGE,
            store_reminders.turn_on,
            guild_id,
            user_id,
            hour=hour,
            timezone=timezone,
            default_hour=reminders.DEFAULT_HOUR,
            server_zone=server_zone,
            rezone=self._reminder_rezone(now),
        )
        server = (await self.guild_config(guild_id)).timezone
        zone = zone_or(info.timezone or server, self.default_zone)
        upcoming = reminders.next_reminder(info.hour, zone, now, info.last_sent_on)
        return reminders.ReminderPlan(info.hour, zone, info.timezone is not None, upcoming)

    def _reminder_rezone(self, now: datetime) -> Rezone:
        """A reminder's last day moved into its member's new zone (`sent_day_in`): "once a
        local day" is the new zone's from now on."""

        def rezone(day: date, old: str | None, new: str | None) -> date:
            old_zone, new_zone = zone_or(old, self.default_zone), zone_or(new, self.default_zone)
            return reminders.sent_day_in(day, old_zone, new_zone, now)

        return rezone

    async def take_reminder_notice(self, guild_id: int, user_id: int) -> str | None:
        """What /review tells a member once after their reminders were turned off because
        Discord would not let the bot DM them; None when there is nothing to tell."""
        if not await self.run_read(store_reminders.dm_notice_pending, guild_id, user_id):
            return None  # the usual case, without the writer thread
        told = await self.run_write(
            StoreAction.WRITE, store_reminders.take_dm_notice, guild_id, user_id
        )
        return reminders.DMS_CLOSED_NOTICE if told else None

    async def reviews_due_by_topic(self, guild_id: int, user_id: int) -> dict[str, int]:
        """The member's reviews due now, per topic of the server's catalog (`catalog_for`);
        cards of tasks it no longer has are left out. For `stats_progress`'s `due`."""
        task_ids = await self.run_read(
            review_cards.due_queue, guild_id, user_id, self.clock(), MAX_DUE_COUNTED
        )
        tasks = self.catalog_for(guild_id).tasks
        due: dict[str, int] = {}
        for task_id in task_ids:
            task = tasks.get(task_id)
            if task is not None:
                due[task.topic] = due.get(task.topic, 0) + 1
        return due


__all__ = [
    "BankUploaded",
    "MemberView",
    "PostedTask",
    "QuizError",
    "QuizService",
    "WriterLoad",
]
