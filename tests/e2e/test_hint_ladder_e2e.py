"""A hint ladder in the real bot process: a member sees hint 1 on the post's button, then hint
2 from the button in that private reply, and a right answer earns the points halved twice; a
task without a hint posts no Hint button and /hint says so, charging nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import DiscordEmulator, Driver

from . import test_bot_e2e as base
from .bot_helpers import (
    QuizBotRunner,
    banks_env,
    checked_bot,
    click,
    custom_ids,
    is_ephemeral,
    reply_of,
    text_of,
)
from .test_bot_e2e import World, answer, post_quiz, started

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

LADDER, BARE = "net-ladder", "net-bare"
BANK = f"""\
bank: Networking
topic: Networking
tasks:
  - id: {LADDER}
    kind: choice
    difficulty: hard
    question: Which layer does IP belong to?
    options: [Network, Transport, Link]
    answer: A
    hints:
      - It sits below TCP.
      - It routes packets between networks.
      - Its name is in the answer's option.
    solution:
      final_answer: Network
  - id: {BARE}
    kind: choice
    difficulty: easy
    question: Is TCP connection-oriented?
    options: ["Yes", "No"]
    answer: A
    solution:
      final_answer: "Yes"
"""


@pytest_asyncio.fixture
async def quizbot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
    env = banks_env(tmp_path, {"networking.yaml": BANK})
    async with checked_bot(emulator, tmp_path, env=env) as bot:
        yield bot


def labels(message: dict) -> list[str]:
    return [
        c.get("label", "")
        for row in message.get("components") or []
        for c in row.get("components") or []
    ]


async def test_a_member_sees_hint_1_then_2_and_the_points_are_halved_twice(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", LADDER)
    assert "3 hints (each halves the points)" in labels(post)

    first = await reply_of(click(driver, post, f"quiz:hint:{post_id}", user=world.bob))
    assert is_ephemeral(first)
    assert "Hint 1 of 3" in text_of(first) and "It sits below TCP." in text_of(first)
    assert "routes packets" not in text_of(first)
    assert custom_ids(first) == [f"quiz:hint:{post_id}"]
    assert labels(first) == ["Hint 2 of 3 (halves the points)"]

    second = await reply_of(click(driver, first, f"quiz:hint:{post_id}", user=world.bob))
    assert is_ephemeral(second)
    said = text_of(second)
    assert "It sits below TCP." in said and "It routes packets between networks." in said
    assert "Its name is in" not in said and "1/4" in said
    [row] = quizbot.query(
        "SELECT kind, hints FROM reveal WHERE post_id = ? AND user_id = ?", post_id, world.bob.id
    )
    assert (row["kind"], row["hints"]) == ("hint", 2)

    right = await answer(driver, post, post_id, "A", world.bob)
    assert "**8** points" in right and "halved for each of the 2 hints" in right  # 30 / 4
    # Nothing of bob's hints reached the channel: only the post is there.
    public = driver.channel_messages(world.channels["quiz"])
    assert all("It sits below TCP." not in text_of(m) for m in public)


async def test_a_task_without_a_hint_has_no_button_and_hint_charges_nothing(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", BARE)
    assert f"quiz:hint:{post_id}" not in custom_ids(post)
    channel = world.channels["quiz"]
    reply = await reply_of(driver.slash("hint", user=world.carol, channel=channel))
    assert is_ephemeral(reply) and "This task has no hint" in text_of(reply)
    assert quizbot.query("SELECT * FROM reveal WHERE post_id = ?", post_id) == []
    assert "**10** points" in await answer(driver, post, post_id, "A", world.carol)
