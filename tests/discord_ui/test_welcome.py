"""The welcome when the bot joins a server: GUILD_CREATE payloads through discord.py's real
ConnectionState, which fires `on_guild_join` only for a join; the bot's sends go to the fake
HTTP layer. Where it goes, that it goes once, and what a failure does."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands

from bot import i18n
from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs import welcome as welcome_cog
from bot.quiz.errors import StoreAction, StoreUnavailableError
from bot.store import welcome as welcome_unit
from tests.discord_ui.fakes import BOT_ID, FakeDiscordHTTP, response, user_payload
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo

GUILD = 810000000000000001
SEND = discord.Permissions(send_messages=True)
EVERYONE = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True
)
MESSAGES = "/channels/{channel_id}/messages"
TEXT, CATEGORY = 0, 4


def channel(
    channel_id: int,
    name: str,
    position: int,
    *,
    kind: int = TEXT,
    parent: int | None = None,
    deny: discord.Permissions | None = None,
) -> dict[str, Any]:
    overwrites = []
    if deny is not None:  # denied to the bot itself (a member overwrite)
        overwrites.append({"id": str(BOT_ID), "type": 1, "allow": "0", "deny": str(deny.value)})
    return {
        "id": str(channel_id),
        "type": kind,
        "guild_id": str(GUILD),
        "name": name,
        "position": position,
        "permission_overwrites": overwrites,
        "nsfw": False,
        "parent_id": None if parent is None else str(parent),
    }


def guild_data(
    channels: list[dict[str, Any]], *, system: int | None = None, **extra: Any
) -> dict[str, Any]:
    """GUILD_CREATE as Discord sends it when the bot joins (no `unavailable`)."""
    role = {
        "id": str(GUILD),
        "name": "@everyone",
        "color": 0,
        "hoist": False,
        "position": 0,
        "permissions": str(EVERYONE.value),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }
    bot_member = {
        "user": {**user_payload(BOT_ID, "quizbot"), "bot": True},
        "roles": [],
        "joined_at": "2026-12-07T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
    }
    return {
        "id": str(GUILD),
        "name": "New group",
        "owner_id": "1",
        "features": [],
        "emojis": [],
        "stickers": [],
        "roles": [role],
        "channels": channels,
        "members": [bot_member],
        "member_count": 2,
        "system_channel_id": None if system is None else str(system),
        **extra,
    }


async def gateway(bot: QuizBot, event: str, data: dict[str, Any]) -> None:
    """Parse one gateway event, then wait for the listeners it started."""
    before = asyncio.all_tasks()
    state = bot._connection
    parse = {"GUILD_CREATE": state.parse_guild_create, "GUILD_DELETE": state.parse_guild_delete}
    parse[event](data)  # type: ignore[operator]
    for _ in range(100):
        pending = [
            t
            for t in asyncio.all_tasks() - before
            if t is not asyncio.current_task() and not t.done()
        ]
        if not pending:
            return
        await asyncio.wait(pending, timeout=5)


def welcomes(fake: FakeDiscordHTTP) -> list[tuple[int, str]]:
    """(channel id, text) of every message the bot sent to a channel."""
    return [
        (int(re.findall(r"/channels/(\d+)/messages", c.url)[0]), c.json["content"])
        for c in fake.posts()
    ]


def welcomed(bot: QuizBot) -> list[int]:
    with bot.service.store.read() as conn:
        return [row.guild_id for row in conn.exec_driver_sql("SELECT guild_id FROM guild_welcome")]


async def test_a_join_is_welcomed_once_in_the_system_channel(
    bot: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    channels = [channel(11, "general", 0), channel(12, "announcements", 1)]
    await gateway(bot, "GUILD_CREATE", guild_data(channels, system=12))
    [(where, text)] = welcomes(fake)
    assert where == 12
    assert welcomed(bot) == [GUILD]
    for command in ("/quiz", "/help", "/schedule add", "/config show"):
        assert f"`{command}`" in text
    # The bot is removed and added again: no second welcome.
    await gateway(bot, "GUILD_DELETE", {"id": str(GUILD)})
    await gateway(bot, "GUILD_CREATE", guild_data(channels, system=12))
    assert len(welcomes(fake)) == 1
    assert "joined server 810000000000000001 again: it was welcomed before" in caplog.text


def test_the_welcome_names_only_commands_the_bot_has(bot: QuizBot) -> None:
    tree = bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    names = {
        c.qualified_name
        for top in tree
        for c in [top, *(top.walk_commands() if isinstance(top, app_commands.Group) else ())]
    }
    named = re.findall(r"`/([a-z ]+)`", welcome_cog.WELCOME)
    assert named and set(named) <= names


async def test_a_guild_coming_back_from_an_outage_or_a_reconnect_is_not_welcomed(
    bot: QuizBot, fake: FakeDiscordHTTP
) -> None:
    """discord.py reports these as `on_guild_available`, never as a join."""
    await gateway(bot, "GUILD_CREATE", guild_data([channel(11, "general", 0)], unavailable=False))
    assert welcomes(fake) == []
    assert welcomed(bot) == []


async def test_without_the_system_channel_the_first_channel_it_may_write_in(
    bot: QuizBot, fake: FakeDiscordHTTP
) -> None:
    """In the order members see them: channels outside categories, then each category's."""
    channels = [
        channel(20, "Study", 0, kind=CATEGORY),
        channel(21, "in-category", 0, parent=20),
        channel(22, "read-only", 1, deny=SEND),
        channel(23, "system", 5, deny=SEND),
        channel(24, "lobby", 3),
    ]
    await gateway(bot, "GUILD_CREATE", guild_data(channels, system=23))
    assert [where for where, _ in welcomes(fake)] == [24]


