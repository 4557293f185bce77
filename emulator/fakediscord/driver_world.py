"""Driver part 1: building the world (guilds, channels, roles, members, permissions)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import payloads
from . import permissions as perm
from .intents import GUILD_MEMBERS, GUILDS
from .jsonutil import dumps
from .state import CATEGORY, TEXT, Channel, Guild, Member, Message, Overwrite, Role, User, World

if TYPE_CHECKING:
    from .server import DiscordEmulator

JSON = dict[str, Any]


class WorldBuilding:
    """Create and change entities; when a bot is connected, it gets the matching events."""

    server: DiscordEmulator
    world: World

    @property
    def bot_user(self) -> User:
        return self.world.bot

    @property
    def application_id(self) -> int:
        return self.world.application_id

    def create_user(
        self,
        username: str,
        *,
        global_name: str | None = None,
        bot: bool = False,
        locale: str = "en-US",
    ) -> User:
        """`locale`: the user's client language, e.g. "de" or "pt-BR"."""
        user = User(
            id=self.world.ids.next(),
            username=username,
            global_name=global_name,
            bot=bot,
            locale=locale,
        )
        self.world.users[user.id] = user
        return user

    def set_user_locale(self, user: User, locale: str) -> None:
        """The user switches their Discord client's language."""
        user.locale = locale
        self.world.touch()

    def set_guild_locale(self, guild: Guild, locale: str) -> None:
        """A Community server's preferred locale (its `guild_locale` in interactions)."""
        guild.locale = locale
        self.world.touch()

    def create_guild(
        self,
        name: str = "Study Group",
        *,
        owner: User | str | None = None,
        everyone_permissions: int = perm.DEFAULT_EVERYONE,
        bot_permissions: int = perm.DEFAULT_BOT,
        with_bot: bool = True,
    ) -> Guild:
        """A guild with @everyone, an owner member and (by default) the bot with its own role."""
        world = self.world
        owner_user = self._user(owner or f"{name.lower().replace(' ', '_')}_owner")
        guild = Guild(id=world.ids.next(), name=name, owner_id=owner_user.id)
        guild.roles[guild.id] = Role(
            id=guild.id, guild_id=guild.id, name="@everyone", permissions=everyone_permissions
        )
        guild.members[owner_user.id] = Member(user=owner_user, guild_id=guild.id)
        world.guilds[guild.id] = guild
        if with_bot:
            self.add_bot(guild, permissions=bot_permissions)
        else:
            world.touch()
        return guild

    def add_bot(self, guild: Guild, *, permissions: int = perm.DEFAULT_BOT) -> Member:
        """The bot joins `guild` (made `with_bot=False`, or left with `remove_bot`), with its
        managed role: a running bot gets GUILD_CREATE as a join (discord.py's on_guild_join)."""
        world = self.world
        assert world.bot.id not in guild.members, "the bot is already in this guild"
        bot_role = Role(
            id=world.ids.next(),
            guild_id=guild.id,
            name=world.bot.username,
            permissions=permissions,
            position=1,
            managed=True,
            bot_id=world.bot.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.bot_role_id = bot_role.id
        member = guild.members[world.bot.id] = Member(
            user=world.bot, guild_id=guild.id, role_ids=[bot_role.id]
        )
        world.touch()
        self._dispatch_guild_create(guild)
        return member

    def remove_bot(self, guild: Guild) -> None:
        """The bot is kicked (or the server deleted): GUILD_DELETE without `unavailable`
        (discord.py's on_guild_remove); its managed role goes with it."""
        world = self.world
        assert world.bot.id in guild.members, "the bot is not in this guild"
        del guild.members[world.bot.id]
        if guild.bot_role_id is not None:
            guild.roles.pop(guild.bot_role_id, None)
            guild.bot_role_id = None
        world.touch()
        data = dumps({"id": str(guild.id)})
        for session in self.server.gateway.active:
            if session.owns_guild(guild.id):
                session.dispatch("GUILD_DELETE", data)

    def set_system_channel(self, guild: Guild, channel: Channel | None) -> None:
        """Where Discord posts its join notices (None: the owner turned them off)."""
        guild.system_channel_id = channel.id if channel is not None else None
        self.world.touch()
        data = payloads.guild_create(guild, self.world, intents=0)
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            data.pop(key, None)  # GUILD_UPDATE carries the guild's own fields only
        self._guild_event(guild, "GUILD_UPDATE", data)

    def create_text_channel(
        self,
        guild: Guild,
        name: str,
        *,
        topic: str | None = None,
        category: Channel | None = None,
        position: int | None = None,
    ) -> Channel:
        return self._create_channel(
            guild, name, TEXT, topic=topic, category=category, position=position
        )

    def create_category(self, guild: Guild, name: str) -> Channel:
        return self._create_channel(guild, name, CATEGORY)

    def create_role(
        self,
        guild: Guild,
        name: str,
        *,
        permissions: int = 0,
        position: int | None = None,
        mentionable: bool = False,
    ) -> Role:
        role = Role(
            id=self.world.ids.next(),
            guild_id=guild.id,
            name=name,
            permissions=permissions,
            position=position if position is not None else len(guild.roles),
            mentionable=mentionable,
        )
        guild.roles[role.id] = role
        self.world.touch()
        self._guild_event(
            guild, "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": payloads.role(role)}
        )
        return role

    def add_member(
        self,
        guild: Guild,
        user: User | str,
        *,
        roles: Iterable[Role] = (),
        nick: str | None = None,
    ) -> Member:
        """Add a user (created on the fly from a name) to the guild with the given roles."""
        u = self._user(user)
        member = Member(user=u, guild_id=guild.id, role_ids=[r.id for r in roles], nick=nick)
        guild.members[u.id] = member
        self.world.touch()
        data = payloads.member(member)
        data["guild_id"] = str(guild.id)
        self._guild_event(guild, "GUILD_MEMBER_ADD", data, GUILD_MEMBERS)
        return member

    def set_member_roles(self, member: Member, roles: Sequence[Role]) -> None:
        member.role_ids = [r.id for r in roles]
        self.world.touch()
        guild = self.world.guilds[member.guild_id]
        data = payloads.member(member)
        data["guild_id"] = str(guild.id)
        self._guild_event(guild, "GUILD_MEMBER_UPDATE", data, GUILD_MEMBERS)

    def set_permissions(
        self,
        channel: Channel,
        target: Role | Member | User | Guild,
        *,
        allow: int = 0,
        deny: int = 0,
    ) -> None:
        """Set a channel overwrite for a role, a member, or @everyone (pass the Guild)."""
        # @everyone's overwrite is a role overwrite whose id is the guild id.
        kind = perm.ROLE_OVERWRITE if isinstance(target, Role | Guild) else perm.MEMBER_OVERWRITE
        ow = Overwrite(id=target.id, type=kind, allow=allow, deny=deny)
        if allow or deny:
            channel.overwrites[ow.id] = ow
        else:
            channel.overwrites.pop(ow.id, None)
        self._channel_changed(channel)

    def deny_bot(self, channel: Channel, permissions: int) -> None:
        """Deny the bot e.g. perm.SEND_MESSAGES | perm.EMBED_LINKS in one channel."""
        existing = channel.overwrites.get(self.world.bot.id)
        allow = existing.allow & ~permissions if existing else 0
        deny = (existing.deny if existing else 0) | permissions
        self.set_permissions(channel, self.world.bot, allow=allow, deny=deny)

    def delete_channel(self, channel: Channel) -> None:
        channel.deleted = True
        self.world.touch()
        guild = self.world.guild_of(channel)
        if guild is not None:
            event = "THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE"
            self._guild_event(guild, event, payloads.channel(channel, self.world), GUILDS)

    def add_bot_message(
        self,
        channel: Channel,
        content: str = "",
        *,
        embeds: list[JSON] | None = None,
        components: list[JSON] | None = None,
    ) -> Message:
        """Seed a message the bot 'posted earlier' (e.g. a panel with buttons) without REST."""
        fields: JSON = {"content": content, "embeds": embeds or [], "components": components or []}
        return self.server.messages.create(channel, self.world.bot, fields)

    def post_user_message(self, channel: Channel, author: Member | User, content: str) -> Message:
        """A user writes in a channel; the bot gets MESSAGE_CREATE (blank without the intent)."""
        user = author.user if isinstance(author, Member) else author
        return self.server.messages.create(channel, user, {"content": content})

    # ---- internals -------------------------------------------------------------------------

    def _user(self, user: User | str) -> User:
        if isinstance(user, User):
            self.world.users.setdefault(user.id, user)
            return user
        return self.create_user(user)

    def _create_channel(
        self,
        guild: Guild,
        name: str,
        ctype: int,
        *,
        topic: str | None = None,
        category: Channel | None = None,
        position: int | None = None,
    ) -> Channel:
        channel = Channel(
            id=self.world.ids.next(),
            type=ctype,
            name=name,
            guild_id=guild.id,
            position=position if position is not None else len(guild.channels),
            parent_id=category.id if category else None,
            topic=topic,
        )
        guild.channels[channel.id] = channel
        self.world.channels[channel.id] = channel
        self.world.touch()
        self._guild_event(guild, "CHANNEL_CREATE", payloads.channel(channel, self.world), GUILDS)
        return channel

    def _channel_changed(self, channel: Channel) -> None:
        self.world.touch()
        guild = self.world.guild_of(channel)
        if guild is not None:
            event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
            self._guild_event(guild, event, payloads.channel(channel, self.world), GUILDS)

    def _guild_event(self, guild: Guild, event: str, data: JSON, intent: int = GUILDS) -> None:
        if self.world.bot.id in guild.members:
            self.server.gateway.dispatch_guild(guild.id, event, data, intent)

    def _dispatch_guild_create(self, guild: Guild) -> None:
        gateway = self.server.gateway
        for session in gateway.active:
            if session.owns_guild(guild.id):
                data = payloads.guild_create(
                    guild, self.world, intents=session.intents, joined=True
                )
                session.dispatch("GUILD_CREATE", dumps(data))
