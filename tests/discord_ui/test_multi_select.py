"""A multi task's post: one select of every option, several values; closing it submits the set
as one attempt, and the reply is private, with each wrong pick's note."""

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
    "types-mutable",
    prompt="Which of these types are mutable?",
    texts=("list", "tuple", "dict", "str"),
    answers=("A", "C"),
    show_count=True,
    mistakes=(note("A tuple cannot change after it is made.", "B"),),
)


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([TASK])


async def pick(driver: Driver, message: dict[str, Any], values: Any) -> dict[str, Any]:
    select = find_component(message, r"quiz:multi:\d+")
    data = {"custom_id": select["custom_id"], "component_type": STRING_SELECT, "values": values}
    payload = interaction_payload(
        driver.fake, kind=COMPONENT, data=data, member=ALICE, message=message
    )
    await driver.dispatch(payload)
    return payload


async def test_the_post_offers_one_select_of_every_option_and_says_how_many_are_right(
    driver: Driver,
) -> None:
    post = await driver.post(TASK.id)
    select = find_component(post, r"quiz:multi:\d+")
    assert [o["value"] for o in select["options"]] == ["A", "B", "C", "D"]
    assert (select["min_values"], select["max_values"]) == (1, 4)
    assert select["placeholder"] == "Pick the 2 right answers."
    assert "Pick the 2 right answers." in post["embeds"][0]["description"]


async def test_a_wrong_set_is_one_attempt_with_the_note_then_the_right_set_scores(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post(TASK.id)
    await pick(driver, post, ["A", "B"])
    wrong = fake.last_reply()
    assert wrong.ephemeral
    assert "1 right, 1 wrong: 0% of the answer" in wrong.text
    assert "A tuple cannot change after it is made." in wrong.text
    assert "**2** attempts left" in wrong.text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.wrong_tries == 1

    await pick(driver, post, ["B", "A"])  # the same set: no attempt
    assert "didn't use an attempt" in fake.last_reply().text

    await pick(driver, post, ["C", "A"])
    right = fake.last_reply()
    assert right.ephemeral and "Right" in right.text
    assert "**13** points" in right.text  # 20 × 2/3, one miss
    rows = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert rows.solved and rows.points == 13


@pytest.mark.parametrize("values", [[], None, ["A", 3], ["Z"]], ids=["none", "null", "number", "z"])
async def test_a_blank_or_forged_set_uses_no_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, values: Any
) -> None:
    post = await driver.post(TASK.id)
    await pick(driver, post, values)
    reply = fake.last_reply()
    assert reply.ephemeral
    if values == []:
        assert "no attempt was used" in reply.text
    else:
        assert "doesn't fit" in reply.text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.attempts_used == 0


async def test_a_last_partial_set_earns_its_share_and_says_so_afterwards(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post(TASK.id)
    for picks in (["B"], ["D"]):
        await pick(driver, post, picks)
    await pick(driver, post, ["A"])  # half the answer, on the last attempt
    last = fake.last_reply()
    assert "1 right, 0 wrong: 50% of the answer, which earns you **3** points" in last.text
    assert "Every pick is right, but at least one right option is missing." in last.text
    assert "Solution" in last.text
    await pick(driver, post, ["A", "C"])
    assert "the right part of your last one earned **3** points" in fake.last_reply().text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.finished and not progress.solved and progress.points == 3


async def test_hint_and_solution_work_on_a_multi_post(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post(TASK.id)
    await driver.command("hint")
    assert "Two of them." in fake.last_reply().text
    await pick(driver, post, ["A", "C"])
    assert "**10** points" in fake.last_reply().text  # 20, halved for the hint
    await driver.command("solution")
    solution = fake.last_reply()
    assert solution.ephemeral and "Final answer:** list; dict" in solution.text
