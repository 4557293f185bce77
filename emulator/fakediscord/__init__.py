"""fakediscord: a Discord API v10 + gateway emulator that real discord.py bots connect to.

    async with DiscordEmulator() as discord:
        d = discord.driver
        guild = d.create_guild("Study Group")
        channel = d.create_text_channel(guild, "general")
        alice = d.add_member(guild, "alice")
        bot = BotProcess.for_emulator(discord, "bot", log_path=...).start()
        await bot.wait_until_ready(d)
        reply = await d.slash("practice start", user=alice, channel=channel).wait_response()

A bot process is pointed at it with DISCORD_TOKEN and DISCORD_API_BASE (`bot_env()`).
"""

from . import permissions
from .driver import Driver
from .interactions import InteractionRecord
from .process import BotProcess
from .server import DEFAULT_TOKEN, DiscordEmulator, UnknownRoute
from .state import Channel, Guild, Member, Message, Role, User

__all__ = [
    "DEFAULT_TOKEN",
    "BotProcess",
    "Channel",
    "DiscordEmulator",
    "Driver",
    "Guild",
    "InteractionRecord",
    "Member",
    "Message",
    "Role",
    "UnknownRoute",
    "User",
    "permissions",
]
