"""A matching task whose stems share an answer: each stem's select lists it once, and picking
it for both stems solves the task."""

from __future__ import annotations

import pytest

from bot.quiz.tasks import Catalog
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import FakeDiscordHTTP
from tests.discord_ui.test_matching_picker import selects
from tests.factories import matching

PAIRS = (("Lyon", "France"), ("Milan", "Italy"), ("Marseille", "France"))


@pytest.fixture
def catalog() -> Catalog:
    return Catalog.of([matching("cities", pairs=PAIRS, distractors=("Spain",))])


async def test_the_shared_answer_is_one_option_in_each_select_and_counts_for_both(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("cities")
    picker = fake.response_to(await driver.click(post, r"quiz:open:\d+"))
    menus = selects(picker)
    assert [s["placeholder"] for s in menus] == ["1. Lyon", "2. Milan", "3. Marseille"]
    for menu in menus:
        assert [o["label"] for o in menu["options"]] == ["A · France", "B · Italy", "C · Spain"]
    await driver.select(picker, r"quiz:pick:\d+:1:---", "A")
    await driver.select(picker, r"quiz:pick:\d+:2:A--", "B")
    await driver.select(picker, r"quiz:pick:\d+:3:AB-", "A")
    await driver.click(picker, r"quiz:submit:\d+:ABA")
    right = fake.last_reply()
    assert "Right" in right.text
    assert "**20** points" in right.text  # a medium task, solved at the first attempt
