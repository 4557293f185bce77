"""Driver part 3: observing the bot (messages, commands, sessions) and disrupting the gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .commands import as_seen
from .interactions import InteractionRecord
from .state import Channel, Guild, Member, Message, User, World

if TYPE_CHECKING:
    from .server import DiscordEmulator

JSON = dict[str, Any]
MessagePredicate = Callable[[Message], bool]


class Observing:
    server: DiscordEmulator
    world: World

    # ---- messages --------------------------------------------------------------------------

    def channel_messages(self, channel: Channel) -> list[Message]:
        """Public messages in a channel, oldest first (ephemeral ones are never here)."""
        return list(channel.messages.values())

    def ephemeral_messages(self, user: Member | User) -> list[Message]:
        """Ephemeral messages only `user` could see, oldest first."""
        return list(self.world.ephemeral_by_user.get(user.id, ()))

    def record_what_the_bot_says(self) -> list[JSON]:
        """From now on, a copy of everything the bot shows, in order: each message it sends or
        edits (`content`, `embeds`, `components`), each modal (`{"modal": data}`) and each
        autocomplete answer (`{"choices": [...]}`), ephemeral ones and DMs included."""
        if self.world.transcript is None:
            self.world.transcript = []
        return self.world.transcript

    def get_message(self, message_id: int | str) -> Message | None:
        mid = int(message_id)
        if mid in self.world.deleted_messages:
            return None
        return self.world.messages.get(mid) or self.world.ephemeral.get(mid)

    def is_ephemeral(self, message: Message) -> bool:
        return int(message["id"]) in self.world.ephemeral

    def attachment_bytes(self, attachment: JSON) -> bytes:
        return self.world.attachments[int(attachment["id"])].data

    async def wait_for_message(
        self,
        channel: Channel,
        predicate: MessagePredicate | None = None,
        *,
        after: Message | int | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> Message:
        """First public message in `channel` (newer than `after`) matching `predicate`.

        Existing messages count, so a post that landed before the call is not missed.
        """
        floor = int(after["id"]) if isinstance(after, dict) else int(after or 0)

        def find() -> Message | None:
            for mid, msg in channel.messages.items():
                if mid > floor and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.world.changed.wait_for(find, timeout, f"a message in #{channel.name}")

    async def wait_for_edit(
        self,
        message: Message,
        predicate: MessagePredicate | None = None,
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> Message:
        """Wait until `message` is edited after this call (and matches `predicate`)."""
        baseline = message.get("edited_timestamp")

        def check() -> Message | None:
            edited = message.get("edited_timestamp")
            if edited is None or edited == baseline:
                return None
            return message if predicate is None or predicate(message) else None

        return await self.world.changed.wait_for(
            check, timeout, f"an edit of message {message['id']}"
        )

    async def wait_for_ephemeral(
        self,
        user: Member | User,
        predicate: MessagePredicate | None = None,
        *,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> Message:
        def find() -> Message | None:
            for msg in self.world.ephemeral_by_user.get(user.id, ()):
                if predicate is None or predicate(msg):
                    return msg
            return None

        return await self.world.changed.wait_for(
            find, timeout, f"an ephemeral message for {user.id}"
        )

    # ---- commands --------------------------------------------------------------------------

    def commands(self, guild: Guild | None = None) -> list[JSON]:
        """Registered commands: global when `guild` is None, else that guild's own."""
        return self.server.commands.in_scope(guild.id if guild else None)

    def commands_as_seen(self, user: User, guild: Guild | None = None) -> list[JSON]:
        """The commands as `user`'s client shows them, in its language (`User.locale`)."""
        return [as_seen(command, user.locale) for command in self.commands(guild)]

    async def wait_for_commands(
        self,
        guild: Guild | None = None,
        *,
        names: set[str] | None = None,
        timeout: float = 10.0,  # noqa: ASYNC109
    ) -> list[JSON]:
        """Wait until the scope has commands (all of `names`, if given), e.g. after tree.sync()."""

        def check() -> list[JSON] | None:
            cmds = self.commands(guild)
            have = {c["name"] for c in cmds}
            if names is not None and not names <= have:
                return None
            return cmds or None

        scope = f"guild {guild.name!r}" if guild else "global scope"
        return await self.world.changed.wait_for(
            check, timeout, f"commands {names or ''} in {scope}"
        )

    # ---- interactions ----------------------------------------------------------------------

    @property
    def interactions(self) -> list[InteractionRecord]:
        """Retained interaction records, oldest first."""
        return list(self.server.interactions.by_id.values())

    @property
    def late_callbacks(self) -> int:
        """Initial responses that arrived after Discord's 3 s deadline (and got 10062)."""
        return self.server.interactions.late_callbacks

    # ---- gateway ---------------------------------------------------------------------------

    @property
    def identify_count(self) -> int:
        return self.server.gateway.identify_count

    @property
    def resume_count(self) -> int:
        return self.server.gateway.resume_count

    @property
    def session_count(self) -> int:
        """Sessions that receive dispatches (connected, or disconnected but resumable)."""
        return len(self.server.gateway.active)

    @property
    def connected_session_count(self) -> int:
        return sum(1 for s in self.server.gateway.active if s.conn is not None)

    async def wait_for_ready(self, timeout: float = 15.0) -> None:  # noqa: ASYNC109
        """A session identified and READY plus every GUILD_CREATE were written to its socket.

        discord.py's own on_ready fires ~2 s later (guild_ready_timeout); interactions work
        before that, since the guilds are already in its cache.
        """

        def ready() -> bool:
            return any(s.ready and s.conn is not None for s in self.server.gateway.active)

        await self.world.changed.wait_for(
            ready, timeout, "a bot session to identify and get its guilds"
        )

    async def wait_for_identify(self, count: int = 1, timeout: float = 15.0) -> None:  # noqa: ASYNC109
        await self.world.changed.wait_for(
            lambda: self.identify_count >= count, timeout, f"{count} IDENTIFY(s)"
        )

    async def wait_for_resume(self, count: int = 1, timeout: float = 15.0) -> None:  # noqa: ASYNC109
        await self.world.changed.wait_for(
            lambda: self.resume_count >= count, timeout, f"{count} RESUME(s)"
        )

    def request_reconnect(self) -> int:
        """Send op 7 RECONNECT to connected sessions; events meanwhile are held for replay."""
        return self.server.gateway.request_reconnect()

    async def force_reconnect(self, timeout: float = 15.0) -> None:  # noqa: ASYNC109
        """op 7, then wait until the bot has RESUMEd (missed events replayed)."""
        target = self.resume_count + self.request_reconnect()
        await self.wait_for_resume(target, timeout)

    def drop_connection(self, code: int = 4000) -> int:
        """Close the sockets abruptly with `code` (4000 = resumable, like a network blip)."""
        return self.server.gateway.drop_connections(code)

    def invalidate_session(self) -> int:
        """op 9 (not resumable): the bot must IDENTIFY again."""
        return self.server.gateway.invalidate_sessions()
