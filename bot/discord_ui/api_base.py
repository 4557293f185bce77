"""Point discord.py at another API host (the emulated Discord); unset, discord.py is left alone."""

from __future__ import annotations

import discord.gateway
import discord.http
import discord.webhook.async_
import yarl


def point_discord_at(api_base: str) -> None:
    """E.g. "http://127.0.0.1:8080/api/v10": REST, interaction callbacks and the gateway.
    Webhooks' Route is set too, in case a future discord.py gives them their own; an unsharded
    Client dials DEFAULT_GATEWAY without asking GET /gateway/bot, so it points here too."""
    base = api_base.rstrip("/")
    discord.http.Route.BASE = base
    discord.webhook.async_.Route.BASE = base
    url = yarl.URL(base)
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = url.with_scheme(
        "wss" if url.scheme == "https" else "ws"
    ).with_path("/")
