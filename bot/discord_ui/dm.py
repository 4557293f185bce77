"""The reminder pass's `DirectMessages` over discord.py: open the DM channel and send.

When and to whom is bot/schedule/reminders.py's; this module only talks to Discord and sorts
its refusals: closed DMs (`DmsClosedError`, which turns the member's reminder off) from any
other failure (`DmFailedError`, logged; not retried that day).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.discord_ui.replies import outgoing
from bot.schedule.reminders import DmFailedError, DmsClosedError, reminder_text

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

CANNOT_DM = 50007
"""Discord's error code for "Cannot send messages to this user": the member's DMs are closed
to us (privacy settings, a block, or no server shared any more)."""


class DiscordDirectMessages:
    """`bot.schedule.reminders.DirectMessages` over discord.py."""

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        guild = self.bot.get_guild(guild_id)
        text = reminder_text(due, guild.name if guild is not None else "your server")
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
