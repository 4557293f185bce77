"""A multi task in the real bot process: a member picks several options in the post's select
and gets a private reply with the wrong pick's note; a burst of submits spends three attempts,
never more; /review brings the missed task back with its select."""

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
    quizbot_with,
    reply_of,
    select,
    text_of,
)
from .test_bot_e2e import World, post_quiz, started

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

TASK = "py-mutable"
BANK = f"""\
bank: Python types
topic: Python
tasks:
  - id: {TASK}
    kind: multi
    difficulty: medium
    question: Which of these types are mutable?
    options: [list, tuple, dict, str, frozenset]
    answers: [A, C]
    show_count: true
    hint: Can you change it after you made it?
    solution:
      explanation: Lists and dicts change in place; the others never do.
    mistakes:
      - note: A tuple cannot change after it is made.
        options: [B]
"""


quizbot = quizbot_with({"types.yaml": BANK})


async def test_a_member_answers_a_multi_post_privately_and_gets_the_note(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    assert f"quiz:multi:{post_id}" in custom_ids(post)
    assert "Pick the 2 right answers." in text_of(post)

    wrong = await reply_of(
        select(driver, post, f"quiz:multi:{post_id}", ["A", "B"], user=world.bob)
    )
    assert is_ephemeral(wrong)
    said = text_of(wrong)
    assert "1 right, 1 wrong: 0% of the answer" in said
    assert "A tuple cannot change after it is made." in said
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "A,B")]

    right = await reply_of(
        select(driver, post, f"quiz:multi:{post_id}", ["C", "A"], user=world.bob)
    )
    assert is_ephemeral(right) and "Right" in text_of(right)
    assert "**13** points" in text_of(right)  # 20 × 2/3: one miss
    assert attempts(quizbot, post_id, world.bob.id) == [(1, "A,B"), (2, "A,C")]
    # Nothing of bob's picks reached the channel: only the post is there.
    public = driver.channel_messages(world.channels["quiz"])
    assert all("tuple cannot change" not in text_of(m) for m in public)


async def test_a_burst_of_submits_spends_three_attempts_and_review_brings_it_back(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", TASK)
    sets = [["B"], ["D"], ["E"], ["B", "D"], ["A"], ["C", "E"]]  # six wrong sets at once
    clicks = [
        select(driver, post, f"quiz:multi:{post_id}", picks, user=world.carol) for picks in sets
    ]
    replies = await asyncio.wait_for(asyncio.gather(*(reply_of(c) for c in clicks)), STEP * 2)
    assert all(is_ephemeral(r) for r in replies)
    assert len(attempts(quizbot, post_id, world.carol.id)) == 3
    texts = [text_of(r) for r in replies]
    assert sum("last attempt" in t for t in texts) == 1

    review = await reply_of(
        driver.slash("review", user=world.carol, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review) and TASK in text_of(review)
    chosen = find_custom_id(review, "quiz:multi:")
    outcome = await reply_of(select(driver, review, chosen, ["A", "C"], user=world.carol))
    assert is_ephemeral(outcome) and "Right" in text_of(outcome)
