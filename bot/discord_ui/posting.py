"""Sending a task post; shared by /quiz and the daily scheduler."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.clicks import detached, outgoing, spent
from bot.discord_ui.post_view import post_view, task_embed
from bot.i18n import speaking
from bot.quiz.errors import StoreAction, StoreError
from bot.quiz.rules import MAX_COOLDOWN_SECONDS
from bot.store import posts

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import PostedTask


def post_message(posted: PostedTask, *, extra: str | None = None) -> dict[str, Any]:
    """The post's send arguments: embed and buttons, `extra` as the content, fitted to
    Discord's limits; pings nobody."""
    return outgoing(
        content=extra or None,
        embed=task_embed(posted),
        view=detached(post_view(posted)),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def send_task(
    channel: discord.abc.Messageable, posted: PostedTask, *, extra: str | None = None
) -> discord.Message:
    """Send the post; `extra` (the scheduler's "📅 Daily quiz · …") goes in the content,
    which the footer's redraw leaves as sent. Discord's refusal is the caller's to report."""
    message = post_message(posted, extra=extra)
    try:
        return await channel.send(**message)
    finally:
        spent(message["view"])


async def post_task(
    bot: QuizBot, channel: discord.abc.Messageable, posted: PostedTask
) -> discord.Message:
    """/quiz: send the post, in the server's language, and record its message id (the
    scheduler records its own). Refused by Discord, the post row goes too, or it would be the
    channel's "latest post" that nobody sees; a lost connection or a 5xx keeps it: the message
    may be out."""
    try:
        with speaking(await bot.languages.public_locale(posted.post.guild_id)):
            message = await send_task(channel, posted)
    except discord.HTTPException as exc:
        if exc.status < 500:
            await bot.service.run_write(StoreAction.POST, posts.discard_post, posted.post.id)
        raise
    # The post is out and answers; only its live counts need the message id, and "failed"
    # would have the member post it again. The store has logged the fault.
    with contextlib.suppress(StoreError):
        await bot.service.run_write(
            StoreAction.WRITE, posts.set_post_message, posted.post.id, message.id
        )
    return message


class ChannelCooldowns:
    """Per-channel posting cooldowns, in memory (a restart loses nothing that matters).
    Process-local is right with shards: a server's interactions all reach one process.
    It keeps when each channel last posted, so a cooldown changed by `/config cooldown`
    applies at once, to the posts before it too."""

    _PRUNE_AT = 1024

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._posted: dict[int, float] = {}

    def claim(self, channel_id: int, seconds: float) -> float:
        """Take the channel's slot: 0.0 when taken, else the seconds left. No await between
        check and claim, so two members posting at once cannot both get through."""
        now = self._clock()
        posted = self._posted.get(channel_id)
        if posted is not None and now < posted + seconds:
            return posted + seconds - now
        if len(self._posted) >= self._PRUNE_AT:
            self._posted = {
                cid: t for cid, t in self._posted.items() if now - t < MAX_COOLDOWN_SECONDS
            }
        self._posted[channel_id] = now
        return 0.0

    def release(self, channel_id: int) -> None:
        """Give the slot back when the post failed, so a fixed channel can post at once."""
        self._posted.pop(channel_id, None)
