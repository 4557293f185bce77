"""The welcome the bot posts once when it joins a server: where it goes and what it says.

discord.py reports a join as `on_guild_join`, never the servers of a start or a reconnect;
the database's `guild_welcome` row, claimed before the send, keeps a server that removes the
bot and adds it back from a second welcome (until the server's data is deleted).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.discord_ui.clicks import NO_CONNECTION
from bot.i18n import N_, _, speaking
from bot.quiz.errors import StoreAction, StoreError
from bot.store import welcome

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

WELCOME = N_(
    "👋 **Hello! I'm a quiz tutor.** I post short tasks; whoever answers gets private "
    "feedback, hints and a worked solution.\n"
    "• `/quiz` posts a task in this channel: answer with its buttons.\n"
    "• `/practice` and `/review` are private practice, and bring back what you missed.\n"
    "• `/help` lists every command you may use.\n"
    "Moderators (Manage Server): `/schedule add` posts a daily quiz at a set time, and "
    "`/config show` shows this server's settings."
)


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The system channel if the bot may write there, else the first text channel it may
    write in, in the order members see them (channels outside categories first)."""
    me = guild.me
    if me is None:  # GUILD_CREATE always lists the bot itself; not knowing it, write nowhere
        return None
    system = guild.system_channel
    candidates = [system] if system is not None else []
    for _category, channels in guild.by_category():
        candidates += [c for c in channels if isinstance(c, discord.TextChannel)]
    for channel in candidates:
        if channel.permissions_for(me).send_messages:
            return channel
    return None


async def welcome_guild(bot: QuizBot, guild: discord.Guild) -> discord.Message | None:
    """Welcome `guild` once: the message, or None (logged: where it failed, or why not)."""
    channel = welcome_channel(guild)
    if channel is None:
        log.info("joined server %s: no channel the bot may write in, so no welcome", guild.id)
        return None
    service = bot.service
    try:
        language = await bot.languages.public_locale(guild.id)  # the server's: it is public
        first = await service.run_write(
            StoreAction.WRITE, welcome.claim_welcome, guild.id, service.clock()
        )
    except StoreError as exc:
        log.warning("joined server %s: no welcome, the database refused (%s)", guild.id, exc.fault)
        return None
    if not first:
        log.info("joined server %s again: it was welcomed before", guild.id)
        return None
    with speaking(language):
        text = _(WELCOME)
    try:
        message = await channel.send(text, allowed_mentions=discord.AllowedMentions.none())
    except discord.HTTPException as exc:
        log.warning("could not welcome server %s in channel %s: %s", guild.id, channel.id, exc)
        return None
    except NO_CONNECTION as exc:
        log.warning("could not welcome server %s: no connection to Discord (%r)", guild.id, exc)
        return None
    log.info("joined server %s: welcomed it in channel %s", guild.id, channel.id)
    return message


class WelcomeCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await welcome_guild(self.bot, guild)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(WelcomeCog(bot))
