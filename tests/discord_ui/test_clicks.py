"""Component clicks and modal submits routed by the bot itself (bot/discord_ui/clicks.py): each
click on one of our controls runs its item once, wherever the control sits, each submit of our
modals its handler, and nothing else is answered."""

from __future__ import annotations

import gc
from typing import Any, ClassVar

import discord
import pytest

from bot.discord_ui import clicks, typed
from bot.discord_ui.client import QuizBot
from bot.discord_ui.post_view import DYNAMIC_ITEMS, AnswerButton, HintButton
from bot.i18n import _, speaking
from tests.discord_ui.conftest import BUTTON, COMPONENT, Driver
from tests.discord_ui.fakes import BOB, FakeDiscordHTTP, Member, interaction_payload

MODAL_SUBMIT = 5


def replies_to(fake: FakeDiscordHTTP, payload: dict[str, Any]) -> list[Any]:
    token = payload["token"]
    return [call for call in fake.replies() if token in call.url]


async def test_every_click_on_a_post_and_a_private_task_gets_exactly_one_reply(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split")
    for pattern in (r"quiz:ans:\d+:A", r"quiz:hint:\d+", r"quiz:ans:\d+:C", r"quiz:ans:\d+:B"):
        payload = await driver.click(post, pattern, member=BOB)
        assert len(replies_to(fake, payload)) == 1, pattern
    # The reply to a wrong answer counts the attempts once each (a click run twice would not).
    payload = await driver.click(post, r"quiz:ans:\d+:A")
    assert "**2** attempts left" in replies_to(fake, payload)[0].text
    await driver.click(post, r"quiz:ans:\d+:B")  # finished: practice may serve its task now
    started = await driver.command("practice", topic="MLOps")
    task = fake.response_to(started)
    payload = await driver.click(task, r"quiz:next:\d+:\d+")
    assert len(replies_to(fake, payload)) == 1
    assert "Practice task 2" in fake.last_reply().text


async def test_discord_py_keeps_no_view_and_no_item_class_of_ours(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """Registered or stored, discord.py would dispatch every click a second time."""
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:A")
    started = await driver.command("practice", topic="MLOps")
    await driver.click(fake.response_to(started), r"quiz:next:\d+:\d+")
    store = bot._connection._view_store
    assert store._dynamic_items == {}  # type: ignore[attr-defined]
    assert store.persistent_views == []
    assert store._synced_message_views == {}  # type: ignore[attr-defined]


def test_each_custom_id_of_ours_routes_to_its_one_class_and_others_to_none(
    bot: QuizBot,
) -> None:
    routed = bot.clicks.route("quiz:ans:42:B")
    assert routed is not None and routed[0] is AnswerButton and routed[1]["post_id"] == "42"
    routed = bot.clicks.route("quiz:hint:7")
    assert routed is not None and routed[0] is HintButton
    # A cog's own, added as it loads (discord.py imports the extension afresh: by name).
    routed = bot.clicks.route("mydata:erase:11")
    assert routed is not None and routed[0].__name__ == "EraseButton"
    added = bot.clicks.controls[len(DYNAMIC_ITEMS) :]
    assert bot.clicks.controls[: len(DYNAMIC_ITEMS)] == DYNAMIC_ITEMS
    assert [cls.__name__ for cls in added] == ["EraseButton", "KeepButton"]
    for other in ("go", "quiz", "quizz:ans:1:A", "poll:1", "mydata", ""):
        assert bot.clicks.route(other) is None, other
    # Matched as discord.py would match it (`DynamicItem.template`).
    for cls in bot.clicks.controls:
        assert cls.pattern.pattern == cls.__discord_ui_compiled_template__.pattern


async def test_a_click_not_ours_or_on_a_message_without_that_control_is_left_alone(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split")
    before = len(fake.replies())
    # Someone else's button on our message: not ours to answer.
    data = {"custom_id": "poll:vote:1", "component_type": BUTTON}
    await driver.dispatch(interaction_payload(fake, kind=COMPONENT, data=data, message=post))
    # Our custom_id, but the message does not hold that control: discord.py ignored these too.
    data = {"custom_id": "quiz:ans:999:A", "component_type": BUTTON}
    await driver.dispatch(interaction_payload(fake, kind=COMPONENT, data=data, message=post))
    assert len(fake.replies()) == before


def modal_submit(fake: FakeDiscordHTTP, custom_id: str, value: str, locale: str) -> dict[str, Any]:
    text_input = {"type": 4, "custom_id": typed.INPUT_ID, "value": value}
    data = {"custom_id": custom_id, "components": [{"type": 1, "components": [text_input]}]}
    payload = interaction_payload(fake, kind=MODAL_SUBMIT, data=data)
    payload["locale"] = locale
    return payload


async def test_a_modal_submit_reaches_its_handler_through_the_router_and_its_guard(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """The router is the one listener for modal submits too (`Router.on_modal`): each of ours
    gets one private reply in the member's language, a forged one the guard's refusal."""
    before = len(fake.replies())
    for custom_id in ("poll:form", "quiz:typedx:1", "quiz:clozed:1", ""):  # not ours
        await driver.dispatch(modal_submit(fake, custom_id, "x", "en-US"))
    assert len(fake.replies()) == before

    blank = modal_submit(fake, "quiz:typed:1", "  ", "de")
    await driver.dispatch(blank)
    (reply,) = replies_to(fake, blank)
    with speaking("de"):
        german = _(typed.BLANK)
    assert german != typed.BLANK
    assert reply.ephemeral and reply.text == german

    forged = modal_submit(fake, "quiz:typed:abc", "42", "en-US")
    await driver.dispatch(forged)
    (reply,) = replies_to(fake, forged)
    assert reply.ephemeral and reply.text and reply.text != typed.BLANK


def test_the_clicked_control_is_rebuilt_alone_from_rows_and_layouts(bot: QuizBot) -> None:
    button = {"type": 2, "style": 2, "label": "B · two", "custom_id": "quiz:ans:5:B"}
    select = {
        "type": 3,
        "custom_id": "quiz:pick:5:2:A-",
        "options": [{"label": "one", "value": "A"}, {"label": "two", "value": "B"}],
    }
    rows = [{"type": 1, "components": [button]}, {"type": 1, "components": [select]}]
    layout = [{"type": 17, "components": [{"type": 10, "content": "x"}, *rows]}]
    for components in (rows, layout):
        message = discord.Message(
            state=bot._connection,
            channel=bot.get_partial_messageable(1),  # type: ignore[arg-type]
            data=message_payload(components),
        )
        found = clicks.clicked_item(message, "quiz:ans:5:B")
        assert isinstance(found, discord.ui.Button) and found.label == "B · two"
        picked = clicks.clicked_item(message, "quiz:pick:5:2:A-")
        assert isinstance(picked, discord.ui.Select)
        assert [o.value for o in picked.options] == ["A", "B"]
        assert clicks.clicked_item(message, "quiz:ans:5:C") is None
    assert clicks.clicked_item(None, "quiz:ans:5:B") is None


def message_payload(components: list[dict[str, Any]]) -> Any:
    return {
        "id": "10",
        "channel_id": "1",
        "type": 0,
        "content": "",
        "author": {"id": "2", "username": "quizbot", "discriminator": "0", "avatar": None},
        "attachments": [],
        "embeds": [],
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "mention_everyone": False,
        "tts": False,
        "timestamp": "2026-12-01T12:00:00+00:00",
        "edited_timestamp": None,
        "flags": 1 << 15 if components[0]["type"] == 17 else 0,
        "components": components,
    }


def test_a_control_whose_fields_its_template_does_not_name_is_refused_at_import() -> None:
    with pytest.raises(TypeError, match="no group for \\['option'\\]"):

        class Typo(
            clicks.Control,
            discord.ui.DynamicItem[discord.ui.Button[Any]],
            template=r"quiz:typo(?::(?P<post_id>[^:]*))?(?::(?P<opt>[\s\S]*))?",
        ):
            FIELDS: ClassVar[clicks.Fields] = {"post_id": int, "option": str}


def test_release_drops_the_response_discord_py_caches(bot: QuizBot, fake: FakeDiscordHTTP) -> None:
    """`release` deletes a private attribute of discord.py's: this fails when discord.py renames
    the cache (then `release` would silently do nothing) or stops caching (then it can go)."""
    data = {"custom_id": "quiz:hint:1", "component_type": BUTTON}
    payload = interaction_payload(fake, kind=COMPONENT, data=data)
    interaction = discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]
    response = interaction.response
    assert interaction.response is response, "discord.py no longer caches the response"
    clicks.release(interaction)
    assert interaction.response is not response, "release no longer drops the cached response"
    clicks.release(discord.Interaction(data=payload, state=bot._connection))  # nothing cached


async def test_an_answered_click_leaves_little_for_the_cyclic_collector(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """The interaction, its message and member are freed when the click is done (`release`),
    not by the collector's passes: a click used to leave ~40 objects of cyclic garbage."""
    post = await driver.post("mc-split")
    members = [Member(9000 + n, f"m{n}") for n in range(40)]
    await driver.click(post, r"quiz:ans:\d+:A", member=members[0])  # warm the caches
    gc.collect()
    gc.disable()
    try:
        for member in members[1:]:
            await driver.click(post, r"quiz:ans:\d+:A", member=member)
        garbage = gc.collect()
    finally:
        gc.enable()
    assert garbage / (len(members) - 1) < 15


async def test_a_practice_step_sent_with_its_buttons_leaves_little_garbage(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """A sent task's view and buttons (`clicks.spent`) and a command's interaction (freed on
    completion) go when the reply is sent: a /practice and a Next used to leave ~80 objects."""
    members = [Member(9100 + n, f"p{n}") for n in range(21)]
    started = await driver.command("practice", topic="MLOps", member=members[0])  # warm up
    await driver.click(fake.response_to(started), r"quiz:next:\d+:\d+", member=members[0])
    gc.collect()
    gc.disable()
    try:
        for member in members[1:]:
            started = await driver.command("practice", topic="MLOps", member=member)
            await driver.click(fake.response_to(started), r"quiz:next:\d+:\d+", member=member)
        garbage = gc.collect()
    finally:
        gc.enable()
    assert garbage / (2 * (len(members) - 1)) < 15
