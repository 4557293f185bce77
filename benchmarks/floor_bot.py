"""The benchmark floor: a bare discord.py bot that answers every component click "ok".

No database, no logic: whatever the real bot costs above this is the bot's own.
Run: DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10 python -m benchmarks.floor_bot
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import discord
import discord.gateway
import discord.http
import yarl


def point_discord_at(api_base: str) -> None:
    """Send discord.py's REST, interaction callbacks, webhooks and gateway to `api_base`.

    discord.webhook.async_ imports the very same Route class from discord.http, so one
    assignment covers interaction callbacks and follow-ups too. discord.py 2.7 never asks
    GET /gateway/bot for a plain Client; it dials DiscordWebSocket.DEFAULT_GATEWAY, which is
    therefore patched as well (to the emulator's root, where its gateway listens).
    """
    base = api_base.rstrip("/")
    discord.http.Route.BASE = base
    url = yarl.URL(base)
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = url.with_scheme(
        "wss" if url.scheme == "https" else "ws"
    ).with_path("/")


class FloorBot(discord.Client):
    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.send_message("ok", ephemeral=True)


async def main() -> None:
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_discord_at(api_base)
    bot = FloorBot(intents=discord.Intents.default())
    loop = asyncio.get_running_loop()
    # SIGTERM closes the gateway cleanly (code 1000) so the emulator ends the session.
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(main())
