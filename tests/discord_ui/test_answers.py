"""Option buttons and the Hint button: every reply private, kind, and never spoiling."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.discord_ui.client import QuizBot
from bot.discord_ui.errors import CLOSED
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import ALICE, BOB, FakeDiscordHTTP

ANSWER = "data parallelism"  # option B of mc-split


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


async def test_hint_is_private_recorded_and_halves_the_points(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:hint:\d+")
    hint = fake.last_reply()
    assert hint.ephemeral
    assert "Think about what gets copied" in hint.text
    assert "halved" in hint.text
    assert (await bot.service.progress(1, ALICE.id)).hint_seen

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
    assert fake.edits()[-1].data["embeds"][0]["footer"]["text"].startswith(
        "2 answered · 1 solved"
    )


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
    bot.service.store.close_post(1, datetime.now(UTC))
    await driver.click(message, r"quiz:ans:\d+:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == CLOSED


async def test_post_from_another_server_is_refused(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")
    other = await bot.service.create_post(42, 43, bot.service.task("mc-split"), 1)
    forged = {
        **message,
        "components": [{"type": 1, "components": [{
            "type": 2, "style": 2, "label": "B", "custom_id": f"quiz:ans:{other.post.id}:B"
        }]}],
    }
    await driver.click(forged, rf"quiz:ans:{other.post.id}:B")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "can't find that quiz" in reply.text
