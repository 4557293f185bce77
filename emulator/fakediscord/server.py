"""DiscordEmulator: the aiohttp app serving REST under /api/v10 and the gateway websocket."""

from __future__ import annotations

import logging
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aiohttp import web

from .commands import CommandStore
from .errors import ApiError, unauthorized
from .gateway import Gateway
from .httputil import json_response
from .intents import PRIVILEGED
from .interactions import InteractionStore
from .messages import Messages
from .rest import Handler, RouteDef, Services
from .rest_channels import ChannelRoutes
from .rest_commands import CommandRoutes
from .rest_core import CoreRoutes
from .rest_interactions import InteractionRoutes
from .state import World

if TYPE_CHECKING:
    from .driver import Driver

_log = logging.getLogger(__name__)

API_PREFIX = "/api/v10"
DEFAULT_TOKEN = "fakediscord-bot-token"


@dataclass(frozen=True, slots=True)
class UnknownRoute:
    method: str
    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.detail}".rstrip()


class DiscordEmulator:
    """An emulated Discord on 127.0.0.1 that unmodified discord.py clients connect to.

    `unknown_routes` collects every request (and gateway opcode) the emulator does not
    implement; tests should assert it is empty so gaps fail loudly instead of silently.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_name: str = "QuizBot",
        heartbeat_interval_ms: int = 41_250,
        allowed_intents: int = PRIVILEGED,
        callback_deadline: float | None = 3.0,
        max_retained_interactions: int = 100_000,
        ephemeral_per_user: int = 10_000,
    ) -> None:
        self.world = World(token=token, bot_name=bot_name, ephemeral_per_user=ephemeral_per_user)
        self.unknown_routes: list[UnknownRoute] = []
        self.gateway = Gateway(
            self.world,
            heartbeat_interval_ms=heartbeat_interval_ms,
            allowed_intents=allowed_intents,
            record_unknown=self._record_unknown,
        )
        self.messages = Messages(self.world, self.gateway)
        self.commands = CommandStore(self.world.application_id, self.world.ids, self.world.changed)
        self.interactions = InteractionStore(max_retained_interactions)
        self.services = Services(
            world=self.world,
            gateway=self.gateway,
            messages=self.messages,
            commands=self.commands,
            interactions=self.interactions,
            callback_deadline=callback_deadline,
        )
        self.allowed_intents = allowed_intents
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._driver: Driver | None = None

    @property
    def token(self) -> str:
        return self.world.token

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """The value for DISCORD_API_BASE / point_discord_at()."""
        return self.base_url + API_PREFIX

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    @property
    def driver(self) -> Driver:
        from .driver import Driver  # lazily: driver modules import this one's types

        if self._driver is None:
            self._driver = Driver(self)
        return self._driver

    def bot_env(self) -> dict[str, str]:
        """Environment variables that point a bot process at this emulator."""
        return {"DISCORD_TOKEN": self.token, "DISCORD_API_BASE": self.api_base}

    async def start(self, port: int = 0) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        # No access log: at thousands of requests per second it would dominate the CPU.
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        # Binding the socket ourselves is the public way to learn which free port we got.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock, backlog=1024).start()
        self.services.base_url = self.base_url
        self.messages.attachment_base = self.base_url
        self.world.attachment_base = self.base_url
        self.gateway.resume_url = f"ws://127.0.0.1:{self.port}/resume"
        _log.info("fakediscord listening on %s", self.base_url)

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> DiscordEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _add_routes(self, app: web.Application) -> None:
        s = self.services
        route_sets: list[list[RouteDef]] = [
            CoreRoutes(s, allowed_intents=self.allowed_intents).routes(),
            CommandRoutes(s).routes(),
            ChannelRoutes(s).routes(),
            InteractionRoutes(s).routes(),
        ]
        for routes in route_sets:
            for route in routes:
                app.router.add_route(route.method, API_PREFIX + route.path, self._wrap(route))
        # Both paths serve the gateway; READY's resume_gateway_url points at the second so a
        # test can tell a RESUME went where discord.py was told to go.
        app.router.add_get("/", self.gateway.handle)
        app.router.add_get("/resume", self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment)
        # Last: anything unmatched, including a known path with an unknown method.
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    def _wrap(self, route: RouteDef) -> Handler:
        """Bot-token check (where Discord wants one) and ApiError -> Discord's JSON error.

        A per-route closure instead of an aiohttp middleware: one call layer less on the
        interaction-callback hot path.
        """
        handler = route.handler
        auth_header = f"Bot {self.world.token}" if route.auth else None

        async def wrapped(request: web.Request) -> web.StreamResponse:
            try:
                if auth_header is not None and request.headers.get("Authorization") != auth_header:
                    raise unauthorized()
                return await handler(request)
            except ApiError as exc:
                return json_response(exc.body(), status=exc.status)

        return wrapped

    async def _unknown(self, request: web.Request) -> web.Response:
        body = (await request.text())[:300] if request.can_read_body else ""
        self._record_unknown(request.method, request.path_qs, body)
        message = f"fakediscord: unknown route {request.method} {request.path}"
        return json_response({"message": message, "code": 0}, status=404)

    def _record_unknown(self, method: str, path: str, detail: str) -> None:
        route = UnknownRoute(method, path, detail)
        _log.warning("fakediscord: unimplemented %s", route)
        self.unknown_routes.append(route)

    async def _attachment(self, request: web.Request) -> web.Response:
        attachment = self.world.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )
