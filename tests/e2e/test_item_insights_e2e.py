"""Item analysis in the real bot process: after a scripted group answers a public post, a
moderator's /insights tasks shows the task flagged (and the group's label beside the author's),
and a member's crafted request is refused."""

from __future__ import annotations

import pytest
from fakediscord import Driver

from . import test_bot_e2e as base
from .bot_helpers import ANSWERS, QuizBotRunner, click, is_ephemeral, raw_command, reply_of
from .test_bot_e2e import MC1, World, post_quiz, started

pytestmark = pytest.mark.e2e

world = base.world
quizbot = base.quizbot
quizbot_backend = base.quizbot_backend


async def test_a_moderator_sees_a_flagged_task_and_a_member_is_refused(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    (right,) = ANSWERS[MC1]
    group = [driver.add_member(world.guild, f"student{n}") for n in range(10)]
    for member in group:  # ten first tries, all right: too easy
        reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{right}", user=member))
        assert is_ephemeral(reply)
    channel = world.channels["quiz"]

    tasks = [{"name": "tasks", "type": 1, "options": []}]
    payload = raw_command(driver, world, world.alice, channel, "insights", tasks, {})
    refusal = await reply_of(driver.send_raw_interaction(payload))
    assert is_ephemeral(refusal)
    assert "Only moderators" in refusal["content"]
    assert MC1 not in str(refusal)

    report = await reply_of(
        driver.slash(
            "insights tasks", user=world.owner, channel=channel, options={"flag": "too-easy"}
        )
    )
    assert is_ephemeral(report)
    (embed,) = report["embeds"]
    assert f"(`{MC1}`) · bank `" in embed["description"]
    # Ten first tries, all right: the stored rating has settled (ten), and reads easy.
    assert " · this group: easy\n" in embed["description"]
    assert "⚠ too easy: facility 1.00 (10/10)" in embed["description"]
