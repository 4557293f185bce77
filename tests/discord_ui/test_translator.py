"""Slash commands in the member's language: the Translator gives the catalog's text for each
Discord locale, and every string the real command tree sends for translation is in the
template, so none can be left out of the catalogs."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.app_commands import TranslationContext
from discord.app_commands import TranslationContextLocation as Where

from bot.discord_ui.client import QuizBot
from bot.discord_ui.command_strings import cog_commands, record
from bot.discord_ui.translator import CatalogTranslator
from bot.i18n.catalogs import TEMPLATE, ids, read_po

QUIZ = "Post a practice task in this channel."


async def translated(text: str, locale: discord.Locale, where: Where = Where.other) -> str | None:
    context = TranslationContext(location=where, data=None)
    return await CatalogTranslator().translate(app_commands.locale_str(text), locale, context)


async def test_a_description_comes_in_each_shipped_language_and_english_is_left_alone() -> None:
    assert await translated(QUIZ, discord.Locale.german) == (
        "Stellt eine Übungsaufgabe in diesen Kanal."
    )
    assert await translated(QUIZ, discord.Locale.spain_spanish) == (
        "Publica una tarea de práctica en este canal."
    )
    assert await translated(QUIZ, discord.Locale.latin_american_spanish) == (
        "Publica una tarea de práctica en este canal."
    )
    assert await translated(QUIZ, discord.Locale.brazil_portuguese) == (
        "Publica uma tarefa de prática neste canal."
    )
    for untranslated in (discord.Locale.american_english, discord.Locale.japanese):
        assert await translated(QUIZ, untranslated) is None
    assert await translated("No catalog has this.", discord.Locale.german) is None


async def test_names_stay_english() -> None:
    for where in (Where.command_name, Where.group_name, Where.parameter_name):
        assert await translated("Language", discord.Locale.german, where) is None
    assert await translated("Language", discord.Locale.german, Where.choice_name) == "Sprache"


async def test_every_string_the_bots_tree_sends_for_translation_is_in_the_template(
    bot: QuizBot,
) -> None:
    sent = await record(bot.tree.get_commands(), bot.tree)
    assert len(sent) > 50
    assert set(sent) - ids(read_po(TEMPLATE)) == set()
    # What the extraction reads from the cog classes is what the bot's own tree sends.
    assert sent == await record(cog_commands(), bot.tree)
