"""Application command registration: global and per-guild, bulk (PUT) and single."""

from __future__ import annotations

from aiohttp import web

from . import validation
from .commands import localized
from .errors import unknown_application, unknown_command, unknown_guild
from .httputil import json_response, no_content, read_json, snowflake
from .rest import RouteDef, Services

_GLOBAL = "/applications/{app_id}/commands"
_GUILD = "/applications/{app_id}/guilds/{guild_id}/commands"


class CommandRoutes:
    def __init__(self, services: Services) -> None:
        self.s = services

    def routes(self) -> list[RouteDef]:
        routes: list[RouteDef] = []
        for base in (_GLOBAL, _GUILD):
            routes += [
                RouteDef("GET", base, self.list_commands),
                RouteDef("PUT", base, self.bulk_overwrite),
                RouteDef("POST", base, self.create_command),
                RouteDef("GET", base + "/{command_id}", self.get_command),
                RouteDef("PATCH", base + "/{command_id}", self.edit_command),
                RouteDef("DELETE", base + "/{command_id}", self.delete_command),
            ]
        return routes

    def _scope(self, request: web.Request) -> int | None:
        if snowflake(request, "app_id") != self.s.world.application_id:
            raise unknown_application()
        if "guild_id" not in request.match_info:
            return None
        guild_id = snowflake(request, "guild_id")
        if guild_id not in self.s.world.guilds:
            raise unknown_guild()
        return guild_id

    async def list_commands(self, request: web.Request) -> web.Response:
        commands = self.s.commands.in_scope(self._scope(request))
        if request.query.get("with_localizations", "").lower() != "true":
            # Discord's default: one language, the request's, instead of every translation.
            locale = request.headers.get("X-Discord-Locale")
            commands = [localized(command, locale) for command in commands]
        return json_response(commands)

    async def bulk_overwrite(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        commands = validation.commands(await read_json(request))
        return json_response(self.s.commands.replace(scope, commands))

    async def create_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        stored, created = self.s.commands.upsert(
            scope, validation.command(await read_json(request))
        )
        return json_response(stored, status=201 if created else 200)

    async def get_command(self, request: web.Request) -> web.Response:
        cmd = self.s.commands.get(self._scope(request), snowflake(request, "command_id"))
        if cmd is None:
            raise unknown_command()
        return json_response(cmd)

    async def edit_command(self, request: web.Request) -> web.Response:
        scope = self._scope(request)
        cmd = self.s.commands.get(scope, snowflake(request, "command_id"))
        if cmd is None:
            raise unknown_command()
        merged = {**cmd, **(await read_json(request))}
        stored, _ = self.s.commands.upsert(scope, validation.command(merged))
        return json_response(stored)

    async def delete_command(self, request: web.Request) -> web.Response:
        if not self.s.commands.delete(self._scope(request), snowflake(request, "command_id")):
            raise unknown_command()
        return no_content()
