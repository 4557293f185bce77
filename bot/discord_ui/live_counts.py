"""The "answered · solved" counts on posts, kept current without tripping rate limits.

Discord allows about five message edits per channel every five seconds, and a busy quiz gets
many answers a second. So each post gets at most one edit per `interval`: the first answer
after a quiet spell edits at once, later ones only mark the post dirty, and one task per post
redraws it when the interval is up. The dirty mark is cleared before the counts are read, so an
answer that lands during an edit always causes one more: the final state is always written.

Process-local, and correct with several sharded processes: the counts themselves are read from
the database at each redraw, and the answers to a post all reach the process that owns its
server (bot/sharding.py), which is the one that bumps and redraws it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import TYPE_CHECKING

import discord

from bot.discord_ui.embeds import task_embed
from bot.discord_ui.replies import outgoing
from bot.quiz.errors import QuizError

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 5.0
MAX_RETRIES = 3


class _Result(Enum):
    DONE = "done"
    FAILED = "failed"
    GONE = "gone"


class LiveCounts:
    def __init__(
        self,
        bot: QuizBot,
        *,
        interval: float = DEFAULT_INTERVAL,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        """`sleep` waits out the interval; tests pass one they control."""
        self._bot = bot
        self.interval = interval
        self._sleep = sleep
        self._running: dict[int, asyncio.Task[None]] = {}
        self._dirty: set[int] = set()
        self.edits = 0
        """Edits sent so far (tests and diagnostics read it)."""

    def bump(self, post_id: int) -> None:
        """Note that a post's counts changed; cheap, never waits."""
        if post_id in self._running:
            self._dirty.add(post_id)
            return
        task = asyncio.create_task(self._run(post_id), name=f"quizbot-live-counts-{post_id}")
        self._running[post_id] = task

    async def _run(self, post_id: int) -> None:
        failures = 0
        try:
            while True:
                self._dirty.discard(post_id)
                result = await self._redraw(post_id)
                if result is _Result.GONE:
                    return
                if result is _Result.FAILED:
                    failures += 1
                    if failures < MAX_RETRIES:  # a retry after the interval, not a hot loop
                        self._dirty.add(post_id)
                await self._sleep(self.interval)
                if post_id not in self._dirty:
                    return
        finally:
            self._running.pop(post_id, None)
            self._dirty.discard(post_id)

    async def _redraw(self, post_id: int) -> _Result:
        service = self._bot.service
        try:
            posted = await service.posted(post_id)
            post = posted.post
            if post.message_id is None:
                return _Result.GONE
            counts = await service.counts(post_id)
            message = self._bot.get_partial_messageable(
                post.channel_id, guild_id=post.guild_id
            ).get_partial_message(post.message_id)
            await message.edit(**outgoing(embed=task_embed(posted, counts)))
            self.edits += 1
        except (discord.NotFound, QuizError):
            return _Result.GONE  # the message (or post, or task) is gone
        except discord.HTTPException as exc:
            log.warning("could not update the counts of post %s: %s", post_id, exc)
            return _Result.FAILED
        except Exception:
            log.exception("could not update the counts of post %s", post_id)
            return _Result.FAILED
        return _Result.DONE

    async def drain(self) -> None:
        """Wait for every pending update, including the final redraws."""
        while self._running:
            await asyncio.gather(*list(self._running.values()), return_exceptions=True)

    async def close(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
