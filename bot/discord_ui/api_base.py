"""Point discord.py at another API host: the emulated Discord used by end-to-end tests.

This is the only production hook for the emulator; unset (the default) leaves discord.py alone.
"""

from __future__ import annotations

import discord.http
import discord.webhook.async_


def point_discord_at(api_base: str) -> None:
    """E.g. "http://127.0.0.1:8080/api/v10". The gateway URL then comes from that API's
    /gateway/bot, so the websocket follows too.

    REST calls build URLs from `discord.http.Route.BASE`; interaction callbacks, follow-ups
    and webhooks go through `discord.webhook.async_`, which imports that same Route class.
    Both names are set anyway, so a future discord.py that gives webhooks their own Route
    still follows.
    """
    base = api_base.rstrip("/")
    discord.http.Route.BASE = base
    discord.webhook.async_.Route.BASE = base
