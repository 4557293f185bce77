"""The test-facing API: build a world, drive the bot with interactions, observe what it did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .driver_interactions import InteractionSending
from .driver_observing import Observing
from .driver_world import WorldBuilding
from .interaction_payloads import ContextCache

if TYPE_CHECKING:
    from .server import DiscordEmulator, UnknownRoute


class Driver(WorldBuilding, InteractionSending, Observing):
    """Everything a test or benchmark does to the emulator. Use `DiscordEmulator.driver`.

    Interaction methods dispatch synchronously and return an InteractionRecord; await its
    `wait_response()` / `wait_followups()` / `wait_original()` for the bot's side.
    """

    def __init__(self, server: DiscordEmulator) -> None:
        self.server = server
        self.world = server.world
        self._contexts = ContextCache(server.world)

    @property
    def unknown_routes(self) -> list[UnknownRoute]:
        return self.server.unknown_routes
