"""A numerical task in the real bot process, as a short task's: a burst of numbers submitted
through the real MODAL_SUBMIT spends three attempts, never more, and /review brings the missed
task back; a daily quiz closes naming the wrong number three members typed, however they wrote
it ("3,5", " 3.50 kg", "3500 g" are one value), but not one that only two typed."""

from __future__ import annotations

import asyncio

import pytest
from fakediscord import Driver

from . import test_bot_e2e as base
from .bot_helpers import (
    STEP,
    QuizBotRunner,
    attempts,
    find_custom_id,
    is_ephemeral,
    opened,
    quizbot_with,
    reply_of,
    text_of,
)
from .test_bot_e2e import World, post_quiz, started
from .test_close_typed import closed_a_day_later, daily_posted, typed

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

TASK = "water-mass"
NOTE = "A litre is 1000 ml, not 100."
BANK = f"""\
bank: Physics
topic: Physics
tasks:
  - id: {TASK}
    kind: numerical
    difficulty: easy
    question: A litre of water weighs 1 kg. What do 350 ml of water weigh, in kg?
    answers: ["0.35"]
    units:
      - unit: kg
      - unit: g
        multiplier: 1000
    mistakes:
      - answers: ["3.5"]
        note: {NOTE}
      - Think of how many ml make a litre.
    solution:
      explanation: 350 ml is 0.35 l, so 0.35 kg.
"""


quizbot = quizbot_with({"physics.yaml": BANK})


async def test_a_burst_of_numbers_spends_three_attempts_and_review_brings_it_back(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    modal = await opened(driver, post, f"quiz:type:{post_id}", world.carol)
    guesses = ["3,5", "35 kg", "1", "0.5", "350 g", "2e-1"]
    submits = [driver.submit_modal(modal, {"answer": g}) for g in guesses]
    replies = await asyncio.wait_for(asyncio.gather(*(reply_of(s) for s in submits)), STEP * 2)
    assert all(is_ephemeral(r) for r in replies)
    assert len(attempts(quizbot, post_id, world.carol.id)) == 3
    assert sum("last attempt" in text_of(r) for r in replies) == 1
    public = driver.channel_messages(world.channels["quiz"])
    assert all("3,5" not in text_of(m) for m in public)

    review = await reply_of(
        driver.slash("review", user=world.carol, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review) and "350 ml of water" in text_of(review)
    again = await opened(driver, review, find_custom_id(review, "quiz:type:"), world.carol)
    outcome = await reply_of(driver.submit_modal(again, {"answer": "0,35 kg"}))
    assert is_ephemeral(outcome) and "Right" in text_of(outcome)


async def test_the_close_summary_names_a_wrong_number_three_members_typed(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    daily, run, post_id = await daily_posted(world, quizbot)
    assert quizbot.query("SELECT task_id FROM post WHERE id = ?", post_id)[0][0] == TASK
    said = {
        world.alice: "3,5",
        world.bob: " 3.50 kg",
        world.carol: "3500 g",
        world.dave: "35",
        world.erin: "35,0 kg",
        world.frank: "350 g",
    }
    replies = {
        who: await typed(driver, quizbot, daily, post_id, who, text) for who, text in said.items()
    }
    assert NOTE in replies[world.alice] and NOTE in replies[world.carol]
    assert "Right" in replies[world.frank]
    public = driver.channel_messages(world.channels["daily"])
    assert all("3,5" not in text_of(m) and "3500" not in text_of(m) for m in public)

    summary = await closed_a_day_later(quizbot, daily, run)
    assert "**6** answered · **1** solved" in summary
    assert "**Common mistakes:**" in summary
    assert f"50% typed *3.5 kg* — {NOTE}" in summary
    # Two members (33%, above the share rule) typed 35 kg: too few to be named.
    assert summary.count(" typed *") == 1
