"""The emulated world: users, guilds, roles, members, channels, stored messages."""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from . import permissions as perm
from .notify import Notifier
from .snowflake import SnowflakeGenerator, iso_now

TEXT = 0
DM = 1
CATEGORY = 4
ANNOUNCEMENT_THREAD = 10
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD})

Message = dict[str, Any]


@dataclass(slots=True, eq=False)
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    locale: str = "en-US"
    """The language of the user's Discord client: their interactions' `locale`."""


@dataclass(slots=True, eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None
    hoist: bool = False
    mentionable: bool = False
    color: int = 0


@dataclass(slots=True)
class Overwrite:
    id: int
    type: int  # permissions.ROLE_OVERWRITE or permissions.MEMBER_OVERWRITE
    allow: int = 0
    deny: int = 0


@dataclass(slots=True, eq=False)
class Member:
    user: User
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    joined_at: str = field(default_factory=iso_now)
    nick: str | None = None

    @property
    def id(self) -> int:
        return self.user.id


@dataclass(slots=True, eq=False)
class Channel:
    id: int
    type: int
    name: str
    guild_id: int | None
    position: int = 0
    parent_id: int | None = None
    topic: str | None = None
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    # Public messages only, in creation order (ids are increasing snowflakes).
    messages: dict[int, Message] = field(default_factory=dict)
    last_message_id: int | None = None
    deleted: bool = False
    # Thread-only fields.
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    created_at: str = field(default_factory=iso_now)
    member_ids: set[int] = field(default_factory=set)
    total_message_sent: int = 0
    # DM-only.
    recipient_ids: list[int] = field(default_factory=list)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES


@dataclass(slots=True, eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict)
    channels: dict[int, Channel] = field(default_factory=dict)
    members: dict[int, Member] = field(default_factory=dict)
    bot_role_id: int | None = None
    joined_at: str = field(default_factory=iso_now)
    locale: str = "en-US"
    # Where Discord posts join notices; a server's owner may unset it.
    system_channel_id: int | None = None


@dataclass(slots=True)
class Attachment:
    id: int
    filename: str
    content_type: str | None
    data: bytes


class World:
    """All emulated entities plus id allocation and a change notifier for waiters."""

    def __init__(self, *, token: str, bot_name: str, ephemeral_per_user: int) -> None:
        self.ids = SnowflakeGenerator()
        self.token = token
        self.bot = User(id=self.ids.next(), username=bot_name, bot=True)
        # Modern applications share their id with their bot user.
        self.application_id = self.bot.id
        self.users: dict[int, User] = {self.bot.id: self.bot}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.ephemeral: dict[int, Message] = {}
        self.ephemeral_by_user: dict[int, deque[Message]] = {}
        self.ephemeral_per_user = ephemeral_per_user
        self.attachments: dict[int, Attachment] = {}
        # The emulator's base URL (set when it starts): its CDN serves `attachments` there.
        self.attachment_base = ""
        self.deleted_messages: set[int] = set()
        # Every text the bot shows, in order, once a test asks (`Driver.record_what_the_bot_says`);
        # off by default: the load benchmarks send far too many messages to keep.
        self.transcript: list[dict[str, Any]] | None = None
        # Bumped on every permission-relevant change so cached interaction context is reused
        # between clicks but never stale.
        self.version = 0
        self.changed = Notifier()

    def touch(self) -> None:
        self.version += 1
        self.changed.notify()

    # Lookups that raise nothing: REST handlers turn None into the right Discord error.

    def live_channel(self, channel_id: int) -> Channel | None:
        channel = self.channels.get(channel_id)
        if channel is None or channel.deleted:
            return None
        return channel

    def guild_of(self, channel: Channel) -> Guild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id is not None else None

    def bot_permissions(self, channel: Channel) -> int:
        guild = self.guild_of(channel)
        if guild is None:
            # DMs: everything a DM allows, which is all the message permissions.
            return perm.ALL & ~perm.ADMINISTRATOR
        if self.bot.id not in guild.members:
            return 0  # removed from the server: Discord answers Missing Access
        return perm.channel_permissions(guild, channel, self.bot.id)

    def member_permissions(self, channel: Channel, user_id: int) -> int:
        guild = self.guild_of(channel)
        if guild is None:
            return perm.ALL & ~perm.ADMINISTRATOR
        return perm.channel_permissions(guild, channel, user_id)

    def store_ephemeral(self, user_id: int, message: Message) -> None:
        per_user = self.ephemeral_by_user.get(user_id)
        if per_user is None:
            per_user = self.ephemeral_by_user[user_id] = deque(maxlen=self.ephemeral_per_user)
        if len(per_user) == per_user.maxlen:
            self.ephemeral.pop(int(per_user[0]["id"]), None)
        per_user.append(message)
        self.ephemeral[int(message["id"])] = message

    def note_said(self, shown: dict[str, Any]) -> None:
        """Keep a copy of what the bot just showed (a message body, a modal, autocomplete
        choices), if a test is recording."""
        if self.transcript is not None:
            self.transcript.append(copy.deepcopy(shown))
