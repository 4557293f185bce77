"""Slash commands in the member's language: discord.py asks this for every description,
parameter description and choice name, once per Discord locale, when the commands are
registered. Command and option names stay English, so docs, screenshots and habits work
across a server."""

from __future__ import annotations

from typing import Final

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.i18n import ENGLISH, resolve_locale, translations

NAMES: Final = frozenset({Where.command_name, Where.group_name, Where.parameter_name})


class CatalogTranslator(app_commands.Translator):
    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        """The catalog's text for `locale`, or None: English, a name, or not translated (then
        Discord shows the English)."""
        target = resolve_locale(locale.value)
        if target == ENGLISH or context.location in NAMES or not string.extras.get("translate", 1):
            return None
        text = translations(target).gettext(string.message)
        return None if text == string.message else text
