"""A single-pick multi task's post (Moodle's single answer with partial credit): its select
takes exactly one value; a partly right pick says what it earns, two picks use no attempt."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog
from bot.store import answers
from tests.discord_ui.conftest import COMPONENT, STRING_SELECT, Driver
from tests.discord_ui.fakes import ALICE, FakeDiscordHTTP, find_component, interaction_payload
from tests.factories import multi, note

TASK = multi(
    "join-call",
    prompt="Which call gives `a-b`?",
    texts=("'-'.join(['a', 'b'])", "'a' + '-' + 'b'", "['a', 'b'].join('-')"),
    weights=(100, 50, 0),
    single=True,
    mistakes=(note("Works, but not for a list.", "B"),),
)


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([TASK])


async def pick(driver: Driver, message: dict[str, Any], values: Any) -> None:
    select = find_component(message, r"quiz:multi:\d+")
    data = {"custom_id": select["custom_id"], "component_type": STRING_SELECT, "values": values}
    payload = interaction_payload(
        driver.fake, kind=COMPONENT, data=data, member=ALICE, message=message
    )
    await driver.dispatch(payload)


async def test_the_select_takes_exactly_one_option(driver: Driver) -> None:
    post = await driver.post(TASK.id)
    select = find_component(post, r"quiz:multi:\d+")
    assert [o["value"] for o in select["options"]] == ["A", "B", "C"]
    assert (select["min_values"], select["max_values"]) == (1, 1)
    assert select["placeholder"] == "Pick one answer: some earn part of the credit."
    assert post["embeds"][0]["title"].startswith("Multiple choice")


async def test_a_half_pick_says_its_credit_then_the_right_one_scores(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post(TASK.id)
    await pick(driver, post, ["B"])
    half = fake.last_reply()
    assert half.ephemeral
    assert "earns 50% of the answer." in half.text
    assert "Works, but not for a list." in half.text
    await pick(driver, post, ["A"])
    right = fake.last_reply()
    assert "Right" in right.text and "it is!" in right.text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.solved and progress.wrong_tries == 1


async def test_two_picks_forged_past_the_select_use_no_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post(TASK.id)
    await pick(driver, post, ["A", "B"])
    assert "doesn't fit" in fake.last_reply().text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.attempts_used == 0
