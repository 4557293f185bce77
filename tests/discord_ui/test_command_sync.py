"""`quizbot run` registers the slash commands only when Discord's differ from the bot's, says so
in one line either way, and serves on when Discord refuses; the invite asks for what the bot
uses."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp
import discord
import pytest
from discord import app_commands

from bot.discord_ui.command_sync import (
    INVITE_PERMISSIONS,
    invite_url,
    local_payloads,
    sync_if_changed,
)
from bot.discord_ui.translator import CatalogTranslator
from tests.i18n.catalog_files import use_locale_dir, write_catalog

APPLICATION_ID = 800000000000000001
LOGGER = "bot.discord_ui.command_sync"


def ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """The sync's own lines (discord.py's client logs its own on creation)."""
    return [record for record in caplog.records if record.name == LOGGER]


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in ours(caplog)]


class Tree(app_commands.CommandTree[discord.Client]):
    """The real tree with Discord's side played by a list: what `fetch_commands` answers, and
    every `sync` counted."""

    def __init__(self) -> None:
        super().__init__(discord.Client(intents=discord.Intents.none()))
        self.registered: list[dict[str, Any]] = []
        self.syncs = 0
        self.refusal: Exception | None = None

    async def fetch(self, tree: Any) -> list[dict[str, Any]]:
        """Discord's answer to GET .../commands?with_localizations=true."""
        if self.refusal is not None:
            raise self.refusal
        return self.registered

    async def fetch_commands(self, *, guild: Any = None) -> list[app_commands.AppCommand]:
        return [
            app_commands.AppCommand(data=payload, state=None)  # type: ignore[arg-type]
            for payload in await self.fetch(self)
        ]

    async def sync(self, *, guild: Any = None) -> list[app_commands.AppCommand]:
        self.syncs += 1
        # What Discord keeps: the payload, with ids and its own defaults filled in.
        self.registered = [
            {
                "id": str(number + 1),
                "application_id": str(APPLICATION_ID),
                "integration_types": [0],
                "dm_permission": True,
                **payload,
            }
            for number, payload in enumerate(await local_payloads(self))
        ]
        return await self.fetch_commands()


def tree_with_commands(description: str = "Post a task.") -> Tree:
    tree = Tree()

    @tree.command(name="quiz", description=description)
    @app_commands.guild_only()
    @app_commands.describe(topic="Only tasks of this topic")
    async def quiz(interaction: discord.Interaction, topic: str | None = None) -> None: ...

    @tree.command(name="schedule", description="Daily quizzes.")
    @app_commands.default_permissions(manage_guild=True)
    async def schedule(interaction: discord.Interaction) -> None: ...

    @tree.command(name="topics", description="The banks.")
    async def topics(interaction: discord.Interaction) -> None: ...

    return tree


async def test_the_first_start_registers_and_a_restart_with_no_change_does_not(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    tree = tree_with_commands()
    await sync_if_changed(tree, fetch=tree.fetch)
    assert tree.syncs == 1
    assert messages(caplog) == [
        "slash commands: registered 3 with Discord (none were registered yet); new ones can "
        "take a few minutes to show in Discord"
    ]
    caplog.clear()

    restarted = tree_with_commands()
    restarted.registered = tree.registered
    await sync_if_changed(restarted, fetch=restarted.fetch)
    assert restarted.syncs == 0
    assert messages(caplog) == ["slash commands: the 3 registered with Discord are current"]


async def test_a_changed_added_or_removed_command_registers_them_all_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    old = tree_with_commands()
    await old.sync()
    old.registered.append({**old.registered[-1], "id": "99", "name": "gone"})
    new = tree_with_commands(description="Post a practice task in this channel.")
    new.registered = old.registered
    await sync_if_changed(new, fetch=new.fetch)
    assert new.syncs == 1
    assert "(/gone removed, /quiz changed)" in messages(caplog)[-1]


@pytest.mark.parametrize(
    "refusal",
    [
        discord.Forbidden(
            type("Response", (), {"status": 403, "reason": "Forbidden"})(), "Missing Access"
        ),
        aiohttp.ClientConnectionError("Connection reset by peer"),
        TimeoutError(),
    ],
    ids=["403", "connection", "timeout"],
)
async def test_a_refusal_is_one_warning_and_the_bot_serves_on(
    refusal: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    tree = tree_with_commands()
    tree.refusal = refusal
    await sync_if_changed(tree, fetch=tree.fetch)  # no exception: the bot goes on connecting
    assert tree.syncs == 0
    [record] = ours(caplog)
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith("could not register the slash commands with Discord (")
    assert record.exc_info is None


def test_the_invite_asks_for_both_scopes_and_only_what_the_bot_uses() -> None:
    query = parse_qs(urlsplit(invite_url(APPLICATION_ID)).query)
    assert query["client_id"] == [str(APPLICATION_ID)]
    assert query["scope"] == ["bot applications.commands"]
    granted = discord.Permissions(int(query["permissions"][0]))
    assert granted == INVITE_PERMISSIONS
    assert {name for name, on in granted if on} == {
        "read_messages",  # View Channel
        "send_messages",
        "embed_links",
        "read_message_history",
        "create_public_threads",
        "send_messages_in_threads",
    }


# -- translations ---------------------------------------------------------------------------------


async def translated_tree(description: str = "Post a task.") -> Tree:
    tree = tree_with_commands(description)
    await tree.set_translator(CatalogTranslator())
    return tree


async def test_the_translations_are_sent_and_unchanged_ones_need_no_new_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = use_locale_dir(tmp_path / "locales", monkeypatch)
    write_catalog(folder, "de", {"Post a task.": "Stellt eine Aufgabe."})
    write_catalog(folder, "es", {"Only tasks of this topic": "Solo tareas de este tema"})
    for shadowed in ("fr", "pt_BR"):  # the shipped catalogs translate the option too
        write_catalog(folder, shadowed, {})
    tree = await translated_tree()
    await sync_if_changed(tree, fetch=tree.fetch)
    quiz = next(c for c in tree.registered if c["name"] == "quiz")
    assert quiz["description_localizations"] == {"de": "Stellt eine Aufgabe."}
    assert quiz["name_localizations"] == {}  # names stay English
    (topic,) = quiz["options"]
    assert topic["description_localizations"] == {
        "es-ES": "Solo tareas de este tema",
        "es-419": "Solo tareas de este tema",
    }

    restarted = await translated_tree()
    restarted.registered = tree.registered
    await sync_if_changed(restarted, fetch=restarted.fetch)
    assert restarted.syncs == 0


async def test_a_changed_translation_registers_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    folder = use_locale_dir(tmp_path / "locales", monkeypatch)
    write_catalog(folder, "fr", {"Post a task.": "Publie une tâche."})
    tree = await translated_tree()
    await sync_if_changed(tree, fetch=tree.fetch)

    write_catalog(folder, "fr", {"Post a task.": "Publie un exercice."})
    restarted = await translated_tree()
    restarted.registered = tree.registered
    await sync_if_changed(restarted, fetch=restarted.fetch)
    assert restarted.syncs == 1
    assert "(/quiz changed)" in messages(caplog)[-1]
    quiz = next(c for c in restarted.registered if c["name"] == "quiz")
    assert quiz["description_localizations"] == {"fr": "Publie un exercice."}
