"""The learning loop in the real bot process: a missed public task comes back in /review,
privately, and a right answer there schedules it days ahead; /practice never posts in the
channel and never changes the leaderboard; /stats carries its PNG picture; a member's crafted
/insights is refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fakediscord import Driver

from . import test_bot_e2e as base
from .bot_helpers import (
    ANSWERS,
    QuizBotRunner,
    click,
    custom_ids,
    find_custom_id,
    is_ephemeral,
    raw_command,
    reply_of,
    text_of,
)
from .test_bot_e2e import MC1, World, post_quiz, started

pytestmark = pytest.mark.e2e

# The study group and the bot process of the main e2e module.
world = base.world
quizbot = base.quizbot
quizbot_backend = base.quizbot_backend


async def test_a_missed_task_comes_back_in_review_and_a_right_answer_reschedules_it(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    missed: list[str] = []
    for _ in range(3):  # three different wrong options: the same one again uses no attempt
        miss = next(o for o in "ABCD" if o not in (*ANSWERS[MC1], *missed))
        missed.append(miss)
        reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{miss}", user=world.bob))
        assert is_ephemeral(reply)
    public_before = len(driver.channel_messages(world.channels["quiz"]))

    review = await reply_of(
        driver.slash("review", user=world.bob, channel=world.channels["quiz"])
    )
    assert is_ephemeral(review), review
    assert "1** review due" in text_of(review)
    assert MC1 in text_of(review)  # the footer names the task
    assert "Private review · no leaderboard points" in text_of(review)
    review_post = int(find_custom_id(review, "quiz:next:").rsplit(":", 1)[1])
    assert review_post > 0
    (right,) = ANSWERS[MC1]
    answer_id = next(
        c for c in custom_ids(review) if c.startswith("quiz:ans:") and c.endswith(f":{right}")
    )
    outcome = await reply_of(click(driver, review, answer_id, user=world.bob))
    assert is_ephemeral(outcome) and "Right" in text_of(outcome)

    ((due,),) = [
        tuple(row)
        for row in quizbot.query(
            "SELECT due FROM review_card WHERE user_id = ? AND task_id = ?", world.bob.id, MC1
        )
    ]
    due_at = datetime.fromisoformat(due).replace(tzinfo=UTC)
    assert due_at >= datetime.now(UTC) + timedelta(hours=23)
    # Issue 26: the reply tells the truth (three misses came first), names the points as
    # private, and says what the answer did to the card, and when it comes back.
    said = text_of(outcome)
    assert "first try" not in said.replace("not a first try", "")
    assert "practice points (private" in said
    assert "Review card rated **Good**" in said and f"<t:{int(due_at.timestamp())}:R>" in said
    end = await reply_of(
        click(driver, review, find_custom_id(review, "quiz:next:"), user=world.bob)
    )
    assert is_ephemeral(end)
    assert "Review session over" in text_of(end)
    assert "Your next review falls due <t:" in text_of(end)
    assert len(driver.channel_messages(world.channels["quiz"])) == public_before


async def test_practice_posts_nothing_and_leaves_the_leaderboard_alone(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["quiz"]
    start = await reply_of(driver.slash("practice", user=world.alice, channel=channel))
    assert is_ephemeral(start), start
    assert "Private practice" in text_of(start)
    for _ in range(6):  # enough tasks that some have option buttons
        buttons = [c for c in custom_ids(start) if c.startswith("quiz:ans:")]
        if not buttons:  # a typed, multi, matching or multi-blank task: skip to the next one
            start = await reply_of(
                click(driver, start, find_custom_id(start, "quiz:next:"), user=world.alice)
            )
            continue
        task_id = text_of(start).rsplit(" ", 1)[-1]
        right = ANSWERS.get(task_id, ("A",))[0]
        choice = next((b for b in buttons if b.endswith(f":{right}")), buttons[0])
        outcome = await reply_of(click(driver, start, choice, user=world.alice))
        assert is_ephemeral(outcome)
        start = await reply_of(
            click(driver, start, find_custom_id(start, "quiz:next:"), user=world.alice)
        )
        assert is_ephemeral(start)
    assert driver.channel_messages(channel) == []
    (scores,) = quizbot.query("SELECT count(*) FROM score WHERE solved")
    assert scores[0] >= 1  # the practice answers were recorded (and count in /stats)
    board = await reply_of(driver.slash("leaderboard", user=world.alice, channel=channel))
    assert "No points yet" in text_of(board)
    # The public leaderboard reply is the only message the channel ever got.
    assert [m["id"] for m in driver.channel_messages(channel)] == [board["id"]]


async def test_stats_carry_a_png_picture(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    right = ANSWERS[MC1][0]
    await reply_of(click(driver, post, f"quiz:ans:{post_id}:{right}", user=world.bob))
    stats = await reply_of(driver.slash("stats", user=world.bob, channel=world.channels["quiz"]))
    assert is_ephemeral(stats)
    (attachment,) = stats["attachments"]
    assert attachment["filename"] == "stats.png"
    data = driver.attachment_bytes(attachment)
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 5_000
    assert stats["embeds"][0]["image"]["url"].endswith("stats.png")


async def test_a_non_moderators_raw_insights_is_refused(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    """The client hides /insights from members (default permissions); a crafted request still
    reaches the bot, which checks on its side and refuses privately."""
    await started(quizbot, world)
    channel = world.channels["quiz"]
    overview = [{"name": "overview", "type": 1, "options": []}]
    payload = raw_command(driver, world, world.alice, channel, "insights", overview, {})
    refusal = await reply_of(driver.send_raw_interaction(payload))
    assert is_ephemeral(refusal)
    assert "Only moderators" in refusal["content"]
    assert "Hardest" not in text_of(refusal)
    report = await reply_of(driver.slash("insights overview", user=world.owner, channel=channel))
    assert is_ephemeral(report) and "Insights" in text_of(report)
