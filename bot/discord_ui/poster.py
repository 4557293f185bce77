"""The scheduler's `Poster` over discord.py: send, find after a crash, open a thread, close.
The exactly-once protocol, and every write, is bot/schedule/runner.py's."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import discord

from bot.clock import as_utc
from bot.discord_ui.clicks import NO_CONNECTION, outgoing
from bot.discord_ui.post_view import task_embed
from bot.discord_ui.posting import send_task
from bot.schedule.runner import PosterError
from bot.store import posts

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import PostedTask
    from bot.store import PostInfo

HISTORY_LIMIT = 100
"""Messages read after a claim when recovering from a crash: the post is among the first."""
CLOCK_SKEW = timedelta(minutes=5)
"""Our clock and Discord's snowflake clock may disagree; look a little earlier."""
THREAD_EXISTS = 160004
"""Discord's error code for "a thread has already been created for this message"."""
THREAD_ARCHIVE_MINUTES = 1440
_POST_IN_CUSTOM_ID = re.compile(r"^quiz:[a-z]+:(?P<post>[0-9]{1,20})(?::|$)")
"""Every task-post button's custom_id names its post (bot/discord_ui/clicks.py)."""


POST_NEEDS = "View Channel, Send Messages, Embed Links and Read Message History"
THREAD_NEEDS = "Create Public Threads and Send Messages in Threads"
"""What a refused discussion thread lacks: the post itself went out, so not POST_NEEDS."""


@contextlib.contextmanager
def _refusals(channel_id: int, needs: str = POST_NEEDS) -> Iterator[None]:
    """Discord's refusals as PosterError, worded for /schedule list; `needs`: the permissions
    a refusal asks for."""
    try:
        yield
    except discord.Forbidden as exc:
        raise PosterError(
            f"Discord refused in <#{channel_id}> ({exc.text or 'Missing Permissions'}): "
            f"I need {needs} there"
        ) from exc
    except discord.NotFound as exc:
        raise PosterError(
            f"<#{channel_id}> or its message is gone, or I cannot see it ({exc.text})"
        ) from exc
    except discord.HTTPException as exc:
        raise PosterError(
            f"Discord error {exc.status} in <#{channel_id}>: {exc.text}",
            transient=exc.status >= 500 or exc.status == 429,
        ) from exc
    except NO_CONNECTION as exc:
        # Discord's to answer, not our bug: retried like a refusal, and logged in one line.
        raise PosterError(
            f"no connection to Discord for <#{channel_id}> ({exc!r})", transient=True
        ) from exc


def post_ids_of(message: discord.Message) -> set[int]:
    """The posts a message's buttons belong to (a task post has exactly one)."""
    found: set[int] = set()
    for row in message.components:
        for child in getattr(row, "children", ()):
            match = _POST_IN_CUSTOM_ID.match(getattr(child, "custom_id", None) or "")
            if match:
                found.add(int(match["post"]))
    return found


class DiscordPoster:
    """`bot.schedule.runner.Poster` over discord.py."""

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    def _channel(self, post: PostInfo) -> discord.abc.Messageable:
        channel = self.bot.get_channel(post.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        # Not cached (or not a text channel): the REST call itself tells what is wrong.
        return self.bot.get_partial_messageable(post.channel_id, guild_id=post.guild_id)

    async def post(self, posted: PostedTask, *, extra: str) -> int:
        with _refusals(posted.post.channel_id):
            message = await send_task(self._channel(posted.post), posted, extra=extra)
        return message.id

    async def find(self, posted: PostedTask, *, since: datetime) -> int | None:
        me = self.bot.user
        start = discord.utils.time_snowflake(as_utc(since) - CLOCK_SKEW)
        channel = self._channel(posted.post)
        with _refusals(posted.post.channel_id):
            async for message in channel.history(
                limit=HISTORY_LIMIT, after=discord.Object(id=start), oldest_first=True
            ):
                if me is not None and message.author.id != me.id:
                    continue
                if posted.post.id in post_ids_of(message):
                    return message.id
        return None

    async def open_thread(
        self, posted: PostedTask, message_id: int, *, name: str, text: str
    ) -> None:
        message = self._channel(posted.post).get_partial_message(message_id)  # type: ignore[attr-defined]
        with _refusals(posted.post.channel_id, THREAD_NEEDS):
            try:
                thread = await message.create_thread(
                    name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
                )
            except discord.HTTPException as exc:
                if exc.code == THREAD_EXISTS:  # opened before a crash: nothing to do
                    return
                raise
            except ValueError as exc:  # the server is not in the cache (yet)
                raise PosterError(f"cannot open a thread: {exc}") from exc
            await thread.send(text, allowed_mentions=discord.AllowedMentions.none())

    async def language(self, guild_id: int) -> str:
        return await self.bot.languages.public_locale(guild_id)

    async def close(self, posted: PostedTask, *, content: str) -> None:
        assert posted.post.message_id is not None
        counts = await self.bot.service.run_read(posts.post_counts, posted.post.id)
        message = self._channel(posted.post).get_partial_message(posted.post.message_id)  # type: ignore[attr-defined]
        with _refusals(posted.post.channel_id):
            # No `view`: the buttons stay, and now answer that the quiz has closed.
            await message.edit(**outgoing(content=content, embed=task_embed(posted, counts)))
