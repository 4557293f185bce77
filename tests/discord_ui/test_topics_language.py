"""/topics shows the language a bank's content is written in (its `language:` tag, issue 30)
beside the bank's name, through the real command tree; a bank without one reads as before."""

from __future__ import annotations

from dataclasses import replace

from bot import rendering
from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.standings import topics_embed
from bot.quiz.tasks import Catalog, Difficulty, Task
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import ALICE, FakeDiscordHTTP, command_data, interaction_payload
from tests.factories import choice


def banked(
    task_id: str, bank: str, language: str | None, difficulty: Difficulty = Difficulty.EASY
) -> Task:
    task = choice(task_id, topic="Python", difficulty=difficulty)
    return replace(task, bank=bank, bank_language=language)


CATALOG = Catalog.of(
    [
        banked("de-1", "Python-Grundlagen", "de"),
        banked("de-2", "Python-Grundlagen", "de", difficulty=Difficulty.HARD),
        banked("pt-1", "Python básico", "pt-BR"),
        banked("en-1", "Python basics", None),
    ]
)


async def test_topics_names_each_banks_language(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await bot.service.use_catalog(CATALOG)
    await driver.command("topics")
    reply = fake.last_reply()
    assert reply.ephemeral
    lines = reply.data["embeds"][0]["description"].splitlines()
    assert lines == [
        "**Python**",
        "• Python-Grundlagen · de: 1 easy · 1 hard",
        "• Python básico · pt-BR: 1 easy",
        "• Python basics: 1 easy",
    ]


async def test_a_german_reader_sees_the_tag_as_the_bank_wrote_it(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    """The reply speaks the reader's language; the bank's name and tag stay as written."""
    await bot.service.use_catalog(CATALOG)
    payload = interaction_payload(fake, kind=COMMAND, data=command_data("topics"), member=ALICE)
    payload["locale"] = "de"
    reply = await driver.one_reply(payload)
    description = reply.data["embeds"][0]["description"]
    assert "• Python-Grundlagen · de: " in description
    assert "• Python básico · pt-BR: " in description


def test_many_banks_with_languages_still_fit_one_embed() -> None:
    tasks = [banked(f"t-{n}", f"Bank {n} " + "x" * 80, "zh-Hant-TW") for n in range(300)]
    description = topics_embed(Catalog.of(tasks)).description or ""
    assert len(description) <= rendering.EMBED_DESCRIPTION
    assert "• Bank 0 " + "x" * 80 + " · zh-Hant-TW: 1 easy" in description
