"""The slash commands' replies in the reader's language: a private reply in the member's
(their Discord client's locale), the public leaderboard in the server's; counts in each
language's plural forms and numbers as it writes them. Expected texts are looked up in the
shipped catalogs, with one literal sentence per area."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs import help as help_cog
from bot.discord_ui.cogs.mydata import deleted_text
from bot.discord_ui.cogs.standings import stats_embed, topics_embed
from bot.i18n import N_, _, formats, speaking
from bot.quiz.tasks import Catalog
from bot.reports.items import Figure, Flag
from bot.store import MemberStats
from tests.discord_ui import test_insights_cog
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import (
    ALICE,
    CHANNEL_ID,
    GUILD_ID,
    MOD,
    Call,
    FakeDiscordHTTP,
    Member,
    command_data,
    interaction_payload,
)
from tests.discord_ui.test_help import sections
from tests.discord_ui.test_insights_cog import fields, insights_data
from tests.discord_ui.test_schedule_cog import subcommand_data
from tests.factories import choice


def said(locale: str, message: str) -> str:
    """`message` as the catalog of `locale` has it."""
    with speaking(locale):
        return _(message)


KEPT = "**What I keep about you in this server**"


async def reply_in(
    driver: Driver, fake: FakeDiscordHTTP, locale: str, data: dict[str, Any], member: Member
) -> Call:
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=member)
    payload["locale"] = locale
    return await driver.one_reply(payload)


async def test_help_in_german_lists_the_commands_german_descriptions(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    shown = sections(await reply_in(driver, fake, "de", command_data("help"), ALICE))
    play = said("de", help_cog.PLAY)
    assert play != help_cog.PLAY and play in shown
    assert said("de", help_cog.PRACTICE) in shown
    # The description is the one the Translator serves Discord: one text, one owner.
    line = "`/quiz [topic] [difficulty] [task]` — Stellt eine Übungsaufgabe in diesen Kanal."
    assert line in shown[play]
    description = "The commands you may use here, grouped."  # /help's own, not listed
    assert all(said("de", description) not in line for lines in shown.values() for line in lines)


async def test_a_german_moderators_mydata_reply_is_in_german(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split", member=MOD)
    await driver.click(post, r"quiz:ans:\d+:B", member=MOD)
    reply = await reply_in(driver, fake, "de", subcommand_data("mydata", "show"), MOD)
    assert reply.ephemeral
    assert reply.text.startswith("**Was ich auf diesem Server über dich speichere**")
    assert "Antworten: 1 Antwort (1 richtig), am <t:" in reply.text
    english = await reply_in(driver, fake, "en-US", subcommand_data("mydata", "show"), MOD)
    assert english.text.startswith("**What I keep about you in this server**")


async def test_the_leaderboard_speaks_the_servers_language_not_the_members(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=ALICE)
    board = await reply_in(driver, fake, "de", command_data("leaderboard", period="all"), ALICE)
    assert not board.ephemeral
    assert board.data["embeds"][0]["title"] == "🏆 Leaderboard · all time"

    await bot.service.update_guild_config(GUILD_ID, language="fr")
    bot.languages.remember(GUILD_ID, "fr")
    board = await reply_in(driver, fake, "de", command_data("leaderboard", period="all"), ALICE)
    (embed,) = board.data["embeds"]
    assert embed["title"] == "🏆 Classement · depuis le début"
    tie = "Ties: more solved first, then whoever reached the score first."
    assert embed["footer"]["text"] == said("fr", tie) != tie


async def test_a_schedule_reply_is_in_the_moderators_language(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    info = await bot.scheduler.add_schedule(
        guild_id=GUILD_ID,
        channel_id=CHANNEL_ID,
        local_time="08:00",
        timezone="UTC",
        created_by=MOD.id,
    )
    data = subcommand_data("schedule", "resume", id=info.id)
    reply = await reply_in(driver, fake, "de", data, MOD)
    assert reply.ephemeral
    assert reply.text == f"Tagesquiz **#{info.id}** ist nicht pausiert."


STATS = MemberStats(
    tried=4,
    solved=3,
    first_try=2,
    first_try_rate=0.5,
    points=1234,
    practice_points=0,
    streak_days=0,
    last_active=None,
)


@pytest.mark.parametrize(
    ("locale", "days", "streak"),
    [
        ("de", 0, "0 Tage"),
        ("de", 1, "1 Tag"),
        ("fr", 0, "0 jour"),  # French counts 0 as singular
        ("fr", 1, "1 jour"),
        ("fr", 2, "2 jours"),
        ("en", 0, "0 days"),
    ],
)
def test_a_streak_takes_the_plural_form_of_its_language(
    locale: str, days: int, streak: str
) -> None:
    with speaking(locale):
        embed = stats_embed("ada", replace(STATS, streak_days=days))
        fields = {f.name: f.value for f in embed.fields}
        assert fields[_("Streak")] == streak
        assert fields[_("Points")] == formats.number(1234)


def test_figures_are_written_as_the_readers_language_writes_numbers() -> None:
    with speaking("de"):
        fields = {f.name: f.value for f in stats_embed("ada", STATS).fields}
    assert fields["Punkte"] == "1.234"
    assert fields["Beim ersten Versuch"] == "2 (50\xa0% der versuchten)"  # Babel's no-break space


def test_topics_count_their_tasks_in_the_readers_plural() -> None:
    catalog = Catalog.of([choice("a", topic="Git"), choice("b", topic="Git")])
    with speaking("de"):
        embed = topics_embed(catalog)
    assert embed.title == "📚 Themen"
    assert embed.footer.text == "2 Aufgaben · /quiz topic:<Name> stellt eine"


def test_a_deletion_lists_what_went_in_french() -> None:
    with speaking("fr"):
        text = deleted_text({"attempt": 1, "score": 2, "post.posted_by": 0})
    assert "(1 réponse, 2 exercices terminés, 0 publication faite avec /quiz" in text
    assert text.startswith("🗑️ C'est fait : j'ai effacé tout ce que je gardais sur toi")


# -- /insights ---------------------------------------------------------------------------------

seeded = test_insights_cog.seeded  # the fixture: yesterday's answers on mc-split


async def insights_in(
    driver: Driver, fake: FakeDiscordHTTP, locale: str, **options: Any
) -> dict[str, str]:
    reply = await reply_in(driver, fake, locale, insights_data(**options), MOD)
    assert reply.ephemeral != options.get("post", False)
    return fields(reply)


async def test_insights_speak_the_moderators_language_and_the_servers_when_posted(
    seeded: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    shown = await insights_in(driver, fake, "de")
    assert shown["title"] == "🔎 Einblicke · die letzten 7 Tage"
    participation = shown[said("de", "Participation")]
    assert "**3** Mitglieder · **5** Versuche · aktivster Tag Di., 11. März" in participation

    await seeded.service.update_guild_config(GUILD_ID, language="fr")
    seeded.languages.remember(GUILD_ID, "fr")
    posted = await insights_in(driver, fake, "de", period="month", post=True)
    assert posted["title"] == "🔎 Aperçu · les 30 derniers jours"
    assert "**3** membres · **5** essais" in posted["Participation"]


def test_a_flag_figure_is_english_for_the_export_and_translated_for_a_moderator() -> None:
    figure = Figure(
        N_("facility {facility} ({first_try}/{answered})"),
        facility=0.92,
        first_try=11,
        answered=12,
    )
    assert figure == "facility 0.92 (11/12)"  # what `quizbot export items` writes
    with speaking("de"):
        assert figure == "facility 0.92 (11/12)"
        assert figure.shown() == "Leichtigkeitsindex 0,92 (11/12)"
    with speaking("fr"):
        assert _(Flag.TOO_EASY.label) == "trop facile"
