"""Option buttons and the Hint button: every reply private, kind, and never spoiling."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import discord
import pytest

from bot import rendering
from bot.discord_ui.client import QuizBot
from bot.discord_ui.error_texts import CLOSED
from bot.quiz.tasks import Catalog, Solution, Task
from bot.store import answers, posts
from tests.discord_ui.conftest import (
    Driver,
    choice_task,
    fill_five_task,
    fill_one_task,
    fill_two_task,
)
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    UPDATE_MESSAGE,
    FakeDiscordHTTP,
    response,
)
from tests.factories import choice, note
from tests.store_calls import write

ANSWER = "data parallelism"  # option B of mc-split
CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
FOLLOWUP = "/webhooks/{webhook_id}/{webhook_token}"
LONG_B = "B" + "b" * 1999


def long_options_task() -> Task:
    """Issue 9's bank: two 2,000-character options pass the check."""
    return choice(
        "long-options",
        texts=("A" + "a" * 1999, LONG_B),
        answer="A",
        solution=Solution(explanation="The first one."),
        mistakes=(note("n" * 1000, "B"),),
    )


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of(
        [choice_task(), fill_one_task(), fill_two_task(), fill_five_task(), long_options_task()]
    )


def refused() -> discord.HTTPException:
    return discord.HTTPException(
        response(400, "Bad Request"), {"message": "Invalid Form Body", "code": 50035}
    )


def fail_next(fake: FakeDiscordHTTP, route: str) -> None:
    """Discord refuses the next call to `route`, and only that one."""

    def once() -> discord.HTTPException:
        del fake.fail[route]
        return refused()

    fake.fail[route] = once  # type: ignore[assignment]


