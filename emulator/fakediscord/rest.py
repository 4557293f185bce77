"""What REST route modules share: the route record and the services they act on."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from aiohttp import web

from .commands import CommandStore
from .gateway import Gateway
from .interactions import InteractionStore
from .messages import Messages
from .state import World

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class RouteDef:
    method: str
    path: str  # relative to /api/v10
    handler: Handler
    # Interaction callbacks and interaction webhooks authenticate by token in the URL.
    auth: bool = True


@dataclass(slots=True)
class Services:
    world: World
    gateway: Gateway
    messages: Messages
    commands: CommandStore
    interactions: InteractionStore
    base_url: str = ""
    # Discord rejects an initial response that arrives more than 3 s after the interaction.
    callback_deadline: float | None = 3.0
