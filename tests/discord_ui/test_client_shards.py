"""The bot runs the shards its settings name, and passes none when there are none."""

from __future__ import annotations

import logging

import discord
import pytest
from discord.ext import commands

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.settings import Settings
from bot.store import Store, make_engine


async def bot_with(**env: str) -> QuizBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, DISCORD_TOKEN="token", DATABASE_URL="sqlite://", **env
    )
    service = QuizService(Catalog(), Store(make_engine("sqlite://")))
    return QuizBot(settings, service)


async def test_configured_shards_are_the_ones_discord_py_launches() -> None:
    bot = await bot_with(SHARD_COUNT="4", SHARD_IDS="1,3")
    assert isinstance(bot, commands.AutoShardedBot)
    assert (bot.shard_count, bot.shard_ids) == (4, [1, 3])
    await bot.service.close()


async def test_without_settings_discord_decides_the_shard_count() -> None:
    bot = await bot_with()
    assert isinstance(bot, discord.AutoShardedClient)
    assert (bot.shard_count, bot.shard_ids) == (None, None)  # asks GET /gateway/bot
    await bot.service.close()


async def test_only_the_process_running_shard_0_sends_reminder_dms() -> None:
    owners = {}
    for ids in ("0", "1", "0-1"):
        bot = await bot_with(SHARD_COUNT="2", SHARD_IDS=ids)
        bot.run_scheduler = False
        await bot.setup_hook()
        owners[ids] = bot.reminders.enabled
        await bot.service.close()
    assert owners == {"0": True, "1": False, "0-1": True}


async def test_a_bot_without_voice_starts_without_voice_warnings(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a fresh process, where discord.py warns once: PyNaCl and davey are not installed.
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True, raising=False)
    with caplog.at_level(logging.WARNING):
        bot = await bot_with()
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    await bot.service.close()