async def test_no_channel_to_write_in_is_one_line_and_no_record(
    bot: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    channels = [channel(31, "rules", 0, deny=SEND), channel(32, "news", 1, deny=SEND)]
    await gateway(bot, "GUILD_CREATE", guild_data(channels))
    assert welcomes(fake) == []
    assert welcomed(bot) == []  # added again later, with a channel, it is welcomed then
    assert "no channel the bot may write in, so no welcome" in caplog.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_refused_send_is_one_warning_and_is_not_retried(
    bot: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail[MESSAGES] = discord.Forbidden(
        response(403, "Forbidden"), {"code": 50013, "message": "Missing Permissions"}
    )
    channels = [channel(41, "general", 0)]
    await gateway(bot, "GUILD_CREATE", guild_data(channels))
    [warning] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warning.getMessage() == (
        f"could not welcome server {GUILD} in channel 41: "
        "403 Forbidden (error code: 50013): Missing Permissions"
    )
    assert warning.exc_info is None
    assert welcomed(bot) == [GUILD]
    del fake.fail[MESSAGES]
    await gateway(bot, "GUILD_DELETE", {"id": str(GUILD)})
    await gateway(bot, "GUILD_CREATE", guild_data(channels))
    assert len(fake.posts()) == 1  # the refused one only


async def test_a_database_that_refuses_the_record_sends_nothing(
    bot: QuizBot,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object) -> bool:
        raise StoreUnavailableError(StoreAction.WRITE, "database or disk is full")

    monkeypatch.setattr(welcome_unit, "claim_welcome", refuse)
    await gateway(bot, "GUILD_CREATE", guild_data([channel(51, "general", 0)]))
    assert fake.posts() == []
    assert "no welcome, the database refused (database or disk is full)" in caplog.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_the_welcome_speaks_the_servers_language(
    bot: QuizBot, fake: FakeDiscordHTTP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Community server set to German (its `preferred_locale`) is welcomed through the
    catalogs in German; the pseudo-locale shows every word went through them."""
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    await gateway(
        bot, "GUILD_CREATE", guild_data([channel(61, "general", 0)], preferred_locale="de")
    )
    [(_where, text)] = welcomes(fake)
    with i18n.speaking("de"):
        assert text == i18n._(welcome_cog.WELCOME) != welcome_cog.WELCOME
    assert text.startswith("⟦👋 **") and "`/quiz`" in text  # commands stay as they are typed


async def test_a_german_server_is_welcomed_in_german(bot: QuizBot, fake: FakeDiscordHTTP) -> None:
    await gateway(
        bot, "GUILD_CREATE", guild_data([channel(62, "general", 0)], preferred_locale="de")
    )
    [(_where, text)] = welcomes(fake)
    assert text.startswith("👋 **Hallo! Ich bin ein Quiz-Tutor.**")
    assert "`/practice`" in text
