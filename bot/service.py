"""The async façade the Discord layer (and the scheduler) call.

It joins the pure rules (bot.quiz) with storage (bot.store) and keeps every database call off the
event loop: reads go to a small thread pool, answers go through a group-commit writer that
acknowledges each answer only after the transaction holding it has committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from typing import Literal, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.quiz import engine
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.errors import PostClosedError, QuizError, UnknownPostError, UnknownTaskError
from bot.quiz.tasks import Catalog, Difficulty, Task
from bot.store import (
    AnswerRequest,
    GuildConfigInfo,
    Leaderboard,
    MemberStats,
    PostCounts,
    PostInfo,
    ScheduleStore,
    Store,
)

log = logging.getLogger(__name__)

T = TypeVar("T")
ANSWER_POST_CACHE = 4096
"""Posts whose task the answer path keeps in memory (a few hundred bytes each)."""
Period = Literal["today", "week", "all"]
Clock = Callable[[], datetime]


def utcnow() -> datetime:
    """Naive UTC, the form the store keeps timestamps in."""
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True, slots=True)
class PostedTask:
    post: PostInfo
    task: Task


@dataclass(frozen=True, slots=True)
class AnswerReply:
    posted: PostedTask
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class SolutionReply:
    posted: PostedTask
    progress: Progress
    forfeited_now: bool


@dataclass(slots=True)
class _PendingAnswer:
    request: AnswerRequest
    task: Task
    future: asyncio.Future[Outcome]


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
    ) -> None:
        self.catalog = catalog
        self.store = store
        self.default_zone = default_zone or ZoneInfo("UTC")
        self.clock = clock
        self._batch_window = batch_window
        self._max_batch = max_batch
        self._rng = rng or random.Random()
        # Reads may overlap; SQLite serialises the writers itself (BEGIN IMMEDIATE).
        self._readers = ThreadPoolExecutor(max_workers=4, thread_name_prefix="quizbot-db")
        self._writer_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quizbot-write")
        self._queue: asyncio.Queue[_PendingAnswer] | None = None
        self._writer: asyncio.Task[None] | None = None
        # post id -> post and task for the answer path. A post's guild and task never change;
        # whether it is closed is re-checked inside the answer's write transaction.
        self._answer_posts: dict[int, PostedTask] = {}

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        if self._writer is None:
            self._queue = asyncio.Queue()
            self._writer = asyncio.create_task(self._write_answers(), name="quizbot-writer")

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        self._readers.shutdown(wait=True)
        self._writer_pool.shutdown(wait=True)

    async def run_read(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """Run a store read in the reader threads, off the event loop."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._readers, partial(fn, *args, **kwargs))

    async def run_write(self, fn: Callable[..., T], *args: object, **kwargs: object) -> T:
        """Run a store write in the single writer thread: SQLite has one writer anyway, and one
        thread keeps writers from queueing on the lock's busy timeout."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._writer_pool, partial(fn, *args, **kwargs))

    # -- tasks and posts -----------------------------------------------------------------------

    def task(self, task_id: str) -> Task:
        task = self.catalog.get(task_id)
        if task is None:
            raise UnknownTaskError(f"task {task_id!r} is not in the loaded banks")
        return task

    def choose_task(
        self,
        topic: str | None = None,
        difficulty: Difficulty | None = None,
        task_id: str | None = None,
    ) -> Task:
        if task_id:
            return self.catalog.get_or_raise(task_id)
        return self._rng.choice(self.catalog.matching(topic, difficulty))

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
            self.store.create_post,
            guild_id,
            channel_id,
            task.id,
            posted_by,
            schedule_id=schedule_id,
            closes_at=closes_at,
            now=self.clock(),
        )
        return PostedTask(post, task)

    async def attach_message(self, post_id: int, message_id: int) -> None:
        await self.run_write(self.store.set_post_message, post_id, message_id)

    async def posted(self, post_id: int, guild_id: int | None = None) -> PostedTask:
        post = await self.run_read(self.store.get_post, post_id)
        if post is None or (guild_id is not None and post.guild_id != guild_id):
            raise UnknownPostError(f"no posted task {post_id} in this server")
        return PostedTask(post, self.task(post.task_id))

    async def latest_posted(self, guild_id: int, channel_id: int) -> PostedTask | None:
        post = await self.run_read(self.store.latest_post, guild_id, channel_id)
        return None if post is None else PostedTask(post, self.task(post.task_id))

    async def search_posts(self, guild_id: int, text: str, limit: int = 25) -> list[PostedTask]:
        posts = await self.run_read(self.store.search_posts, guild_id, text, limit)
        return [PostedTask(p, t) for p in posts if (t := self.catalog.get(p.task_id))]

    async def counts(self, post_id: int) -> PostCounts:
        return await self.run_read(self.store.post_counts, post_id)

    async def progress(self, post_id: int, user_id: int) -> Progress:
        return await self.run_read(self.store.progress, post_id, user_id)

    # -- answering -----------------------------------------------------------------------------

    async def answer(
        self, post_id: int, guild_id: int, user_id: int, name: str, picks: tuple[str, ...]
    ) -> AnswerReply:
        posted = self._answer_posts.get(post_id)
        cached = posted is not None
        if posted is None:
            posted = await self.posted(post_id, guild_id)
            if posted.post.closed_at is not None:
                raise PostClosedError("this quiz has closed")
            self._remember_post(posted)
        elif posted.post.guild_id != guild_id:
            raise UnknownPostError(f"no posted task {post_id} in this server")
        # Shape errors are the member's (or a forged custom_id's); refuse before queueing.
        picks = engine.normalise_picks(posted.task, picks)
        request = AnswerRequest(post_id, guild_id, user_id, name, picks)
        if self._queue is None:
            await self.start()
        assert self._queue is not None
        future: asyncio.Future[Outcome] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_PendingAnswer(request, posted.task, future))
        outcome = await future
        if cached and outcome.status is Status.ALREADY_FINISHED:
            # The transaction refuses new attempts on a closed post, but lets a finished
            # member through (nothing is written); that member is told the quiz closed, as
            # a fresh read of the post would have said before queueing.
            posted = await self.posted(post_id, guild_id)
            if posted.post.closed_at is not None:
                raise PostClosedError("this quiz has closed")
        return AnswerReply(posted, outcome)

    def _remember_post(self, posted: PostedTask) -> None:
        cache = self._answer_posts
        if len(cache) >= ANSWER_POST_CACHE:
            del cache[next(iter(cache))]  # the oldest entry
        cache[posted.post.id] = posted

    async def _write_answers(self) -> None:
        """Group commit: one transaction for the answers that arrive within a few ms."""
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

    async def _commit_batch(self, batch: list[_PendingAnswer]) -> None:
        tasks = {id(p.request): p.task for p in batch}

        def grade(request: AnswerRequest, progress: Progress) -> Outcome:
            return engine.grade(tasks[id(request)], progress, request.picks)

        try:
            results = await self.run_write(
                self.store.answer_batch, [p.request for p in batch], grade, self.clock()
            )
        except Exception as exc:  # the whole transaction failed: nothing was stored
            log.exception("answer batch of %d failed", len(batch))
            results = [exc] * len(batch)
        for pending, result in zip(batch, results, strict=True):
            if pending.future.done():  # the member's interaction was cancelled meanwhile
                continue
            if isinstance(result, BaseException):
                pending.future.set_exception(result)
            else:
                pending.future.set_result(result)

    # -- hints and solutions -------------------------------------------------------------------

    async def hint(self, post_id: int, guild_id: int, user_id: int, name: str) -> PostedTask:
        posted = await self.posted(post_id, guild_id)
        await self.run_write(self.store.reveal_hint, post_id, guild_id, user_id, name, self.clock())
        return posted

    async def solution(
        self, post_id: int, guild_id: int, user_id: int, name: str, *, confirmed: bool
    ) -> SolutionReply | None:
        """The worked solution; None when it would forfeit attempts and that is not confirmed.

        After a daily quiz closes the solution is free: nothing is left to forfeit.
        """
        posted = await self.posted(post_id, guild_id)
        before = await self.progress(post_id, user_id)
        closed = posted.post.closed_at is not None
        if not before.finished and not closed and not confirmed:
            return None
        if closed and not before.finished:
            return SolutionReply(posted, before, forfeited_now=False)
        after = await self.run_write(
            self.store.reveal_solution, post_id, guild_id, user_id, name, self.clock()
        )
        return SolutionReply(posted, after, forfeited_now=not before.finished)

    # -- standings -----------------------------------------------------------------------------

    async def guild_config(self, guild_id: int) -> GuildConfigInfo:
        return await self.run_read(self.store.guild_config, guild_id)

    async def update_guild_config(self, guild_id: int, **changes: object) -> GuildConfigInfo:
        return await self.run_write(self.store.update_guild_config, guild_id, **changes)

    async def zone(self, guild_id: int) -> ZoneInfo:
        config = await self.guild_config(guild_id)
        if config.timezone:
            try:
                return ZoneInfo(config.timezone)
            except (ZoneInfoNotFoundError, ValueError):
                log.warning("guild %s has unknown time zone %r", guild_id, config.timezone)
        return self.default_zone

    async def leaderboard(
        self, guild_id: int, period: Period, user_id: int | None, limit: int = 10
    ) -> Leaderboard:
        zone = await self.zone(guild_id)
        return await self.run_read(
            self.store.leaderboard, guild_id, period, zone, self.clock(), user_id, limit
        )

    async def stats(self, guild_id: int, user_id: int) -> MemberStats:
        zone = await self.zone(guild_id)
        return await self.run_read(self.store.member_stats, guild_id, user_id, zone, self.clock())

    # -- for the scheduler --------------------------------------------------------------------

    def schedule_store(self) -> ScheduleStore:
        """The daily quizzes' units of work on this service's database. The scheduler runs
        them through `run_read`/`run_write`, so they stay off the event loop."""
        return ScheduleStore(self.store)

    def tasks_matching(self, topic: str | None, difficulty: Difficulty | None) -> list[Task]:
        """The loaded tasks a schedule may post; NoMatchingTaskError when there are none."""
        return self.catalog.matching(topic, difficulty)

    async def close_post(self, post_id: int, now: datetime) -> bool:
        """Close a post for answers (its daily quiz's closing time came); False if it was
        closed already."""
        return await self.run_write(self.store.close_post, post_id, now)


__all__ = [
    "AnswerReply",
    "PostedTask",
    "QuizError",
    "QuizService",
    "SolutionReply",
    "utcnow",
]