def warnings_and_worse(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_wrong_twice_then_third_miss_reveals_the_solution(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = await driver.post("mc-split")

    await driver.click(message, r"quiz:ans:\d+:A")
    first = fake.last_reply()
    assert first.ephemeral
    assert "Not quite" in first.text
    assert "Model parallelism splits the model itself." in first.text
    assert "**2** attempts left" in first.text
    assert ANSWER not in first.text
    assert "Solution" not in first.text

    await driver.click(message, r"quiz:ans:\d+:C")
    second = fake.last_reply()
    assert second.ephemeral
    assert "Flushing is about pipeline bubbles." in second.text
    assert "**1** attempt left" in second.text
    assert ANSWER not in second.text

    await driver.click(message, r"quiz:ans:\d+:D")
    third = fake.last_reply()
    assert third.ephemeral
    assert "last attempt" in third.text
    # D has no note of its own: the task's general note applies.
    assert "Read the question twice." in third.text
    assert "Solution · Multiple choice · MLOps" in third.text
    assert "Data parallelism copies the model and splits the data." in third.text

    await driver.click(message, r"quiz:ans:\d+:B")
    after = fake.last_reply()
    assert after.ephemeral
    assert "already finished this one" in after.text
    assert "all 3 attempts" in after.text


async def test_a_second_click_on_the_same_wrong_option_uses_no_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    """A double click (or a click retried after "This interaction failed"): the member is
    told it used no attempt, how many are left, and why that option is wrong, again."""
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:ans:\d+:A")
    first = fake.last_reply()
    await driver.click(message, r"quiz:ans:\d+:A")
    again = fake.last_reply()
    assert again is not first and again.ephemeral
    assert again.text.startswith(
        "You already tried **A · model parallelism**, and it isn't it, so that click didn't "
        "use an attempt. You have **2** attempts left."
    )
    assert "Model parallelism splits the model itself." in again.text  # the note, again
    assert ANSWER not in again.text and "Solution" not in again.text
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert (progress.wrong_tries, progress.attempts_left) == (1, 2)
    await bot.live_counts.drain()
    assert message["embeds"][0]["footer"]["text"].startswith("1 answered · 0 solved")

    await driver.click(message, r"quiz:ans:\d+:B")
    assert "**7** points" in fake.last_reply().text  # right on the second try


async def test_right_first_try(driver: Driver, fake: FakeDiscordHTTP) -> None:
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "Right" in reply.text
    assert "**10** points on your first try" in reply.text
    assert "Data parallelism copies the model" in reply.text

    await driver.click(message, r"quiz:ans:\d+:A")
    again = fake.last_reply()
    assert "already finished this one" in again.text
    assert "**10** points" in again.text


async def posted_again(driver: Driver, *options: str) -> dict[str, Any]:
    """Alice answers a post of mc-split with `options`, then Bob posts the task again (anyone
    may): the new post."""
    first = await driver.post("mc-split")
    for option in options:
        await driver.click(first, rf"quiz:ans:\d+:{option}")
    return await driver.post("mc-split", member=BOB)


async def test_the_same_task_posted_again_earns_a_member_no_second_score(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    again = await posted_again(driver, "B")
    await driver.click(again, r"quiz:hint:\d+")
    assert "points count once" in fake.last_reply().text
    assert "halved" not in fake.last_reply().text
    await driver.click(again, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert "Right" in reply.text and "points count once" in reply.text
    await driver.command("leaderboard", period="all")
    assert "**10** pts · 1 solved" in fake.last_reply().text  # not 20 points, nor 2 solved
    # Bob meets it for the first time there: full points.
    await driver.click(again, r"quiz:ans:\d+:B", member=BOB)
    assert "**10** points on your first try" in fake.last_reply().text


async def test_hint_is_private_recorded_and_halves_the_points(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:hint:\d+")
    hint = fake.last_reply()
    assert hint.ephemeral
    assert "Think about what gets copied" in hint.text
    assert "halved" in hint.text
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).hint_seen

    await driver.click(message, r"quiz:ans:\d+:B")
    assert "**5** points" in fake.last_reply().text
    assert "halved for the hint" in fake.last_reply().text

    await driver.click(message, r"quiz:hint:\d+")
    assert "free" in fake.last_reply().text


async def test_members_are_graded_separately_and_nothing_personal_is_public(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    fake.clear()
    await driver.click(message, r"quiz:ans:\d+:A", member=ALICE)
    await driver.click(message, r"quiz:ans:\d+:B", member=BOB)
    await bot.live_counts.drain()

    assert "Right" in fake.last_reply().text
    assert all(reply.ephemeral for reply in fake.replies())
    assert fake.posts() == []  # no new channel messages
    for edit in fake.edits():  # the post's only change: aggregate counts
        assert "alice" not in edit.text.lower() and "bob" not in edit.text.lower()
    assert fake.edits()[-1].data["embeds"][0]["footer"]["text"].startswith("2 answered · 1 solved")


async def test_single_blank_fill_uses_option_buttons(driver: Driver, fake: FakeDiscordHTTP) -> None:
    message = await driver.post("fill-one")
    labels = [c["label"] for c in message["components"][0]["components"]]
    assert labels == ["A · to", "B · cuda_to", "C · move"]
    await driver.click(message, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "There is no cuda_to." in reply.text
    assert "B · cuda_to" in reply.text


async def test_closed_post_says_so_kindly(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    write(bot.service.store, posts.close_post, 1, datetime.now(UTC))
    await driver.click(message, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == CLOSED


async def test_post_from_another_server_is_refused(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    other = await bot.service.create_post(42, 43, bot.service.catalog.get_or_raise("mc-split"), 1)
    forged = {
        **message,
        "components": [
            {
                "type": 1,
                "components": [
                    {
                        "type": 2,
                        "style": 2,
                        "label": "B",
                        "custom_id": f"quiz:ans:{other.post.id}:B",
                    }
                ],
            }
        ],
    }
    await driver.click(forged, rf"quiz:ans:{other.post.id}:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "can't find that quiz" in reply.text


# -- Discord's limits, and a reply Discord refuses anyway --------------------------------------


async def test_a_long_option_is_quoted_short_and_the_outcome_line_shows_whole(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = await driver.post("long-options")
    await driver.click(message, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    content = reply.data["content"]
    assert rendering.discord_len(content) <= rendering.MESSAGE_CONTENT
    assert content.startswith("Not quite: **B · Bbbb")
    assert "…** isn't it. You have **2** attempts left." in content
    assert reply.data["embeds"][0]["fields"][0]["value"] == "• " + "n" * 1000


async def test_a_refused_answer_reply_still_says_what_happened_to_the_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, caplog: pytest.LogCaptureFixture
) -> None:
    message = await driver.post("mc-split")
    fake.clear()
    fail_next(fake, CALLBACK)
    await driver.click(message, r"quiz:ans:\d+:A")

    refused_call, short = fake.callbacks()
    assert refused_call.data.get("embeds")  # the detailed reply, which Discord refused
    assert short.callback_type == CHANNEL_MESSAGE and short.ephemeral
    assert short.data["content"] == (
        "Your answer A was recorded: not right, **2** attempts left. I couldn't show the details."
    )
    assert not short.data.get("embeds")
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).wrong_tries == 1
    (record,) = warnings_and_worse(caplog)
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "quiz:ans:1:A" in record.getMessage()


async def test_a_refused_last_attempt_points_to_the_solution(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:ans:\d+:A")
    await driver.click(message, r"quiz:ans:\d+:C")
    fail_next(fake, CALLBACK)
    await driver.click(message, r"quiz:ans:\d+:D")
    assert fake.last_reply().text == (
        "Your answer D was recorded: not right, and that was your last attempt. "
        "I couldn't show the details; /solution shows the worked solution."
    )


async def test_a_refused_reply_after_a_deferral_comes_as_a_follow_up(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, caplog: pytest.LogCaptureFixture
) -> None:
    message = await driver.post("mc-split")
    bot.ack_after = 0  # acknowledged before the answer is stored
    fake.clear()
    fail_next(fake, FOLLOWUP)
    await driver.click(message, r"quiz:ans:\d+:B")

    assert [c.callback_type for c in fake.callbacks()] == [DEFERRED_CHANNEL_MESSAGE]
    refused_call, short = [c for c in fake.calls if c.path == FOLLOWUP]
    assert refused_call.data.get("embeds")
    assert short.ephemeral
    assert short.text == (
        "Your answer B was recorded: right, for **10** points. I couldn't show the details."
    )
    assert [r.levelno for r in warnings_and_worse(caplog)] == [logging.WARNING]


async def test_a_refused_picker_result_still_says_what_happened_to_the_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, caplog: pytest.LogCaptureFixture
) -> None:
    post = await driver.post("fill-two")
    opened = await driver.click(post, r"quiz:open:\d+")
    picker = fake.response_to(opened)
    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    await driver.select(picker, r"quiz:pick:\d+:2:A-", "B")
    fake.clear()
    fail_next(fake, CALLBACK)
    await driver.click(picker, r"quiz:submit:\d+:AB")

    refused_call, short = fake.callbacks()
    assert refused_call.callback_type == UPDATE_MESSAGE  # the picker's redraw, refused
    # A new private message: the picker stays as it was, ready for another try.
    assert short.callback_type == CHANNEL_MESSAGE and short.ephemeral
    assert short.text == (
        "Your answer [1] A, [2] B was recorded: not right, **2** attempts left. "
        "I couldn't show the details."
    )
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).wrong_tries == 1
    (record,) = warnings_and_worse(caplog)
    assert record.exc_info is None and "quiz:submit:1:AB" in record.getMessage()


async def test_a_refused_reply_that_stored_nothing_is_not_called_recorded(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:ans:\d+:B")
    fail_next(fake, CALLBACK)
    await driver.click(message, r"quiz:ans:\d+:A")  # already finished: nothing stored
    assert "recorded" not in fake.last_reply().text


def unknown_interaction() -> discord.NotFound:
    """What Discord answers to a response past the interaction's 3-second deadline."""
    return discord.NotFound(
        response(404, "Not Found"), {"message": "Unknown interaction", "code": 10062}
    )


@pytest.mark.parametrize("ack_after", [5.0, 0.0], ids=["reply", "deferral"])
async def test_a_late_answer_click_is_one_log_line_and_no_reply_after_discord_dropped_it(
    driver: Driver,
    fake: FakeDiscordHTTP,
    bot: QuizBot,
    caplog: pytest.LogCaptureFixture,
    ack_after: float,
) -> None:
    message = await driver.post("mc-split")
    bot.ack_after = ack_after
    fake.clear()
    fake.fail[CALLBACK] = unknown_interaction()
    await driver.click(message, r"quiz:ans:\d+:A")
    del fake.fail[CALLBACK]

    # One try: every later call through the interaction would be refused the same way.
    assert len(fake.calls) == 1
    (record,) = warnings_and_worse(caplog)
    assert record.exc_info is None and "Unknown interaction" in record.getMessage()
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).wrong_tries == 1

    bot.ack_after = 5.0
    await driver.click(message, r"quiz:ans:\d+:C")  # the next click says where they stand
    assert "**1** attempt left" in fake.last_reply().text


async def test_a_late_hint_click_is_one_log_line(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    message = await driver.post("mc-split")
    fake.clear()
    fake.fail[CALLBACK] = unknown_interaction()
    await driver.click(message, r"quiz:hint:\d+")
    assert len(fake.calls) == 1
    (record,) = warnings_and_worse(caplog)
    assert record.exc_info is None and "quiz:hint:1" in record.getMessage()


async def test_a_task_scored_on_its_newer_post_first_is_not_said_to_be_from_an_earlier_one(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    # Two posts of one task open at once: Alice answers the newer one first. The older post's
    # reply says why it scores none without calling the post she scored on "earlier".
    older = await driver.post("mc-split")
    newer = await driver.post("mc-split", member=BOB)
    await driver.click(newer, r"quiz:ans:\d+:B")
    assert "**10** points on your first try" in fake.last_reply().text
    await driver.click(older, r"quiz:ans:\d+:B")
    reply = fake.last_reply().text
    assert "points count once" in reply and "another post here" in reply
    assert "earlier post" not in reply


async def test_a_miss_on_one_post_counts_on_another_post_of_the_task(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    again = await posted_again(driver, "A")
    await driver.click(again, r"quiz:ans:\d+:A")  # the same wrong answer: not graded again
    reply = fake.last_reply().text
    assert "didn't use an attempt" in reply
    assert "**3** attempts left, 2 of them for points, with your 1 miss on another post" in reply
    await driver.click(again, r"quiz:hint:\d+")
    assert "halved" in fake.last_reply().text
    await driver.click(again, r"quiz:ans:\d+:B")
    reply = fake.last_reply().text
    assert "**3** points, counting your 1 miss on another post of it (halved" in reply, reply
    await driver.command("leaderboard", period="all")
    assert "**3** pts · 1 solved" in fake.last_reply().text


async def test_misses_over_two_posts_say_no_answer_can_score_any_more(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    again = await posted_again(driver, "A", "C")
    await driver.click(again, r"quiz:ans:\d+:D")
    reply = fake.last_reply().text
    assert "**2** attempts left on this post, for practice" in reply, reply
    await driver.click(again, r"quiz:ans:\d+:B")
    reply = fake.last_reply().text
    assert "Right" in reply and "you've used its 3 tries, so this one scores none" in reply


async def test_a_repeat_solve_clicked_again_says_why_it_scored_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    again = await posted_again(driver, "B")
    await driver.click(again, r"quiz:ans:\d+:B")
    await driver.click(again, r"quiz:ans:\d+:B")  # once more: already finished
    reply = fake.last_reply().text
    assert reply.startswith("You already finished this one")
    assert "points count once" in reply and "**0** points" not in reply
