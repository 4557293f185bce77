"""The hint ladder through real discord.py objects: the post's Hint button says what a click
costs, each private reply shows the hints seen with a button for the next one, and a task
without a hint has no button (and /hint says so, charging nothing)."""

from __future__ import annotations

import pytest

from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog, Difficulty, Solution
from bot.store import answers
from tests.discord_ui.conftest import Driver, choice_task
from tests.discord_ui.fakes import ALICE, BOB, FakeDiscordHTTP, find_component, walk
from tests.factories import choice

LADDER = choice(
    "ladder",
    topic="MLOps",
    prompt="Which strategy copies the full model to every worker?",
    texts=("model parallelism", "data parallelism", "pipeline flushing"),
    answer="B",
    hints=("Think about what gets copied.", "Not the model itself.", "Its name has data in it."),
    solution=Solution(explanation="Data parallelism copies the model and splits the data."),
    difficulty=Difficulty.HARD,
)
BARE = choice("bare", topic="MLOps", texts=("yes", "no"), hints=())


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([choice_task(), LADDER, BARE])


def labels(message: dict) -> list[str]:
    return [c.get("label", "") for c in walk(message.get("components") or [])]


async def test_a_member_climbs_the_ladder_and_each_hint_halves_the_points(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("ladder")
    assert "3 hints (each halves the points)" in labels(post)

    first = await driver.click(post, r"quiz:hint:\d+")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "Hint 1 of 3" in reply.text and "Think about what gets copied." in reply.text
    assert "Not the model itself." not in reply.text
    assert "halved" in reply.text
    following = find_component(fake.response_to(first), r"quiz:hint:\d+")
    assert following["label"] == "Hint 2 of 3 (halves the points)"

    second = await driver.click(fake.response_to(first), r"quiz:hint:\d+")
    reply = fake.last_reply()
    assert reply.ephemeral
    # The one seen again, then the next: 1/4 of the points now.
    assert "Think about what gets copied." in reply.text and "Not the model itself." in reply.text
    assert "Its name has data in it." not in reply.text
    assert "1/4" in reply.text
    assert find_component(fake.response_to(second), r"quiz:hint:\d+")["label"].startswith(
        "Hint 3 of 3"
    )
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.hints_seen == 2

    await driver.click(post, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert "**8** points" in reply.text  # 30 halved twice, rounded half up
    assert "halved for each of the 2 hints" in reply.text

    # Bob has seen none: the post's button starts him at the first, at full price.
    await driver.click(post, r"quiz:hint:\d+", member=BOB)
    assert "Hint 1 of 3" in fake.last_reply().text
    assert "Not the model itself." not in fake.last_reply().text


async def test_a_hint_seen_again_is_free_and_after_finishing_all_are_shown(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("ladder")
    for _ in range(4):
        await driver.command("hint")
    reply = fake.last_reply()
    assert "costs nothing more" in reply.text
    assert "Its name has data in it." in reply.text
    await driver.click(post, r"quiz:ans:\d+:B")
    assert "**4** points" in fake.last_reply().text  # 30 / 8: three hints, not four

    command = await driver.command("hint")
    reply = fake.last_reply()
    assert "every hint is free" in reply.text
    assert reply.text.count("Hint ") >= 3
    assert not [c for c in walk(fake.response_to(command).get("components") or [])]


async def test_a_task_without_a_hint_has_no_button_and_hint_charges_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("bare")
    assert not [label for label in labels(post) if "Hint" in label or "hint" in label]
    await driver.command("hint")
    reply = fake.last_reply()
    assert reply.ephemeral and "has no hint" in reply.text
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).hints_seen == 0
    await driver.click(post, r"quiz:ans:\d+:B")
    assert "Stuck?" not in fake.last_reply().text  # no Hint button to point at
    await driver.click(post, r"quiz:ans:\d+:A")
    assert "**7** points" in fake.last_reply().text  # a miss costs, no hint was charged
    assert "halved" not in fake.last_reply().text


async def test_one_hint_keeps_its_plain_button(driver: Driver, fake: FakeDiscordHTTP) -> None:
    post = await driver.post("mc-split")
    assert "Hint (halves the points)" in labels(post)
    reply_to = await driver.click(post, r"quiz:hint:\d+")
    assert "💡 Hint" in fake.last_reply().text and "of 1" not in fake.last_reply().text
    assert not (fake.response_to(reply_to).get("components") or [])
