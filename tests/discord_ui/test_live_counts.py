"""Live counts: many answers become few edits, and the last edit shows the final state."""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.discord_ui.client import QuizBot
from tests.discord_ui.conftest import BotFactory, Driver
from tests.discord_ui.fakes import FakeDiscordHTTP, Member


def footer(call_json: dict[str, object]) -> str:
    return call_json["embeds"][0]["footer"]["text"]  # type: ignore[index]


async def test_many_answers_coalesce_into_few_edits(
    make_bot: BotFactory, fake: FakeDiscordHTTP
) -> None:
    bot = await make_bot(live_count_interval=0.3)
    driver = Driver(bot, fake)
    message = await driver.post("mc-split")
    fake.clear()
    for n in range(12):
        option = "B" if n % 3 else "A"
        await driver.click(message, rf"quiz:ans:\d+:{option}", member=Member(1000 + n, f"m{n}"))
    await bot.live_counts.drain()

    edits = fake.edits()
    assert 1 <= len(edits) <= 3  # one at once, then at most one per interval
    assert footer(edits[-1].data).startswith("12 answered · 8 solved")
    # The redraw keeps everything else: same title, options and buttons.
    assert edits[-1].data["embeds"][0]["title"] == message["embeds"][0]["title"]
    assert "components" not in edits[-1].data
    assert fake.messages[fake.channel_posts[-1]]["components"] == message["components"]


async def test_an_answer_during_an_edit_gets_its_own_redraw(
    make_bot: BotFactory, fake: FakeDiscordHTTP
) -> None:
    bot = await make_bot(live_count_interval=0.05)
    driver = Driver(bot, fake)
    message = await driver.post("mc-split")
    fake.clear()
    fake.latency = 0.05  # the first edit is still in flight when the next answers land
    await driver.click(message, r"quiz:ans:\d+:B", member=Member(1, "a"))
    await driver.click(message, r"quiz:ans:\d+:B", member=Member(2, "b"))
    await driver.click(message, r"quiz:ans:\d+:A", member=Member(3, "c"))
    await bot.live_counts.drain()
    assert footer(fake.edits()[-1].data).startswith("3 answered · 2 solved")


async def test_separate_posts_update_independently(driver: Driver, fake: FakeDiscordHTTP,
                                                   bot: QuizBot) -> None:
    first = await driver.post("mc-split")
    second = await driver.post("fill-one")
    await driver.click(first, r"quiz:ans:\d+:B")
    await driver.click(second, r"quiz:ans:\d+:A")
    await bot.live_counts.drain()
    edited = {call.url.rsplit("/", 1)[1] for call in fake.edits()}
    assert edited == {first["id"], second["id"]}


async def test_a_deleted_post_stops_its_updates(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    message = await driver.post("mc-split")

    class Response:
        status = 404
        reason = "Not Found"

    fake.fail["/channels/{channel_id}/messages/{message_id}"] = discord.NotFound(
        Response(), {"message": "Unknown Message", "code": 10008}  # type: ignore[arg-type]
    )
    await driver.click(message, r"quiz:ans:\d+:B")
    await asyncio.wait_for(bot.live_counts.drain(), 1)
    assert len(fake.edits()) == 1


@pytest.mark.parametrize("status", [500])
async def test_failed_edits_are_retried_a_few_times_then_dropped(
    make_bot: BotFactory, fake: FakeDiscordHTTP, status: int
) -> None:
    bot = await make_bot(live_count_interval=0.01)
    driver = Driver(bot, fake)
    message = await driver.post("mc-split")

    class Response:
        reason = "Server Error"

    response = Response()
    response.status = status  # type: ignore[attr-defined]
    fake.fail["/channels/{channel_id}/messages/{message_id}"] = discord.HTTPException(
        response, {"message": "oops", "code": 0}  # type: ignore[arg-type]
    )
    await driver.click(message, r"quiz:ans:\d+:B")
    await asyncio.wait_for(bot.live_counts.drain(), 1)
    assert len(fake.edits()) == 3
