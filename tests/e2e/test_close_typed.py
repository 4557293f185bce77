"""A daily quiz with a typed answer closes with the group's common wrong answer: three members
typing "lyon" however they spell its case and spaces are one answer, named in the channel's
summary with its note; an answer only two members gave is not named, so no one is singled out."""

from __future__ import annotations

from typing import Any

import pytest
from fakediscord import Driver, Member, Message

from . import test_bot_e2e as base
from .bot_helpers import (
    QuizBotRunner,
    attempts,
    is_ephemeral,
    opened,
    quizbot_with,
    reply_of,
    text_of,
)
from .daily_helpers import daily_quiz_closed, daily_quiz_posted
from .test_bot_e2e import World, started

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
    mistakes:
      - answers: [Lyon]
        note: A large city, but not the capital.
      - Think of the Eiffel Tower.
    solution:
      explanation: Paris has been the capital since 987.
"""


quizbot = quizbot_with({"geo.yaml": BANK})


async def daily_posted(world: World, quizbot: QuizBotRunner) -> tuple[Message, Any, int]:
    """Today's daily quiz of the easy tasks (`daily_quiz_posted`): the post, its run and its
    post id."""
    channel = world.channels["daily"]
    daily, run = await daily_quiz_posted(quizbot, world.owner, channel, difficulty="easy")
    return daily, run, int(run["post_ids"])


async def closed_a_day_later(quizbot: QuizBotRunner, daily: Message, run: Any) -> str:
    """The next day (`daily_quiz_closed`): the closed post's summary."""
    closed = await daily_quiz_closed(quizbot, daily, run)
    return str(closed["content"])


async def typed(
    driver: Driver, quizbot: QuizBotRunner, daily: Message, post_id: int, who: Member, text: str
) -> str:
    modal = await opened(driver, daily, f"quiz:type:{post_id}", who)
    reply = await reply_of(driver.submit_modal(modal, {"answer": text}))
    assert is_ephemeral(reply), reply
    assert len(attempts(quizbot, post_id, who.id)) == 1
    return text_of(reply)


async def test_the_close_summary_names_a_wrong_answer_three_members_typed(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    daily, run, post_id = await daily_posted(world, quizbot)
    assert quizbot.query("SELECT task_id FROM post WHERE id = ?", post_id)[0][0] == TASK
    said = {
        world.alice: "lyon",
        world.bob: "  Lyon ",
        world.carol: "LYON",
        world.dave: "Marseille",
        world.erin: "marseille ",
        world.frank: "Paris",
    }
    for who, text in said.items():
        await typed(driver, quizbot, daily, post_id, who, text)
    # Nobody's typed answer reached the channel while the quiz was open.
    public = driver.channel_messages(world.channels["daily"])
    assert all("lyon" not in text_of(m).casefold() for m in public)

    summary = await closed_a_day_later(quizbot, daily, run)
    assert "**6** answered · **1** solved" in summary
    assert "**Common mistakes:**" in summary
    assert "50% typed *lyon* — A large city, but not the capital." in summary
    # Two members (33%, above the share rule) typed Marseille: too few to be named.
    assert "marseille" not in summary.casefold()
