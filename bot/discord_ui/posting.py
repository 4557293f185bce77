"""Sending a task post; shared by /quiz and the daily scheduler."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.components import post_view
from bot.discord_ui.embeds import task_embed
from bot.discord_ui.replies import detached, outgoing, spent
from bot.quiz.errors import StoreError

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
    """Send the post (`post_message`) and nothing else.

    `extra` (e.g. the scheduler's "📅 Daily quiz · Sun 02 Mar 2025") goes in the message
    content: the live-count updater redraws only the embed, so it stays as sent.
    Raises discord.Forbidden / HTTPException when Discord refuses; the caller reports it.
    """
    message = post_message(posted, extra=extra)
    try:
        return await channel.send(**message)
    finally:
        spent(message["view"])


async def post_task(
    bot: QuizBot, channel: discord.abc.Messageable, posted: PostedTask
) -> discord.Message:
    """/quiz: send the post and record its message id. (The scheduler records the id itself,
    as a step of its exactly-once protocol, so its poster uses `send_task`.)

    When Discord refuses the message, the post row goes too: left behind, it would be the
    channel's "latest post" for /hint and /solution, and an open post that holds its task
    back from the member's /practice, though nobody can ever see it. (A lost connection or
    Discord's own error keeps it: the message may have gone out, and its buttons need the
    row.)"""
    try:
        message = await send_task(channel, posted)
    except discord.HTTPException as exc:
        if exc.status < 500:
            await bot.service.discard_post(posted.post.id)
        raise
    # The post is out and answers (its buttons carry the post's id); only its live counts
    # need the message id. Telling the member it failed would have them post it again. The
    # store has logged the fault.
    with contextlib.suppress(StoreError):
        await bot.service.attach_message(posted.post.id, message.id)
    return message


class ChannelCooldowns:
    """Per-channel posting cooldowns, in memory: losing them on restart costs nothing.

    Process-local, and correct with several sharded processes: /quiz is a server command, and
    Discord delivers a server's interactions only to the shard that owns it, which runs in one
    process (bot/sharding.py), so every /quiz of a channel meets the same cooldowns. (Two
    processes given the same shard by mistake could each let a post through within one
    cooldown: a softer limit, never a double post of one command, whose first acknowledgement
    wins.)"""

    _PRUNE_AT = 1024

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: dict[int, float] = {}

    def claim(self, channel_id: int, seconds: float) -> float:
        """Take the channel's slot: 0.0 when taken, else the seconds left to wait.

        Check and claim happen in one step, with no await between, so two members who post
        at the same moment cannot both get through.
        """
        now = self._clock()
        until = self._until.get(channel_id, 0.0)
        if now < until:
            return until - now
        if len(self._until) >= self._PRUNE_AT:
            self._until = {cid: t for cid, t in self._until.items() if t > now}
        if seconds > 0:
            self._until[channel_id] = now + seconds
        return 0.0

    def release(self, channel_id: int) -> None:
        """Give the slot back when the post failed, so a fixed channel can post at once."""
        self._until.pop(channel_id, None)
