"""The matching picker: a select per stem, its placeholder the stem, four a page; Back and
Next keep the picks; a forged page is refused privately, without a traceback."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.quiz.tasks import Catalog
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import FakeDiscordHTTP, walk
from tests.factories import matching

SELECT = 3
PAIRS = (
    ("France", "Paris"),
    ("Italy", "Rome"),
    ("Spain", "Madrid"),
    ("Japan", "Tokyo"),
    ("Peru", "Lima"),
)


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([matching("match-five", pairs=PAIRS)])


def selects(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in walk(message["components"]) if c["type"] == SELECT]


async def test_a_select_per_stem_four_a_page_and_next_keeps_the_picks(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("match-five")
    picker = fake.response_to(await driver.click(post, r"quiz:open:\d+"))
    assert [s["placeholder"] for s in selects(picker)] == [
        "1. France",
        "2. Italy",
        "3. Spain",
        "4. Japan",
    ]
    await driver.select(picker, r"quiz:pick:\d+:2:-----", "E")
    assert "quiz:page:1:1:-E---" in fake.last_reply().custom_ids()
    await driver.click(picker, r"quiz:page:1:1:-E---")
    second = fake.last_reply()
    assert second.callback_type == 7  # the same private message, redrawn
    assert "Page 2 of 2" in second.text
    assert [s["placeholder"] for s in selects(picker)] == ["5. Peru"]
    assert "quiz:page:1:0:-E---" in second.custom_ids()  # Back, with the pick kept


async def test_a_forged_page_is_refused_privately(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    post = await driver.post("match-five")
    picker = fake.response_to(await driver.click(post, r"quiz:open:\d+"))
    button = {"type": 2, "style": 2, "label": "Next", "custom_id": "quiz:page:1:7:-----"}
    forged = {**picker, "components": [{"type": 1, "components": [button]}]}
    await driver.click(forged, r"quiz:page:1:7:-----")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "doesn't fit this task's options" in reply.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
