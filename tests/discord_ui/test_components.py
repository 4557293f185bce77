"""DynamicItems: custom_id round trips, the post's layout, and buttons that survive a restart."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import discord
import pytest

from bot.discord_ui import cloze, picker
from bot.discord_ui.clicks import AnswerButton
from bot.discord_ui.client import QuizBot
from bot.discord_ui.multi import MultiSelect
from bot.discord_ui.post_view import (
    DYNAMIC_ITEMS,
    ConfirmSolutionButton,
    HintButton,
    NextButton,
    OpenPickerButton,
    SolutionButton,
    post_view,
)
from bot.discord_ui.typed import TypeButton
from bot.quiz.tasks import Catalog, Option
from bot.service import PostedTask
from bot.store import answers
from tests.discord_ui.conftest import COMPONENT, BotFactory, Driver
from tests.discord_ui.fakes import BOB, FakeDiscordHTTP, interaction_payload, walk
from tests.factories import multi
from tests.quiz.test_cloze import cloze_task

BIG = 2**63 - 1  # the largest snowflake-sized post id


def items(catalog: Catalog) -> list[discord.ui.DynamicItem[Any]]:
    two, five = catalog.tasks["fill-two"], catalog.tasks["fill-five"]
    return [
        AnswerButton(BIG, "Z"),
        AnswerButton(7, "A", label="A · split"),
        HintButton(BIG),
        OpenPickerButton(BIG),
        SolutionButton(BIG),
        ConfirmSolutionButton(BIG),
        picker.BlankSelect.build(two, BIG, 2, "A-"),
        picker.BlankSelect.build(five, BIG, 5, "ZZZZZ"),
        picker.SubmitButton(BIG, "-----"),
        picker.SubmitButton(3, "AC"),
        picker.PageButton(BIG, 2, "ZZZZZZZZZ", label="Next"),  # a matching task of 9 stems
        NextButton(BIG, BIG),
        NextButton(5, None),  # sent before 0.2: no post to check
        MultiSelect.build(multi(texts=[f"option {n}" for n in range(25)]), BIG),
        TypeButton(BIG),
        cloze.OpenClozeButton(BIG),
        # 9 parts, the last a choice: the longest custom_ids a cloze task makes.
        cloze.PartSelect.build(cloze_task("{1:SA:=a}" * 8 + "{1:MC:=a~b}"), BIG, 9, "++++___+B"),
        cloze.SubmitPartsButton(BIG, "+_-A"),
        cloze.PartPageButton(BIG, 2, "ZZZZZZZZZ"),
    ]


STATE = ("post_id", "option", "blank", "picks", "session_id", "shown", "page")


async def test_every_item_round_trips_through_its_custom_id(
    bot: QuizBot, fake: FakeDiscordHTTP, catalog: Catalog
) -> None:
    seen: set[type] = set()
    for item in items(catalog):
        custom_id = item.custom_id
        assert len(custom_id) <= 100
        match = item.template.fullmatch(custom_id)
        assert match is not None, custom_id
        # Only this item's class claims the id: dispatch would otherwise run two callbacks.
        claims = [
            cls
            for cls in DYNAMIC_ITEMS
            if cls.__discord_ui_compiled_template__.fullmatch(custom_id)
        ]
        assert claims == [type(item)]
        payload = interaction_payload(
            fake, kind=COMPONENT, data={"custom_id": custom_id, "component_type": 2}
        )
        interaction = discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]
        rebuilt = await type(item).from_custom_id(interaction, item.item, match)
        assert type(rebuilt) is type(item)
        assert rebuilt.custom_id == custom_id
        for attr in STATE:
            assert getattr(rebuilt, attr, None) == getattr(item, attr, None), attr
        assert rebuilt.refusal is None  # type: ignore[attr-defined]
        seen.add(type(item))
    assert seen == set(DYNAMIC_ITEMS)


def test_picks_encoding() -> None:
    assert picker.encode_picks({1: "A", 3: "C"}, 3) == "A-C"
    assert picker.decode_picks("A-C") == {1: "A", 3: "C"}
    assert picker.encode_picks({}, 5) == "-----"


FORGED = (
    "quiz:ans:1:AB",
    "quiz:ans:x:A",
    "quiz:ans:²:A",
    "quiz:ans:99999999999999999999:A",
    "quiz:ans:9223372036854775808:A",
    "quiz:ans:0:A",
    "quiz:ans:1:",
    "quiz:pick:1:10:A-",  # blanks and matching stems are 1-9
    "quiz:pick:1:0:A-",
    "quiz:pick:1:1:A",
    "quiz:pick:1:1:ABCDEFGHIJ",
    "quiz:page:1:x:AB",
    "quiz:page:1:1:ab",
    "quiz:pick:1:1:ab",
    "quiz:submit:1:abc",
    "quiz:submit:1:A",
    "quiz:submit:١٢:AB",
    "quiz:hint:",
    "quiz:hint:#1",
    "quiz:reveal:1:2",
    "quiz:open: 1",
    f"quiz:hint:{'9' * 6000}",
)


@pytest.mark.parametrize("custom_id", FORGED)
async def test_a_forged_custom_id_reaches_one_item_which_refuses_it(
    bot: QuizBot, fake: FakeDiscordHTTP, custom_id: str
) -> None:
    claims = [
        cls for cls in DYNAMIC_ITEMS if cls.__discord_ui_compiled_template__.fullmatch(custom_id)
    ]
    assert len(claims) == 1, claims  # so it gets one reply, not none and not two
    (cls,) = claims
    match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)
    assert match is not None
    payload = interaction_payload(
        fake, kind=COMPONENT, data={"custom_id": custom_id, "component_type": 2}
    )
    interaction = discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]
    base = discord.ui.Button(custom_id=custom_id, label="x")
    item = await cls.from_custom_id(interaction, base, match)
    assert item.refusal is not None  # type: ignore[attr-defined]


async def test_post_layout_choice_task(driver: Driver) -> None:
    message = await driver.post("mc-split")
    rows = message["components"]
    labels = [c["label"] for c in rows[0]["components"]]
    assert labels == [
        "A · model parallelism",
        "B · data parallelism",
        "C · pipeline flushing",
        "D · tensor sharding",
    ]
    assert [c["custom_id"] for c in rows[0]["components"]] == [f"quiz:ans:1:{x}" for x in "ABCD"]
    assert rows[1]["components"][0]["custom_id"] == "quiz:hint:1"
    embed = message["embeds"][0]
    # The embed lists every option in full.
    for text in ("model parallelism", "data parallelism", "tensor sharding"):
        assert text in embed["description"]
    values = {f["name"]: f["value"] for f in embed["fields"]}
    assert values["Topic"] == "MLOps"
    assert values["Difficulty"].startswith("easy")
    assert values["Attempts"] == "3 attempts each"
    assert embed["footer"]["text"].startswith("0 answered · 0 solved")


async def test_post_layout_multi_blank_task_has_an_answer_button(driver: Driver) -> None:
    message = await driver.post("fill-two")
    ids = [c["custom_id"] for row in message["components"] for c in row["components"]]
    assert ids == ["quiz:open:1", "quiz:hint:1"]


async def test_twenty_options_fill_four_rows_and_hint_goes_below(
    bot: QuizBot, catalog: Catalog
) -> None:
    task = replace(
        catalog.tasks["mc-split"],
        options=tuple(Option(chr(65 + i), f"option {i}") for i in range(20)),
    )
    posted = await bot.service.create_post(1, 2, task, 3)
    rows = post_view(PostedTask(posted.post, task)).to_components()
    assert [len(r["components"]) for r in rows] == [5, 5, 5, 5, 1]
    assert rows[4]["components"][0]["custom_id"].startswith("quiz:hint:")


async def test_buttons_work_after_a_restart(make_bot: BotFactory, fake: FakeDiscordHTTP) -> None:
    first = await make_bot()
    message = await Driver(first, fake).post("mc-split")
    await first.close()

    # A new process: nothing in memory, same database, same message in the channel.
    second = await make_bot()
    driver = Driver(second, fake)
    await driver.click(message, r"quiz:ans:\d+:B", member=BOB)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "Right" in reply.text
    assert "earned **10** points" in reply.text
    progress = await second.service.run_read(answers.read_progress, 1, BOB.id)
    assert progress.solved


async def test_picker_survives_a_restart_between_picks(
    make_bot: BotFactory, fake: FakeDiscordHTTP
) -> None:
    first = await make_bot()
    driver = Driver(first, fake)
    message = await driver.post("fill-two")
    opened = await driver.click(message, r"quiz:open:\d+")
    picker_message = fake.response_to(opened)
    await driver.select(picker_message, r"quiz:pick:\d+:1:.*", "A")
    await first.close()

    second = await make_bot()
    driver = Driver(second, fake)
    await driver.select(picker_message, r"quiz:pick:\d+:2:.*", "C")
    assert re.search(r"quiz:submit:1:AC", " ".join(fake.last_reply().custom_ids()))
    await driver.click(picker_message, r"quiz:submit:\d+:AC")
    assert "Right" in fake.last_reply().text


@pytest.mark.parametrize("task_id", ["mc-split", "fill-one", "fill-two", "fill-five"])
async def test_post_components_are_all_registered_dynamic_items(
    driver: Driver, task_id: str
) -> None:
    message = await driver.post(task_id)
    ids = [c["custom_id"] for c in walk(message["components"]) if "custom_id" in c]
    assert ids
    for custom_id in ids:
        assert any(
            cls.__discord_ui_compiled_template__.fullmatch(custom_id) for cls in DYNAMIC_ITEMS
        )
