"""Live counts: many answers become few edits, and the last edit shows the final state.

Time is a `ManualSleep`: the interval between edits passes only when a test says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import discord
import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.post_view import LiveCounts
from tests.discord_ui.conftest import BotFactory, Driver
from tests.discord_ui.fakes import FakeDiscordHTTP, ManualSleep, Member, response

EDIT = "/channels/{channel_id}/messages/{message_id}"


def footer(call_json: dict[str, object]) -> str:
    return call_json["embeds"][0]["footer"]["text"]  # type: ignore[index]


@pytest.fixture
def sleep() -> ManualSleep:
    return ManualSleep()


@pytest.fixture
async def counted_bot(make_bot: BotFactory, sleep: ManualSleep) -> QuizBot:
    bot = await make_bot()
    bot.live_counts = LiveCounts(bot, interval=5.0, sleep=sleep)
    return bot


async def until(condition: Callable[[], bool], timeout: float = 5.0) -> None:  # noqa: ASYNC109
    """Wait for the bot's database thread and tasks; `timeout` only catches a hang."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition never became true"
        await asyncio.sleep(0.001)


async def test_many_answers_coalesce_into_one_edit_per_interval(
    counted_bot: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(counted_bot, fake)
    message = await driver.post("mc-split")
    fake.clear()
    await driver.click(message, r"quiz:ans:\d+:A", member=Member(1000, "m0"))
    await sleep.until_asleep()  # the first answer after a quiet spell: edited at once
    assert len(fake.edits()) == 1
    assert footer(fake.edits()[0].data).startswith("1 answered · 0 solved")

    for n in range(1, 12):
        option = "B" if n % 3 else "A"
        await driver.click(message, rf"quiz:ans:\d+:{option}", member=Member(1000 + n, f"m{n}"))
    assert len(fake.edits()) == 1  # within the interval: no edit, however many answers

    await sleep.run_out(counted_bot.live_counts.drain())
    edits = fake.edits()
    assert len(edits) == 2  # one more when the interval is up, with everything since
    assert sleep.asked == [5.0, 5.0]
    assert footer(edits[-1].data).startswith("12 answered · 8 solved")
    # The redraw keeps everything else: same title, options and buttons.
    assert edits[-1].data["embeds"][0]["title"] == message["embeds"][0]["title"]
    assert "components" not in edits[-1].data
    assert fake.messages[fake.channel_posts[-1]]["components"] == message["components"]


async def test_an_answer_during_an_edit_gets_its_own_redraw(
    counted_bot: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(counted_bot, fake)
    message = await driver.post("mc-split")
    fake.clear()
    fake.hold[EDIT] = gate = asyncio.Event()
    await driver.click(message, r"quiz:ans:\d+:B", member=Member(1, "a"))
    await until(lambda: len(fake.edits()) == 1)  # its counts are read, the edit is in flight
    await driver.click(message, r"quiz:ans:\d+:B", member=Member(2, "b"))
    await driver.click(message, r"quiz:ans:\d+:A", member=Member(3, "c"))
    gate.set()
    await sleep.run_out(counted_bot.live_counts.drain())
    edits = fake.edits()
    assert footer(edits[0].data).startswith("1 answered · 1 solved")
    assert len(edits) == 2
    assert footer(edits[-1].data).startswith("3 answered · 2 solved")


async def test_separate_posts_update_independently(
    counted_bot: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(counted_bot, fake)
    first = await driver.post("mc-split")
    second = await driver.post("fill-one")
    await driver.click(first, r"quiz:ans:\d+:B")
    await driver.click(second, r"quiz:ans:\d+:A")
    await sleep.run_out(counted_bot.live_counts.drain())
    edited = {call.url.rsplit("/", 1)[1] for call in fake.edits()}
    assert edited == {first["id"], second["id"]}


async def test_a_deleted_post_stops_its_updates(
    counted_bot: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(counted_bot, fake)
    message = await driver.post("mc-split")

    fake.fail[EDIT] = discord.NotFound(
        response(404, "Not Found"), {"message": "Unknown Message", "code": 10008}
    )
    await driver.click(message, r"quiz:ans:\d+:B")
    await driver.click(message, r"quiz:ans:\d+:C")
    await sleep.run_out(counted_bot.live_counts.drain())
    assert len(fake.edits()) == 1
    assert sleep.asked == []  # gone: no waiting for another try


async def test_failed_edits_are_retried_a_few_times_then_dropped(
    counted_bot: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(counted_bot, fake)
    message = await driver.post("mc-split")

    fake.fail[EDIT] = discord.HTTPException(
        response(500, "Server Error"), {"message": "oops", "code": 0}
    )
    await driver.click(message, r"quiz:ans:\d+:B")
    await sleep.run_out(counted_bot.live_counts.drain())
    assert len(fake.edits()) == 3
    assert sleep.asked == [5.0, 5.0, 5.0]  # each retry an interval later, not a hot loop
