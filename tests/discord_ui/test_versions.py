"""After a content reload: /topics and autocomplete show the new banks at once, while a post
already in the channel keeps its buttons, its picker and its replies as it was posted."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog, Option
from tests.discord_ui.conftest import Driver, choice_task, fill_one_task, fill_two_task
from tests.discord_ui.fakes import FakeDiscordHTTP, walk
from tests.factories import choice

SELECT = 3


def options_of(message: dict[str, Any]) -> list[list[str]]:
    selects = [c for c in walk(message["components"]) if c["type"] == SELECT]
    return [[o["label"] for o in select["options"]] for select in selects]


async def test_topics_and_autocomplete_follow_a_reload_at_once(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await bot.service.use_catalog(
        Catalog.of([choice_task(), choice("new-one", topic="Statistics")])
    )
    await driver.command("topics")
    text = fake.last_reply().text
    assert "**Statistics**" in text and "**Python**" not in text and "2 tasks" in text
    topics = await driver.autocomplete("quiz", "topic", topic="stat")
    assert [c["value"] for c in topics] == ["Statistics"]
    tasks = await driver.autocomplete("quiz", "task", task="")
    assert [c["value"] for c in tasks] == ["mc-split", "new-one"]


async def test_a_posted_choice_keeps_its_buttons_and_notes_after_an_edit(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("mc-split")
    task = choice_task()
    edited = replace(
        task,
        answers=("A",),
        options=tuple(Option(o.label, f"edited {o.text}") for o in task.options),
        mistakes=(),
    )
    await bot.service.use_catalog(Catalog.of([edited, fill_one_task(), fill_two_task()]))

    await driver.click(post, r"quiz:ans:\d+:A")
    wrong = fake.last_reply()
    assert "Not quite" in wrong.text
    assert "Model parallelism splits the model itself." in wrong.text  # A's note as posted
    assert "edited" not in wrong.text
    await driver.click(post, r"quiz:ans:\d+:B")
    assert "Right" in fake.last_reply().text

    fresh = await driver.post("mc-split")
    assert "edited data parallelism" in str(fresh)  # the next post is the edit


async def test_an_open_picker_offers_the_options_it_was_posted_with(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("fill-two")
    task = fill_two_task()
    renamed = replace(task, options=tuple(Option(o.label, o.text.upper()) for o in task.options))
    await bot.service.use_catalog(Catalog.of([renamed]))  # edited, and the others removed

    opened = await driver.click(post, r"quiz:open:\d+")
    picker = fake.response_to(opened)
    as_posted = ["A · to_device", "B · devices_typo", "C · device_list", "D · cpu"]
    assert options_of(picker) == [as_posted, as_posted]
    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    await driver.select(picker, r"quiz:pick:\d+:2:A-", "C")
    await driver.click(picker, r"quiz:submit:\d+:AC")
    assert "Right" in fake.last_reply().text
