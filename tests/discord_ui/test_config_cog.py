"""/config show and /config cooldown through the real command tree, from raw interaction
payloads: who may use them, what they show and store, and how /quiz follows the cooldown."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.store import GuildConfigInfo
from bot.store.guild_config import CONFIG_FIELDS
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    GUILD_ID,
    MOD,
    Call,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
)
from tests.discord_ui.test_schedule_cog import (
    REFUSED,
    TUTOR,
    TUTORS,
    cache_guild,
    subcommand_data,
)

INTEGER = 4


async def config(
    driver: Driver,
    fake: FakeDiscordHTTP,
    sub: str,
    *,
    member: Member = MOD,
    guild: bool = True,
    **options: Any,
) -> Call:
    data = subcommand_data("config", sub, **options)
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=member, guild=guild)
    reply = await driver.one_reply(payload)
    assert reply.ephemeral
    return reply


def fields(call: Call) -> dict[str, str]:
    (embed,) = call.data["embeds"]
    return {f["name"]: f["value"] for f in embed["fields"]}


async def test_show_gives_a_moderator_the_defaults_at_a_glance(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    shown = fields(await config(driver, fake, "show"))
    assert shown == {
        "Time zone": "**UTC** (the bot's default: none set here) · `/config timezone`",
        "Moderators": "members with Manage Server · `/config modrole`",
        "Who may post with /quiz": "anyone · `/config posting`",
        "Cooldown": "**30** seconds between `/quiz` posts in one channel · `/config cooldown`",
        "Daily quizzes": "**0** · `/schedule list`",
        "Own banks": "**0** · `/bank list`",
        "Language": (
            "none: public messages in **English**, private replies in each member's"
            " · `/config language`"
        ),
    }
    assert fake.posts() == []


SET: dict[str, tuple[Any, str, str]] = {
    "timezone": ("Asia/Tokyo", "Time zone", "**Asia/Tokyo** · `/config timezone`"),
    "mod_role_id": (TUTORS, "Moderators", f"<@&{TUTORS}> and members with Manage Server"),
    "post_policy": ("mods", "Who may post with /quiz", "moderators only"),
    "cooldown_seconds": (0, "Cooldown", "none: `/quiz` may post in a channel at any time"),
    "language": ("fr", "Language", "**français** · `/config language`"),
}
"""Each setting: a value other than the default, the field that shows it, what it says."""


@pytest.mark.parametrize("setting", sorted(CONFIG_FIELDS))
async def test_show_shows_every_setting(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP, setting: str
) -> None:
    """A new setting fails here (a KeyError) until /config show shows it."""
    value, field, says = SET[setting]
    await bot.service.update_guild_config(GUILD_ID, **{setting: value})
    assert says in fields(await config(driver, fake, "show"))[field]


async def test_the_mod_role_may_use_them_and_a_member_may_not(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    cache_guild(bot)  # the member's roles resolve through the guild cache
    refused = await config(driver, fake, "show", member=TUTOR)
    assert REFUSED in refused.text and "Time zone" not in refused.text
    await bot.service.update_guild_config(GUILD_ID, mod_role_id=TUTORS)
    assert "Time zone" in fields(await config(driver, fake, "show", member=TUTOR))
    assert (await config(driver, fake, "cooldown", member=TUTOR, seconds=5)).text.startswith(
        "Cooldown: **5** seconds"
    )
    assert (await bot.service.guild_config(GUILD_ID)).cooldown_seconds == 5


@pytest.mark.parametrize(
    ("sub", "options"), [("show", {}), ("cooldown", {"seconds": 0})], ids=["show", "cooldown"]
)
async def test_a_members_raw_payload_is_refused_and_changes_nothing(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    sub: str,
    options: dict[str, Any],
) -> None:
    """Discord hides /config from ALICE; her crafted payload still reaches the bot."""
    await bot.service.update_guild_config(GUILD_ID, cooldown_seconds=45)
    reply = await config(driver, fake, sub, member=ALICE, **options)
    assert REFUSED in reply.text
    assert reply.data.get("embeds") in (None, [])
    assert await bot.service.guild_config(GUILD_ID) == GuildConfigInfo(
        GUILD_ID, cooldown_seconds=45
    )
    dm = await config(driver, fake, sub, member=MOD, guild=False, **options)
    assert dm.text == "This command only works in a server."
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize("seconds", [-1, 3601, 10**9, "30", 2.5, True])
async def test_a_cooldown_out_of_range_gets_a_kind_reply_and_changes_nothing(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    seconds: object,
) -> None:
    reply = await config(driver, fake, "cooldown", seconds=seconds)
    assert reply.text == "The `seconds` option takes a whole number from 0 to 3,600."
    assert await bot.service.guild_config(GUILD_ID) == GuildConfigInfo(GUILD_ID)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_quiz_follows_a_changed_cooldown_at_once(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    assert "**3,600** seconds" in (await config(driver, fake, "cooldown", seconds=3600)).text
    await driver.command("quiz", task="mc-split")
    await driver.command("quiz", task="fill-one", member=BOB)
    assert "moments ago" in fake.last_reply().text
    assert "in 3,600 s" in fake.last_reply().text
    # Lowered, it applies to the post made before it too.
    said = (await config(driver, fake, "cooldown", seconds=0)).text
    assert said == "Cooldown: none: `/quiz` may post in a channel at any time, from now on."
    await driver.command("quiz", task="fill-one", member=BOB)
    await driver.command("quiz", task="mc-split")
    assert len(fake.posts()) == 3
    # Raised again, it counts from the last post.
    await config(driver, fake, "cooldown", seconds=600)
    await driver.command("quiz", task="fill-one", member=BOB)
    assert "moments ago" in fake.last_reply().text
    assert len(fake.posts()) == 3


# -- /config language ----------------------------------------------------------------------------


async def test_language_sets_the_public_language_and_follow_each_member_clears_it(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    said = (await config(driver, fake, "language", language="de")).text
    assert said.startswith("Public messages here now speak **Deutsch**")
    assert (await bot.service.guild_config(GUILD_ID)).language == "de"
    assert await bot.languages.public_locale(GUILD_ID) == "de"
    assert "**Deutsch** · `/config language`" in fields(await config(driver, fake, "show"))[
        "Language"
    ]
    said = (await config(driver, fake, "language", language="member")).text
    assert said.startswith("No server language: public messages follow")
    assert "**English** now" in said
    assert (await bot.service.guild_config(GUILD_ID)).language is None
    assert await bot.languages.public_locale(GUILD_ID) == "en"
    assert fake.posts() == []


async def test_the_reply_speaks_the_moderators_own_language(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    data = subcommand_data("config", "language", language="fr")
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=MOD)
    payload["locale"] = "de"
    reply = await driver.one_reply(payload)
    assert reply.text.startswith("Öffentliche Nachrichten sind hier jetzt auf **français**")


@pytest.mark.parametrize("language", ["xx", "pt-BR", "", 3])
async def test_a_language_not_offered_gets_a_kind_reply_and_changes_nothing(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    language: object,
) -> None:
    reply = await config(driver, fake, "language", language=language)
    assert reply.text == "The `language` option takes one of the languages offered."
    assert await bot.service.guild_config(GUILD_ID) == GuildConfigInfo(GUILD_ID)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_member_may_not_set_the_language(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await config(driver, fake, "language", member=ALICE, language="es")
    assert REFUSED in reply.text
    assert (await bot.service.guild_config(GUILD_ID)).language is None
