"""Every string the slash commands show (descriptions, parameter descriptions, choice names),
as discord.py hands them to the Translator: a Babel extraction method, named in babel.cfg, so
that the catalogs hold them whatever form they are written in (a `description=`, a docstring,
an f-string, an enum's values as choices)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where
from discord.ext import commands

from bot.discord_ui.client import EXTENSIONS
from bot.discord_ui.cogs import (
    banks,
    config,
    departures,
    help,
    insights,
    mydata,
    practice,
    quiz,
    reminders,
    schedule,
    standings,
    welcome,
)

COG_MODULES = (
    banks, config, departures, help, insights, mydata, practice, quiz, reminders, schedule,
    standings, welcome,
)  # fmt: skip

NAMES = frozenset({Where.command_name, Where.group_name, Where.parameter_name})


class Recorder(app_commands.Translator):
    """Translates nothing; keeps each string it is asked for, with where it is shown."""

    def __init__(self) -> None:
        super().__init__()
        self.strings: dict[str, set[str]] = {}

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location not in NAMES and string.extras.get("translate", True):
            self.strings.setdefault(string.message, set()).add(_where(context))
        return None


def _where(context: app_commands.TranslationContextTypes) -> str:
    data: Any = context.data
    if isinstance(data, app_commands.Parameter):
        return f"/{data.command.qualified_name} {data.display_name}: {context.location.name}"
    if isinstance(data, app_commands.Command | app_commands.Group):
        return f"/{data.qualified_name}: {context.location.name}"
    return context.location.name


async def record(
    commands_: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group],
    tree: app_commands.CommandTree[Any],
) -> dict[str, set[str]]:
    """Each string `commands_` would send for translation, and where it is shown."""
    recorder = Recorder()
    for command in commands_:
        await command.get_translated_payload(tree, recorder)
    return recorder.strings


def cog_commands() -> list[app_commands.Command[Any, ..., Any] | app_commands.Group]:
    """The commands of every cog the bot loads, read from the cog classes (no bot needed)."""
    if missing := set(EXTENSIONS) ^ {module.__name__ for module in COG_MODULES}:
        raise RuntimeError(f"COG_MODULES and the bot's EXTENSIONS differ: {sorted(missing)}")
    found: list[app_commands.Command[Any, ..., Any] | app_commands.Group] = []
    for module in COG_MODULES:
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, commands.Cog)
                and value.__module__ == module.__name__
            ):
                # A cog's app commands are bound in `Cog.__new__`; its __init__ wants a bot.
                cog = value.__new__(value)
                found.extend(c for c in cog.get_app_commands() if c.parent is None)
    return found


def command_strings() -> dict[str, set[str]]:
    async def walk() -> dict[str, set[str]]:
        tree: app_commands.CommandTree[Any] = app_commands.CommandTree(
            discord.Client(intents=discord.Intents.none())
        )
        return await record(cog_commands(), tree)

    return asyncio.run(walk())


def extract(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel's extraction method interface: the file itself is only where babel.cfg names us."""
    for message, places in sorted(command_strings().items()):
        yield 1, None, message, sorted(places)
