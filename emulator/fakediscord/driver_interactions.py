"""Driver part 2: sending interactions (slash, autocomplete, context menus, components, modals)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import interaction_payloads as ip
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    InteractionRecord,
)
from .jsonutil import dumps
from .state import Channel, Member, Message, User, World

if TYPE_CHECKING:
    from .server import DiscordEmulator

JSON = dict[str, Any]
Who = Member | User


class InteractionSending:
    server: DiscordEmulator
    world: World
    _contexts: ip.ContextCache

    def slash(
        self,
        command: str,
        *,
        user: Who,
        channel: Channel,
        options: Mapping[str, Any] | None = None,
        member_permissions: int | None = None,
        app_permissions: int | None = None,
    ) -> InteractionRecord:
        """Invoke `/command [group] [sub]` with options typed from the registered schema.

        Values: str/int/float/bool, or Member/User/Channel/Role (or ids) for entity options,
        which also fills `data.resolved`. Raises ValueError for anything the Discord client
        would not let a user send (unknown command or option, missing required, bad choice).
        """
        channel_user = ip.guild_member(self.world, channel, user)
        root, *path = command.split()
        cmd = self._registered(root, channel, 1)
        resolver = ip.Resolver(self.world, channel, channel_user.id)
        data = self._command_data(cmd)
        opts = ip.chat_input_options(cmd, path, options or {}, resolver)
        if opts:
            data["options"] = opts
        if resolver.resolved:
            data["resolved"] = resolver.resolved
        return self._dispatch(
            APPLICATION_COMMAND,
            channel,
            channel_user,
            data,
            command_name=command,
            member_permissions=member_permissions,
            app_permissions=app_permissions,
        )

    def upload(
        self,
        command: str,
        *,
        user: Who,
        channel: Channel,
        filename: str,
        data: bytes,
        option: str = "file",
        content_type: str | None = "text/plain",
        size: int | None = None,
        options: Mapping[str, Any] | None = None,
        member_permissions: int | None = None,
    ) -> InteractionRecord:
        """`/command` with a file in its attachment option, e.g. `/bank upload`: the payload
        carries it in `data.resolved.attachments` and the emulator's CDN serves its bytes at
        the attachment's `url`. `size` announces another size than the data's (forged)."""
        attachment: dict[str, Any] = {
            "filename": filename,
            "data": data,
            "content_type": content_type,
        }
        if size is not None:
            attachment["size"] = size
        return self.slash(
            command,
            user=user,
            channel=channel,
            options={**(options or {}), option: attachment},
            member_permissions=member_permissions,
        )

    def autocomplete(
        self,
        command: str,
        *,
        user: Who,
        channel: Channel,
        focused: str,
        value: str,
        options: Mapping[str, Any] | None = None,
    ) -> InteractionRecord:
        """The user is typing `value` into option `focused`; answer with choices (type 8)."""
        channel_user = ip.guild_member(self.world, channel, user)
        root, *path = command.split()
        cmd = self._registered(root, channel, 1)
        resolver = ip.Resolver(self.world, channel, channel_user.id)
        values = dict(options or {})
        values[focused] = value
        data = self._command_data(cmd)
        data["options"] = ip.chat_input_options(cmd, path, values, resolver, focused=focused)
        if resolver.resolved:
            data["resolved"] = resolver.resolved
        return self._dispatch(AUTOCOMPLETE, channel, channel_user, data, command_name=command)

    def user_command(
        self, name: str, target: Who, *, user: Who, channel: Channel
    ) -> InteractionRecord:
        """Right-click a user > Apps > `name`."""
        channel_user = ip.guild_member(self.world, channel, user)
        cmd = self._registered(name, channel, 2)
        resolver = ip.Resolver(self.world, channel, channel_user.id)
        data = self._command_data(cmd)
        data["target_id"] = resolver.user(target)
        data["resolved"] = resolver.resolved
        return self._dispatch(APPLICATION_COMMAND, channel, channel_user, data, command_name=name)

    def message_command(
        self, name: str, target: Message, *, user: Who, channel: Channel
    ) -> InteractionRecord:
        """Right-click a message > Apps > `name`."""
        channel_user = ip.guild_member(self.world, channel, user)
        cmd = self._registered(name, channel, 3)
        data = self._command_data(cmd)
        data["target_id"] = target["id"]
        data["resolved"] = {"messages": {target["id"]: target}}
        return self._dispatch(APPLICATION_COMMAND, channel, channel_user, data, command_name=name)

    def click_button(
        self, message: Message | int, custom_id: str, *, user: Who
    ) -> InteractionRecord:
        """Click the button `custom_id` on a stored message (public, or the user's ephemeral)."""
        return self._component(message, custom_id, None, user)

    def select(
        self, message: Message | int, custom_id: str, values: Sequence[Any], *, user: Who
    ) -> InteractionRecord:
        """Pick `values` in a select menu (option values, or entities for user/role/channel)."""
        return self._component(message, custom_id, values, user)

    def submit_modal(
        self,
        opened_by: InteractionRecord,
        values: Mapping[str, Any],
        *,
        user: Who | None = None,
    ) -> InteractionRecord:
        """Fill in and submit the modal the bot answered `opened_by` with (callback type 9)."""
        if opened_by.response_type != 9:
            raise ValueError(f"interaction {opened_by.id} was not answered with a modal")
        modal = opened_by.response_data
        channel = self._channel(opened_by.channel_id)
        who = user or self.world.users[opened_by.user_id]
        channel_user = ip.guild_member(self.world, channel, who)
        data = {
            "custom_id": modal["custom_id"],
            "components": ip.modal_components(modal, values),
        }
        message = None
        if opened_by.source_message_id is not None:
            message = self._message(opened_by.source_message_id)
        return self._dispatch(
            MODAL_SUBMIT,
            channel,
            channel_user,
            data,
            message=message,
            source_message_id=opened_by.source_message_id,
        )

    def send_raw_interaction(self, payload: JSON) -> InteractionRecord:
        """Escape hatch: dispatch a hand-made payload (id/token are filled in if missing)."""
        payload = dict(payload)
        iid = int(payload.setdefault("id", str(self.world.ids.next())))
        token = payload.setdefault("token", _token())
        channel_id = int(payload.get("channel_id") or payload.get("channel", {}).get("id") or 0)
        user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
        record = InteractionRecord(
            interaction_id=iid,
            token=token,
            interaction_type=int(payload["type"]),
            guild_id=int(payload["guild_id"]) if payload.get("guild_id") else None,
            channel_id=channel_id,
            user_id=int(user.get("id", 0)),
            payload=payload,
            source_message_id=int(payload["message"]["id"]) if payload.get("message") else None,
        )
        return self._send(record, dumps(payload))

    # ---- internals -------------------------------------------------------------------------

    def _component(
        self, message: Message | int, custom_id: str, values: Sequence[Any] | None, user: Who
    ) -> InteractionRecord:
        msg = self._message(message)
        channel = self._channel(int(msg["channel_id"]))
        channel_user = ip.guild_member(self.world, channel, user)
        owner = ip.message_owner(self.world, msg)
        if owner is not None and owner != channel_user.id:
            raise ValueError("only the user an ephemeral message was sent to can click it")
        component = ip.find_component(msg.get("components") or [], custom_id)
        if component is None:
            raise ValueError(f"message {msg['id']} has no component with custom_id {custom_id!r}")
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled; Discord would not send a click")
        resolver = ip.Resolver(self.world, channel, channel_user.id)
        data = ip.component_data(component, values, resolver)
        return self._dispatch(
            MESSAGE_COMPONENT,
            channel,
            channel_user,
            data,
            message=msg,
            source_message_id=int(msg["id"]),
        )

    def _dispatch(
        self,
        itype: int,
        channel: Channel,
        user: User,
        data: JSON,
        *,
        message: Message | None = None,
        source_message_id: int | None = None,
        command_name: str | None = None,
        member_permissions: int | None = None,
        app_permissions: int | None = None,
    ) -> InteractionRecord:
        iid = self.world.ids.next()
        token = _token()
        ctx = self._contexts.get(channel, user)
        payload: JSON = {"id": str(iid), "type": itype, "token": token, "data": data}
        payload.update(ctx.data)
        if message is not None:
            payload["message"] = message
        if member_permissions is None and app_permissions is None:
            # Hot path: splice the cached context and message JSON around the small parts.
            parts = [
                f'{{"id":"{iid}","type":{itype},"token":"{token}","data":{dumps(data)},',
                ctx.json_fields,
            ]
            if message is not None:
                parts += [',"message":', self.server.messages.json_of(message)]
            parts.append("}")
            text = "".join(parts)
        else:
            if member_permissions is not None:
                member = dict(payload["member"])
                member["permissions"] = str(member_permissions)
                payload["member"] = member
            if app_permissions is not None:
                payload["app_permissions"] = str(app_permissions)
            text = dumps(payload)
        record = InteractionRecord(
            interaction_id=iid,
            token=token,
            interaction_type=itype,
            guild_id=channel.guild_id,
            channel_id=channel.id,
            user_id=user.id,
            payload=payload,
            source_message_id=source_message_id,
            command_name=command_name,
        )
        return self._send(record, text)

    def _send(self, record: InteractionRecord, payload_json: str) -> InteractionRecord:
        gateway = self.server.gateway
        if not gateway.active:
            raise RuntimeError("no bot session has identified with the emulator yet")
        self.server.interactions.add(record)
        record.dispatched_at = time.monotonic()
        if not gateway.dispatch_routed("INTERACTION_CREATE", payload_json, record.guild_id):
            raise RuntimeError(f"no bot session runs the shard of guild {record.guild_id}")
        return record

    def _registered(self, name: str, channel: Channel, command_type: int) -> JSON:
        cmd = self.server.commands.find(name, channel.guild_id, command_type)
        if cmd is None:
            known = sorted(
                c["name"]
                for c in self.server.commands.in_scope(channel.guild_id)
                + self.server.commands.in_scope()
            )
            raise ValueError(
                f"no registered command {name!r} (type {command_type}) for this guild; "
                f"registered: {known}. Did the bot sync its command tree?"
            )
        return cmd

    @staticmethod
    def _command_data(cmd: JSON) -> JSON:
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": cmd["type"]}
        if "guild_id" in cmd:
            data["guild_id"] = cmd["guild_id"]
        return data

    def _message(self, message: Message | int) -> Message:
        mid = int(message["id"]) if isinstance(message, dict) else int(message)
        world = self.world
        msg = world.messages.get(mid) or world.ephemeral.get(mid)
        if msg is None or mid in world.deleted_messages:
            raise ValueError(f"message {mid} does not exist (deleted, or never stored)")
        return msg

    def _channel(self, channel_id: int) -> Channel:
        channel = self.world.live_channel(channel_id)
        if channel is None:
            raise ValueError(f"channel {channel_id} does not exist")
        return channel


def _token() -> str:
    # Real tokens are long opaque strings; uniqueness is what the emulator relies on.
    return "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(24)
