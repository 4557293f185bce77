"""/config's replies in the moderator's own language (their Discord client's locale), whatever
the server's public language is; the cooldown counted in each language's plural forms and
written as it writes numbers. Expected texts are looked up in the shipped catalogs, with one
literal sentence per reply."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.config import cooldown_text
from bot.i18n import _, formats, speaking
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import GUILD_ID, MOD, Call, FakeDiscordHTTP, interaction_payload
from tests.discord_ui.test_config_cog import fields
from tests.discord_ui.test_schedule_cog import subcommand_data


def said(locale: str, message: str) -> str:
    """`message` as the catalog of `locale` has it."""
    with speaking(locale):
        return _(message)


TITLE = "⚙️ This server's settings"


async def config_in(
    driver: Driver, fake: FakeDiscordHTTP, locale: str, sub: str, **options: Any
) -> Call:
    data = subcommand_data("config", sub, **options)
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=MOD)
    payload["locale"] = locale
    reply = await driver.one_reply(payload)
    assert reply.ephemeral
    return reply


async def test_show_is_in_the_moderators_language_not_the_servers(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await bot.service.update_guild_config(GUILD_ID, language="fr")
    bot.languages.remember(GUILD_ID, "fr")
    reply = await config_in(driver, fake, "de", "show")
    assert reply.data["embeds"][0]["title"] == "⚙️ Einstellungen dieses Servers"
    shown = fields(reply)
    assert shown == {
        "Zeitzone": "**UTC** (Standard des Bots: hier ist keine festgelegt) · `/config timezone`",
        said("de", "Moderators"): said("de", "members with Manage Server") + " · `/config modrole`",
        said("de", "Who may post with /quiz"): said("de", "anyone") + " · `/config posting`",
        said("de", "Cooldown"): (
            "**30** Sekunden zwischen zwei `/quiz`-Beiträgen in einem Kanal · `/config cooldown`"
        ),
        said("de", "Language"): "**français** · `/config language`",
        said("de", "Daily quizzes"): "**0** · `/schedule list`",
        said("de", "Own banks"): "**0** · `/bank list`",
    }
    assert all(said("de", name) != name for name in ("Moderators", "Cooldown", "Own banks"))
    english = await config_in(driver, fake, "en-US", "show")
    assert english.data["embeds"][0]["title"] == TITLE


async def test_a_setting_changed_is_confirmed_in_the_moderators_language(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await config_in(driver, fake, "fr", "cooldown", seconds=1)
    assert reply.text == (
        "Délai d'attente : désormais **1** seconde entre deux publications `/quiz` dans un salon."
    )
    reply = await config_in(driver, fake, "de", "posting", policy="mods")
    assert reply.text == said("de", "Only moderators may post quizzes with /quiz.")
    assert reply.text != "Only moderators may post quizzes with /quiz."
    reply = await config_in(driver, fake, "pt-BR", "timezone", zone="Europe/Lisbon")
    assert reply.text.startswith("Fuso horário definido como **Europe/Lisbon**.")


async def test_a_zone_it_does_not_know_is_explained_in_the_moderators_language(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await config_in(driver, fake, "de", "timezone", zone="Mars/Olympus")
    assert "ist keine Zeitzone, die ich kenne. Nutze einen IANA-Namen wie Europe/Berlin" in (
        reply.text
    )
    assert "Mars/Olympus" in reply.text
    reply = await config_in(driver, fake, "fr", "timezone", zone="localtime")
    why = "it is whatever zone the host is set to, and moves with it"
    assert said("fr", why) != why and said("fr", why) in reply.text
    assert (await bot.service.guild_config(GUILD_ID)).timezone is None


@pytest.mark.parametrize(
    ("locale", "seconds", "count"),
    [
        ("de", 1, "**1** Sekunde "),
        ("de", 3600, "**3.600** Sekunden "),
        ("fr", 1, "**1** seconde "),
        ("fr", 2, "**2** secondes "),
        ("es", 1, "**1** segundo "),
        ("pt_BR", 45, "**45** segundos "),
        ("en", 1, "**1** second "),
    ],
)
def test_the_cooldown_takes_the_plural_form_and_numbers_of_its_language(
    locale: str, seconds: int, count: str
) -> None:
    with speaking(locale):
        assert cooldown_text(seconds).startswith(count)


def test_french_writes_a_long_cooldown_with_its_own_digit_grouping() -> None:
    with speaking("fr"):
        assert cooldown_text(3600).startswith(f"**{formats.number(3600)}** secondes ")
        assert formats.number(3600) != "3,600"
