"""Channel routes: read channel, post/edit/fetch/delete messages, history, threads."""

from __future__ import annotations

from aiohttp import web

from . import payloads, validation
from . import permissions as perm
from .errors import (
    ApiError,
    cannot_edit_others,
    invalid_form,
    missing_access,
    missing_permissions,
    unknown_channel,
    unknown_message,
)
from .httputil import json_response, no_content, read_json, read_message_body, snowflake
from .intents import GUILDS
from .rest import RouteDef, Services
from .state import PRIVATE_THREAD, PUBLIC_THREAD, Channel, Message

_CHANNEL = "/channels/{channel_id}"
_MESSAGE = _CHANNEL + "/messages/{message_id}"
HAS_THREAD = 1 << 5


class ChannelRoutes:
    def __init__(self, services: Services) -> None:
        self.s = services

    def routes(self) -> list[RouteDef]:
        return [
            RouteDef("GET", _CHANNEL, self.get_channel),
            RouteDef("GET", _CHANNEL + "/messages", self.history),
            RouteDef("POST", _CHANNEL + "/messages", self.create_message),
            RouteDef("GET", _MESSAGE, self.get_message),
            RouteDef("PATCH", _MESSAGE, self.edit_message),
            RouteDef("DELETE", _MESSAGE, self.delete_message),
            RouteDef("POST", _CHANNEL + "/typing", self.typing),
            RouteDef("POST", _MESSAGE + "/threads", self.thread_from_message),
            RouteDef("POST", _CHANNEL + "/threads", self.thread_without_message),
            RouteDef("PUT", _CHANNEL + "/thread-members/@me", self.join_thread),
        ]

    def _channel(self, request: web.Request, need: int = 0) -> Channel:
        """The live channel, after Discord's checks: 10003, then 50001, then 50013."""
        channel = self.s.world.live_channel(snowflake(request, "channel_id"))
        if channel is None:
            raise unknown_channel()
        perms = self.s.world.bot_permissions(channel)
        if not perms & perm.VIEW_CHANNEL:
            raise missing_access()
        if need & ~perms:
            raise missing_permissions()
        return channel

    def _message(self, request: web.Request, channel: Channel) -> Message:
        msg = channel.messages.get(snowflake(request, "message_id"))
        if msg is None:
            raise unknown_message()
        return msg

    async def get_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return json_response(payloads.channel(channel, self.s.world))

    async def history(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if not self.s.world.bot_permissions(channel) & perm.READ_MESSAGE_HISTORY:
            return json_response([])
        query = request.query
        try:
            limit = int(query.get("limit", "50"))
        except ValueError:
            raise invalid_form({"limit": "Must be an integer."}) from None
        if not 1 <= limit <= 100:
            raise invalid_form({"limit": "Must be between 1 and 100."})
        ids = list(channel.messages)
        if "around" in query:
            pivot = int(query["around"])
            older = [i for i in ids if i <= pivot][-((limit + 1) // 2) :]
            newer = [i for i in ids if i > pivot][: limit - len(older)]
            chosen = older + newer
        elif "after" in query:
            after = int(query["after"])
            chosen = [i for i in ids if i > after][:limit]
        else:
            before = int(query["before"]) if "before" in query else None
            eligible = ids if before is None else [i for i in ids if i < before]
            chosen = eligible[-limit:]
        # Discord returns newest first whatever the direction of the query.
        return json_response([channel.messages[i] for i in reversed(chosen)])

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body, files = await read_message_body(request)
        need = perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else perm.SEND_MESSAGES
        if body.get("embeds"):
            need |= perm.EMBED_LINKS
        if files:
            need |= perm.ATTACH_FILES
        if need & ~self.s.world.bot_permissions(channel):
            raise missing_permissions()
        if channel.is_thread and channel.locked:
            raise ApiError(403, 50083, "Thread is archived")
        fields = validation.message_fields(
            body, files=len(files), editing=False, flags_allowed=validation.SENDABLE_FLAGS
        )
        msg = self.s.messages.create(channel, self.s.world.bot, fields, files)
        return json_response(msg)

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request, perm.READ_MESSAGE_HISTORY)
        return json_response(self._message(request, channel))

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._message(request, channel)
        body, files = await read_message_body(request)
        # Only the suppress-embeds flag may be changed on someone else's message.
        if msg["author"]["id"] != str(self.s.world.bot.id) and set(body) - {"flags"}:
            raise cannot_edit_others()
        if body.get("embeds") and not self.s.world.bot_permissions(channel) & perm.EMBED_LINKS:
            raise missing_permissions()
        fields = validation.message_fields(
            body, files=len(files), editing=True, flags_allowed=validation.SENDABLE_FLAGS
        )
        return json_response(self.s.messages.edit(msg, fields, files))

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._message(request, channel)
        is_own = msg["author"]["id"] == str(self.s.world.bot.id)
        if not is_own and not self.s.world.bot_permissions(channel) & perm.MANAGE_MESSAGES:
            raise missing_permissions()
        self.s.messages.delete(msg)
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request, perm.SEND_MESSAGES)
        return no_content()

    async def thread_from_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request, perm.CREATE_PUBLIC_THREADS)
        msg = self._message(request, channel)
        if channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        if int(msg["id"]) in self.s.world.channels:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        body = await read_json(request)
        # A thread started from a message shares the message's id.
        thread = self._new_thread(channel, int(msg["id"]), body, PUBLIC_THREAD)
        msg["thread"] = payloads.channel(thread, self.s.world)
        msg["flags"] = msg["flags"] | HAS_THREAD
        self.s.messages.touched(msg)
        return json_response(payloads.channel(thread, self.s.world), status=201)

    async def thread_without_message(self, request: web.Request) -> web.Response:
        body = await read_json(request)
        thread_type = int(body.get("type") or PRIVATE_THREAD)
        if thread_type not in (PUBLIC_THREAD, PRIVATE_THREAD):
            raise invalid_form({"type": "Must be 11 (public) or 12 (private)."})
        need = (
            perm.CREATE_PUBLIC_THREADS
            if thread_type == PUBLIC_THREAD
            else perm.CREATE_PRIVATE_THREADS
        )
        channel = self._channel(request, need)
        thread = self._new_thread(channel, self.s.world.ids.next(), body, thread_type)
        thread.invitable = bool(body.get("invitable", True))
        return json_response(payloads.channel(thread, self.s.world), status=201)

    async def join_thread(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        channel.member_ids.add(self.s.world.bot.id)
        return no_content()

    def _new_thread(self, parent: Channel, thread_id: int, body: dict, thread_type: int) -> Channel:
        name = body.get("name") or ""
        if not 1 <= len(name) <= 100:
            raise invalid_form({"name": "Must be between 1 and 100 in length."})
        world = self.s.world
        thread = Channel(
            id=thread_id,
            type=thread_type,
            name=name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=world.bot.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
        )
        thread.member_ids.add(world.bot.id)
        world.channels[thread.id] = thread
        guild = world.guild_of(parent)
        if guild is not None:
            guild.channels[thread.id] = thread
            data = payloads.channel(thread, world)
            data["newly_created"] = True
            self.s.gateway.dispatch_guild(guild.id, "THREAD_CREATE", data, GUILDS)
        world.touch()
        return thread
