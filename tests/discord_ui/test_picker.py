"""The private multi-blank picker: selects, submit, wrong blanks cleared, right ones kept."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.store import answers
from tests.discord_ui.conftest import COMPONENT, Driver
from tests.discord_ui.fakes import ALICE, COMPONENTS_V2, FakeDiscordHTTP, interaction_payload, walk

SELECT = 3


def selects(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in walk(message["components"]) if c["type"] == SELECT]


async def open_picker(driver: Driver, task_id: str) -> dict[str, Any]:
    post = await driver.post(task_id)
    opened = await driver.click(post, r"quiz:open:\d+")
    return driver.fake.response_to(opened)


async def test_pick_submit_wrong_blank_then_right(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    picker = await open_picker(driver, "fill-two")
    opened = fake.last_reply()
    assert opened.ephemeral and opened.callback_type == 4
    assert [s["placeholder"] for s in selects(picker)] == ["Blank [1]", "Blank [2]"]
    assert [s["custom_id"] for s in selects(picker)] == ["quiz:pick:1:1:--", "quiz:pick:1:2:--"]
    assert "quiz:submit:1:--" in opened.custom_ids()
    assert "[1]" in opened.text and "[2]" in opened.text

    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    update = fake.last_reply()
    assert update.callback_type == 7  # the same private message, redrawn
    assert "model.to_device(d)" in update.text
    assert "quiz:submit:1:A-" in update.custom_ids()
    chosen = [o for o in selects(picker)[0]["options"] if o.get("default")]
    assert [o["value"] for o in chosen] == ["A"]

    await driver.select(picker, r"quiz:pick:\d+:2:A-", "B")
    await driver.click(picker, r"quiz:submit:\d+:AB")
    wrong = fake.last_reply()
    assert wrong.callback_type == 7
    assert "blank [2] is wrong" in wrong.text
    assert "the rest are right" in wrong.text
    assert "devices_typo is not defined." in wrong.text
    assert "**2** attempts left" in wrong.text
    assert "device_list" not in wrong.text  # the right option stays secret
    # The right pick is kept, the wrong one cleared.
    assert "model.to_device(d)" in wrong.text
    assert "for d in [2]" in wrong.text
    assert "quiz:submit:1:A-" in wrong.custom_ids()
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert progress.wrong_tries == 1

    await driver.select(picker, r"quiz:pick:\d+:2:A-", "C")
    await driver.click(picker, r"quiz:submit:\d+:AC")
    right = fake.last_reply()
    assert right.callback_type == 7
    assert "Right" in right.text
    assert "**20** points" in right.text  # 30 × 2/3: one wrong try
    assert right.data["components"] == []  # finished: nothing left to click
    await bot.live_counts.drain()
    assert fake.edits()[-1].data["embeds"][0]["footer"]["text"].startswith("1 answered · 1 solved")


async def test_submit_with_an_empty_blank_spends_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    picker = await open_picker(driver, "fill-two")
    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    await driver.click(picker, r"quiz:submit:\d+:A-")
    reply = fake.last_reply()
    assert "Pick an option for blank [2] first" in reply.text
    assert (await bot.service.run_read(answers.read_progress, 1, ALICE.id)).attempts_used == 0


async def test_three_wrong_submits_show_the_solution(driver: Driver, fake: FakeDiscordHTTP) -> None:
    picker = await open_picker(driver, "fill-two")
    for picks in ("DD", "BB", "DB"):  # three different misses (a repeat uses no attempt)
        # Both blanks were wrong, so the previous miss cleared both.
        await driver.select(picker, selects(picker)[0]["custom_id"], picks[0])
        await driver.select(picker, selects(picker)[1]["custom_id"], picks[1])
        await driver.click(picker, rf"quiz:submit:\d+:{picks}")
    failed = fake.last_reply()
    assert "last attempt" in failed.text
    assert "cpu is a device, not a method." in failed.text
    assert "to_device over device_list." in failed.text
    assert failed.data["components"] == []

    opened_again = await driver.click(fake.messages[fake.channel_posts[-1]], r"quiz:open:\d+")
    assert "already finished this one" in fake.last_reply().text
    assert fake.response_to(opened_again)["flags"] & 64


async def test_submitting_the_same_wrong_picks_again_uses_no_attempt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    """A second Submit of the picks already marked wrong (a double tap, a retry after "This
    interaction failed") is not graded: the member is told so, with the note again."""
    picker = await open_picker(driver, "fill-two")
    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    await driver.select(picker, r"quiz:pick:\d+:2:A-", "B")
    await driver.click(picker, r"quiz:submit:\d+:AB")
    assert "**2** attempts left" in fake.last_reply().text

    await driver.select(picker, r"quiz:pick:\d+:2:A-", "B")  # the same pick again
    await driver.click(picker, r"quiz:submit:\d+:AB")
    again = fake.last_reply()
    assert again.callback_type == 7
    assert "already submitted exactly these picks" in again.text
    assert "didn't use an attempt" in again.text
    assert "**2** attempts left" in again.text
    assert "devices_typo is not defined." in again.text  # the tied note, shown again
    assert "device_list" not in again.text  # the right option stays secret
    assert "quiz:submit:1:A-" in again.custom_ids()  # still playable, blank [2] cleared
    progress = await bot.service.run_read(answers.read_progress, 1, ALICE.id)
    assert (progress.wrong_tries, progress.attempts_left) == (1, 2)
    await bot.live_counts.drain()
    assert fake.edits()[-1].data["embeds"][0]["footer"]["text"].startswith("1 answered · 0")

    await driver.select(picker, r"quiz:pick:\d+:2:A-", "C")
    await driver.click(picker, r"quiz:submit:\d+:AC")
    assert "**20** points" in fake.last_reply().text  # 30 × 2/3: still one wrong try


async def test_five_blanks_use_a_components_v2_layout(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    picker = await open_picker(driver, "fill-five")
    opened = fake.last_reply()
    assert opened.ephemeral
    assert opened.flags & COMPONENTS_V2
    assert len(selects(picker)) == 5
    assert "quiz:submit:1:-----" in opened.custom_ids()
    assert "[1] = [2]([3], [4], [5])" in opened.text

    for blank, value in zip(range(1, 6), "ABCDD", strict=True):
        await driver.select(picker, rf"quiz:pick:\d+:{blank}:.*", value)
    await driver.click(picker, r"quiz:submit:\d+:ABCDD")
    wrong = fake.last_reply()
    assert wrong.callback_type == 7
    assert "blank [5] is wrong" in wrong.text
    assert "x = f(a, b, [5])" in wrong.text

    await driver.select(picker, r"quiz:pick:\d+:5:ABCD-", "C")
    await driver.click(picker, r"quiz:submit:\d+:ABCDC")
    right = fake.last_reply()
    assert "Right" in right.text
    assert not selects(picker)
    assert picker["flags"] & COMPONENTS_V2


async def test_forged_picks_are_refused(driver: Driver, fake: FakeDiscordHTTP) -> None:
    picker = await open_picker(driver, "fill-two")
    forged = {
        **picker,
        "components": [
            {
                "type": 1,
                "components": [
                    {"type": 2, "style": 1, "label": "Submit", "custom_id": "quiz:submit:1:AZ"}
                ],
            }
        ],
    }
    await driver.click(forged, r"quiz:submit:1:AZ")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "doesn't fit this task's options" in reply.text


async def test_a_select_whose_values_are_not_a_list_is_refused(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord sends a select's values as a list of strings; a raw payload may send null, a
    number or an object there: a private refusal, not "Something went wrong" and a traceback."""
    caplog.set_level(logging.WARNING)
    picker = await open_picker(driver, "fill-two")
    for values in (None, 5, {"0": "A"}):
        select = selects(picker)[0]
        data = {"custom_id": select["custom_id"], "component_type": SELECT, "values": values}
        payload = interaction_payload(fake, kind=COMPONENT, data=data, message=picker)
        await driver.dispatch(payload)
        reply = fake.last_reply()
        assert reply.ephemeral
        assert "doesn't fit this task's options" in reply.text, values
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
