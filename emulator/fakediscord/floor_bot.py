"""The benchmark floor: a bare discord.py bot that answers every component click "ok".

No database, no logic: whatever the real bot costs above this is the bot's own. It is pointed
at the emulator the way the quiz bot is (the product's own `point_discord_at`), and with
QUIZBOT_LOOP_LAG_PROBE set it runs the quiz bot's loop-lag probe, so both report the same
figures.

Run:
    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10 python -m fakediscord.floor_bot
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import discord

from bot.discord_ui import loop_lag
from bot.discord_ui.api_base import point_discord_at

_TRUE = {"1", "true", "yes", "on"}


class FloorBot(discord.Client):
    def __init__(self, *, loop_lag_probe: bool = False) -> None:
        super().__init__(intents=discord.Intents.default())
        self.loop_lag_probe = loop_lag_probe
        self._probe: asyncio.Task[None] | None = None

    async def setup_hook(self) -> None:
        if self.loop_lag_probe:
            self._probe = loop_lag.start_loop_lag_probe()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.send_message("ok", ephemeral=True)

    async def close(self) -> None:
        if self._probe is not None:
            await loop_lag.stop_loop_lag_probe()
        await super().close()


async def main() -> None:
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_discord_at(api_base)
    probe = os.environ.get("QUIZBOT_LOOP_LAG_PROBE", "").strip().lower() in _TRUE
    bot = FloorBot(loop_lag_probe=probe)
    loop = asyncio.get_running_loop()
    # SIGTERM closes the gateway cleanly (code 1000) so the emulator ends the session.
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(os.environ["DISCORD_TOKEN"])


if __name__ == "__main__":
    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(main())
