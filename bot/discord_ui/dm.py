"""The reminder pass's `DirectMessages` over discord.py: open the DM channel and send.

When and to whom is the reminder pass's (bot/schedule/reminders.py, on the rule of
bot/quiz/reminders.py); this module only talks to Discord and sorts its refusals: the member is
no longer in the server, or the bot is not (`MemberGoneError`, which turns the reminder off
quietly), closed DMs (`DmsClosedError`, which turns it off and tells the member on their next
/review), any other failure (`DmFailedError`, logged; not retried that day), a lost connection
included.

The member is looked up first, by REST: with default intents the bot is never told that a
member left, and Discord still delivers DMs to a user who shares any other server with it. The
server may not be in this process's cache either (the reminders run in the process of shard 0,
which caches its own shards' servers only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.discord_ui.errors import NO_CONNECTION
from bot.discord_ui.replies import outgoing
from bot.quiz.reminders import reminder_text
from bot.schedule.reminders import DmFailedError, DmsClosedError, MemberGoneError

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

MISSING_ACCESS = 50001
"""Discord's answer to a lookup in a server the bot is not in, before 2023 (since then it
says 404 Unknown Guild); either way the bot was removed from that server."""
CANNOT_DM = 50007
"""Discord's error code for "Cannot send messages to this user": the member's DMs are closed
to us (privacy settings, a block, or no server shared any more)."""


class DiscordDirectMessages:
    """`bot.schedule.reminders.DirectMessages` over discord.py."""

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        try:
            guild = self.bot.get_guild(guild_id) or await self.bot.fetch_guild(guild_id)
            await guild.fetch_member(user_id)
        except discord.NotFound as exc:
            raise MemberGoneError(exc.text) from exc
        except discord.Forbidden as exc:
            if exc.code == MISSING_ACCESS:
                raise MemberGoneError(exc.text) from exc
            raise DmFailedError(f"Discord error {exc.status}: {exc.text}") from exc
        except discord.HTTPException as exc:
            raise DmFailedError(f"Discord error {exc.status}: {exc.text}") from exc
        except NO_CONNECTION as exc:
            raise DmFailedError(f"no connection to Discord ({exc!r})") from exc
        text = reminder_text(due, guild.name)
        try:
            channel = await self.bot.create_dm(discord.Object(id=user_id))
            await channel.send(**outgoing(content=text))
        except discord.Forbidden as exc:
            if exc.code == CANNOT_DM:
                raise DmsClosedError(exc.text) from exc
            raise DmFailedError(
                f"Discord refused ({exc.status}, code {exc.code}): {exc.text}"
            ) from exc
        except discord.HTTPException as exc:
            raise DmFailedError(f"Discord error {exc.status}: {exc.text}") from exc
        except NO_CONNECTION as exc:
            raise DmFailedError(f"no connection to Discord ({exc!r})") from exc
