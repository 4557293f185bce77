"""Point discord.py at another API host: the emulated Discord used by end-to-end tests.

This is the only production hook for the emulator; unset (the default) leaves discord.py alone.
"""

from __future__ import annotations

import discord.gateway
import discord.http
import discord.webhook.async_
import yarl


def point_discord_at(api_base: str) -> None:
    """E.g. "http://127.0.0.1:8080/api/v10": REST, interaction callbacks and the gateway.

    REST calls build URLs from `discord.http.Route.BASE`; interaction callbacks, follow-ups
    and webhooks go through `discord.webhook.async_`, which imports that same Route class.
    Both names are set anyway, so a future discord.py that gives webhooks their own Route
    still follows.

    discord.py 2.7's (unsharded) Client never asks GET /gateway/bot: it dials
    `DiscordWebSocket.DEFAULT_GATEWAY` directly (and falls back to it when a RESUME fails), so
    that is pointed at the same host's root, where an emulated gateway listens.
    """
    base = api_base.rstrip("/")
    discord.http.Route.BASE = base
    discord.webhook.async_.Route.BASE = base
    url = yarl.URL(base)
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = url.with_scheme(
        "wss" if url.scheme == "https" else "ws"
    ).with_path("/")
