"""A short task in the real bot process: a member presses Answer, types into the modal and
gets a private reply with the known mistake's note, through the real MODAL_SUBMIT; a typo is
forgiven with the expected spelling; a blank answer uses no attempt; a burst of submits spends
three attempts, never more; /review brings the missed task back with its Answer button. A
numerical task takes a decimal comma and a unit, and text that is no number uses no attempt."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import Driver

from . import test_bot_e2e as base
from .bot_helpers import (
    STEP,
    QuizBotRunner,
    attempts,
    custom_ids,
    find_custom_id,
    is_ephemeral,
    opened,
    quizbot_with,
    reply_of,
    text_of,
)
from .test_bot_e2e import World, post_quiz, started

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

TASK = "capital-fr"
BANK = f"""\
bank: Geography
topic: Geography
tasks:
  - id: {TASK}
    kind: short
    difficulty: easy
    question: What is the capital of France?
    answers: [Paris]
    typos: 1
    mistakes:
      - answers: [Lyon, Marseille]
        note: A large city, but not the capital.
      - Think of the Eiffel Tower.
    solution:
      explanation: Paris has been the capital since 987.
  - id: gravity
    kind: numerical
    difficulty: medium
    question: The acceleration due to gravity at the surface, in m/s²?
    answers: ["9.81:0.05"]
    units:
      - unit: m/s²
      - unit: cm/s²
        multiplier: 100
    solution:
      explanation: About 9.81 m/s².
"""


quizbot = quizbot_with({"geo.yaml": BANK})


async def test_a_member_types_an_answer_privately_and_gets_the_note(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    assert f"quiz:type:{post_id}" in custom_ids(post)
    modal = await opened(driver, post, f"quiz:type:{post_id}", world.bob)

    blank = await reply_of(driver.submit_modal(modal, {"answer": "   "}))
    assert is_ephemeral(blank) and "no attempt was used" in text_of(blank)
    assert attempts(quizbot, post_id, world.bob.id) == []

    wrong = await reply_of(driver.submit_modal(modal, {"answer": "  lyon "}))
    assert is_ephemeral(wrong)
    assert "A large city, but not the capital." in text_of(wrong)
    assert "**lyon** isn't it" in text_of(wrong)
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "lyon")]

    right = await reply_of(driver.submit_modal(modal, {"answer": "Pairs"}))
    assert is_ephemeral(right) and "Right" in text_of(right)
    assert "Accepted as **Paris**, the expected spelling." in text_of(right)
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "lyon"), (2, "Pairs")]
    public = driver.channel_messages(world.channels["quiz"])
    assert all("lyon" not in text_of(m) and "Pairs" not in text_of(m) for m in public)


async def test_a_burst_of_submits_spends_three_attempts_and_review_brings_it_back(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    modal = await opened(driver, post, f"quiz:type:{post_id}", world.carol)
    guesses = ["Nice", "Lille", "Lyon", "Nantes", "Brest", "Toulouse"]
    submits = [driver.submit_modal(modal, {"answer": g}) for g in guesses]
    replies = await asyncio.wait_for(asyncio.gather(*(reply_of(s) for s in submits)), STEP * 2)
    assert all(is_ephemeral(r) for r in replies)
    assert len(attempts(quizbot, post_id, world.carol.id)) == 3
    assert sum("last attempt" in text_of(r) for r in replies) == 1

    review = await reply_of(
        driver.slash("review", user=world.carol, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review) and "capital of France" in text_of(review)
    again = await opened(driver, review, find_custom_id(review, "quiz:type:"), world.carol)
    outcome = await reply_of(driver.submit_modal(again, {"answer": "paris"}))
    assert is_ephemeral(outcome) and "Right" in text_of(outcome)


async def test_a_numerical_answer_reads_units_and_text_that_is_no_number_uses_no_attempt(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", "gravity")
    modal = await opened(driver, post, f"quiz:type:{post_id}", world.dave)
    nan = await reply_of(driver.submit_modal(modal, {"answer": "about ten"}))
    assert is_ephemeral(nan) and "isn't a number" in text_of(nan)
    assert attempts(quizbot, post_id, world.dave.id) == []
    right = await reply_of(driver.submit_modal(modal, {"answer": "981 cm/s²"}))
    assert is_ephemeral(right) and "Right" in text_of(right)
    assert attempts(quizbot, post_id, world.dave.id) == [(1, "981 cm/s²")]
