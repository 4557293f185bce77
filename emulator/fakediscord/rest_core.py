"""Login-time and lookup routes: /users, /gateway/bot, application info, guild reads."""

from __future__ import annotations

from aiohttp import web

from . import payloads
from .errors import unknown_guild, unknown_member, unknown_user
from .httputil import json_response, read_json, snowflake
from .rest import RouteDef, Services
from .state import DM, Channel, Guild


class CoreRoutes:
    def __init__(self, services: Services, *, allowed_intents: int) -> None:
        self.s = services
        self.allowed_intents = allowed_intents

    def routes(self) -> list[RouteDef]:
        return [
            RouteDef("GET", "/users/@me", self.get_me),
            RouteDef("GET", "/users/{user_id}", self.get_user),
            RouteDef("POST", "/users/@me/channels", self.create_dm),
            RouteDef("GET", "/gateway", self.get_gateway, auth=False),
            RouteDef("GET", "/gateway/bot", self.get_gateway_bot),
            RouteDef("GET", "/oauth2/applications/@me", self.get_application),
            RouteDef("GET", "/applications/@me", self.get_application),
            RouteDef("GET", "/guilds/{guild_id}", self.get_guild),
            RouteDef("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            RouteDef("GET", "/guilds/{guild_id}/roles", self.get_guild_roles),
            RouteDef("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
        ]

    async def get_me(self, request: web.Request) -> web.Response:
        return json_response(payloads.self_user(self.s.world.bot))

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.s.world.users.get(snowflake(request, "user_id"))
        if user is None:
            raise unknown_user()
        return json_response(payloads.user(user))

    async def create_dm(self, request: web.Request) -> web.Response:
        body = await read_json(request)
        world = self.s.world
        recipient = world.users.get(int(body.get("recipient_id") or 0))
        if recipient is None:
            raise unknown_user()
        for ch in world.channels.values():
            if ch.type == DM and ch.recipient_ids == [recipient.id]:
                return json_response(payloads.channel(ch, world))
        ch = Channel(id=world.ids.next(), type=DM, name="", guild_id=None)
        ch.recipient_ids = [recipient.id]
        world.channels[ch.id] = ch
        return json_response(payloads.channel(ch, world))

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self._ws_url()})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self._ws_url(),
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 1000,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            }
        )

    async def get_application(self, request: web.Request) -> web.Response:
        world = self.s.world
        owner = next((u for u in world.users.values() if not u.bot), world.bot)
        return json_response(
            payloads.application(world, allowed_intents=self.allowed_intents, owner=owner)
        )

    async def get_guild(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        data = payloads.guild_create(guild, self.s.world, intents=0)
        for key in ("members", "channels", "threads", "presences", "voice_states"):
            data.pop(key, None)
        return json_response(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        world = self.s.world
        return json_response(
            [
                payloads.channel(ch, world)
                for ch in guild.channels.values()
                if not ch.deleted and not ch.is_thread
            ]
        )

    async def get_guild_roles(self, request: web.Request) -> web.Response:
        return json_response([payloads.role(r) for r in self._guild(request).roles.values()])

    async def get_member(self, request: web.Request) -> web.Response:
        member = self._guild(request).members.get(snowflake(request, "user_id"))
        if member is None:
            raise unknown_member()
        return json_response(payloads.member(member))

    def _guild(self, request: web.Request) -> Guild:
        guild = self.s.world.guilds.get(snowflake(request, "guild_id"))
        if guild is None:
            raise unknown_guild()
        return guild

    def _ws_url(self) -> str:
        return self.s.base_url.replace("http://", "ws://", 1) + "/"
