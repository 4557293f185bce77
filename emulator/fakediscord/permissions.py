"""Permission bits and Discord's permission resolution (base, then channel overwrites)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import Channel, Guild

CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
SEND_TTS_MESSAGES = 1 << 12
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CONNECT = 1 << 20
SPEAK = 1 << 21
CHANGE_NICKNAME = 1 << 26
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
MODERATE_MEMBERS = 1 << 40
SEND_POLLS = 1 << 49

# Same value as discord.Permissions.all() in discord.py 2.7; hard-coded so the emulator
# does not judge the client with the client's own tables.
ALL = 8866461766385663

DEFAULT_EVERYONE = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | USE_EXTERNAL_EMOJIS
    | CONNECT
    | SPEAK
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | SEND_MESSAGES_IN_THREADS
    | SEND_POLLS
)

DEFAULT_BOT = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
    | MANAGE_THREADS
)

# Losing SEND_MESSAGES implicitly strips these too (Discord's documented implicit denial).
_NEEDS_SEND = MENTION_EVERYONE | SEND_TTS_MESSAGES | ATTACH_FILES | EMBED_LINKS

MEMBER_OVERWRITE = 1
ROLE_OVERWRITE = 0


def base_permissions(guild: Guild, user_id: int) -> int:
    if user_id == guild.owner_id:
        return ALL
    member = guild.members.get(user_id)
    perms = guild.roles[guild.id].permissions
    if member is not None:
        for role_id in member.role_ids:
            role = guild.roles.get(role_id)
            if role is not None:
                perms |= role.permissions
    if perms & ADMINISTRATOR:
        return ALL
    return perms


def channel_permissions(guild: Guild, channel: Channel, user_id: int) -> int:
    perms = base_permissions(guild, user_id)
    if perms & ADMINISTRATOR:
        return ALL
    # Threads have no overwrites of their own: they inherit the parent's.
    source = guild.channels.get(channel.parent_id) if channel.is_thread else channel
    if source is not None:
        perms = _apply_overwrites(guild, source, user_id, perms)
    if not perms & VIEW_CHANNEL:
        return 0
    if not perms & SEND_MESSAGES:
        perms &= ~_NEEDS_SEND
    return perms


def _apply_overwrites(guild: Guild, channel: Channel, user_id: int, perms: int) -> int:
    overwrites = channel.overwrites
    if not overwrites:
        return perms
    everyone = overwrites.get(guild.id)
    if everyone is not None:
        perms = (perms & ~everyone.deny) | everyone.allow
    member = guild.members.get(user_id)
    allow = deny = 0
    if member is not None:
        for role_id in member.role_ids:
            ow = overwrites.get(role_id)
            if ow is not None and ow.type == ROLE_OVERWRITE:
                allow |= ow.allow
                deny |= ow.deny
    perms = (perms & ~deny) | allow
    own = overwrites.get(user_id)
    if own is not None and own.type == MEMBER_OVERWRITE:
        perms = (perms & ~own.deny) | own.allow
    return perms
