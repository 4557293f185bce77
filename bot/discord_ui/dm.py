"""The reminder pass's `DirectMessages` over discord.py: look the member up, open the DM, send.

When and to whom is bot/schedule/reminders.py's; this sorts Discord's refusals: member or bot
gone from the server (`MemberGoneError`: the reminder goes off quietly), closed DMs
(`DmsClosedError`: off, and said on the next /review), anything else (`DmFailedError`: logged,
not retried that day). The member is looked up by REST first: with default intents the bot is
never told that a member left, and the server may not be in this process's cache. A DM has no
interaction, so no member's language: it speaks the server's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.discord_ui.clicks import NO_CONNECTION, outgoing
from bot.i18n import speaking
from bot.schedule.reminders import DmFailedError, DmsClosedError, MemberGoneError, reminder_text

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

MISSING_ACCESS = 50001
"""A lookup in a server the bot is not in, before 2023 (now 404 Unknown Guild)."""
CANNOT_DM = 50007
""""Cannot send messages to this user": privacy settings, a block, or no server shared."""


def _failed(exc: Exception) -> DmFailedError:
    if isinstance(exc, discord.HTTPException):
        return DmFailedError(f"Discord error {exc.status}: {exc.text}")
    return DmFailedError(f"no connection to Discord ({exc!r})")


class DiscordDirectMessages:
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        try:
            guild = self.bot.get_guild(guild_id) or await self.bot.fetch_guild(guild_id)
            await guild.fetch_member(user_id)
        except discord.HTTPException as exc:
            if isinstance(exc, discord.NotFound) or exc.code == MISSING_ACCESS:
                raise MemberGoneError(exc.text) from exc
            raise _failed(exc) from exc
        except NO_CONNECTION as exc:
            raise _failed(exc) from exc
        with speaking(await self.bot.languages.public_locale(guild_id)):
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
        except (discord.HTTPException, *NO_CONNECTION) as exc:
            raise _failed(exc) from exc
