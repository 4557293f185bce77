"""What members type or forge, refused privately and clearly (issue 9: typed input, raw payloads,
forged custom_ids), and closed posts' free hints and solutions.

Each case is one the issue names; tests/discord_ui/test_fuzz.py covers the rest of the space.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from discord import app_commands
from sqlalchemy import text

from bot.discord_ui.clicks import send_private
from bot.discord_ui.client import QuizBot
from bot.discord_ui.error_texts import OUT_OF_DATE, UNREADABLE, shown
from bot.discord_ui.params import Checked, readable_payload
from bot.quiz.engine import Progress
from bot.quiz.errors import ScheduleInputError, StoreAction
from bot.quiz.refs import TEXT_LIMIT
from bot.rendering import MESSAGE_CONTENT, discord_len
from bot.store import answers, posts
from tests.discord_ui.conftest import AUTOCOMPLETE, BUTTON, COMMAND, COMPONENT, Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    EPHEMERAL,
    GUILD_ID,
    MOD,
    UPDATE_MESSAGE,
    Call,
    FakeDiscordHTTP,
    find_component,
    interaction_payload,
    response,
)

CANT_FIND = "I can't find that quiz in this server"
INTEGER = 4


def troubles(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """Log records a member's input must never cause: errors, and anything with a traceback."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def post_id_of(message: dict[str, Any]) -> int:
    return int(message["components"][0]["components"][0]["custom_id"].split(":")[2])


def only_reply(fake: FakeDiscordHTTP, payload: dict[str, Any]) -> Call:
    """The one message-bearing answer to this interaction (and it was the only response)."""
    mine = [c for c in fake.calls if payload["token"] in c.url]
    assert len([c for c in mine if c.path.endswith("/callback")]) == 1
    (reply,) = [c for c in mine if c.data]
    return reply


async def forge(
    driver: Driver, message: dict[str, Any], custom_id: str, *, values: list[str] | None = None
) -> dict[str, Any]:
    """Click a component with `custom_id` on `message` as if the message carried it."""
    if values is None:
        component = {"type": BUTTON, "style": 1, "label": "x", "custom_id": custom_id}
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": BUTTON}
    else:
        component = {"type": 3, "custom_id": custom_id, "options": [{"label": "A", "value": "A"}]}
        data = {"custom_id": custom_id, "component_type": 3, "values": values}
    forged = {**message, "components": [{"type": 1, "components": [component]}]}
    payload = interaction_payload(driver.fake, kind=COMPONENT, data=data, message=forged)
    await driver.dispatch(payload)
    return payload


def private_message(fake: FakeDiscordHTTP) -> dict[str, Any]:
    return fake.message_payload({"flags": EPHEMERAL}, channel_id=0)


# -- typed input (defect 3) --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["hint", "solution"])
@pytest.mark.parametrize("task", ["²", "١٢", "9" * 20, "#99999999999999999999", "9" * 19])
async def test_a_task_that_is_no_post_is_refused_privately(
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    command: str,
    task: str,
) -> None:
    await driver.post("mc-split")
    payload = await driver.command(command, task=task)
    reply = only_reply(fake, payload)
    assert reply.ephemeral
    assert CANT_FIND in reply.text
    assert troubles(caplog) == []


@pytest.mark.parametrize("command", ["hint", "solution"])
async def test_the_post_autocomplete_takes_only_ascii_ids_in_range(
    driver: Driver, caplog: pytest.LogCaptureFixture, command: str
) -> None:
    await driver.post("mc-split")
    for current in ("²", "١", "9" * 20, "9" * 6000, "\x00x"):
        assert await driver.autocomplete(command, "task", task=current) == []
    for current in ("#1", "\x00", "mc-\x00"):  # no one types a NUL: it is left out
        assert [c["value"] for c in await driver.autocomplete(command, "task", task=current)] == [
            "1"
        ]
    assert troubles(caplog) == []


@pytest.mark.parametrize("option", ["topic", "task"])
async def test_3000_characters_are_refused_at_once_naming_the_option(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, option: str
) -> None:
    payload = await driver.command("quiz", **{option: "@everyone " * 300})
    mine = [c for c in fake.calls if payload["token"] in c.url]
    assert [c.callback_type for c in mine] == [CHANNEL_MESSAGE]  # no "thinking…" left behind
    assert mine[0].ephemeral
    assert mine[0].text == f"The `{option}` option takes at most 100 characters."
    assert fake.posts() == []
    assert troubles(caplog) == []


async def test_an_error_after_the_deferral_of_quiz_replaces_thinking(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    payload = await driver.command("quiz", topic="x" * 100)
    mine = [c for c in fake.calls if payload["token"] in c.url]
    assert mine[0].callback_type == DEFERRED_CHANNEL_MESSAGE
    (follow_up,) = mine[1:]
    assert follow_up.path == "/webhooks/{webhook_id}/{webhook_token}"
    assert follow_up.ephemeral
    assert "couldn't find a matching task" in follow_up.text


async def test_typed_text_quoted_back_is_escaped(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", task="**bold** @everyone <@111111111111111111>")
    reply = fake.last_reply()
    assert "'\\*\\*bold\\*\\* @\u200beveryone <@\u200b111111111111111111>'" in reply.text
    assert reply.data["allowed_mentions"] == {"parse": []}
    await driver.command("quiz", topic="[click](https://evil.example)\n@here")
    assert "no \\[click](https://evil.example)\ufffd@\u200bhere task" in fake.last_reply().text


# -- raw payloads (defect 4) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "options", "refusal"),
    [
        ("quiz", {"difficulty": "extreme"}, "The `difficulty` option takes one of: easy, "),
        ("leaderboard", {"period": "forever"}, "The `period` option takes one of: today, "),
        ("quiz", {"topic": ""}, None),  # empty is no topic: any task
        ("quiz", {"task": ""}, None),
    ],
)
async def test_a_value_outside_the_choices_is_refused_naming_the_option(
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    command: str,
    options: dict[str, Any],
    refusal: str | None,
) -> None:
    payload = await driver.command(command, **options)
    if refusal is None:
        assert "Posted" in fake.last_reply().text
        return
    reply = only_reply(fake, payload)
    assert reply.ephemeral
    assert reply.text.startswith(refusal)
    assert troubles(caplog) == []


async def test_a_member_that_is_not_in_the_server_is_refused_naming_the_option(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    data = {
        "id": "1",
        "name": "stats",
        "type": 1,
        "options": [{"name": "member", "type": 6, "value": "123456789012345678"}],
    }
    payload = interaction_payload(fake, kind=COMMAND, data=data)
    await driver.dispatch(payload)
    reply = only_reply(fake, payload)
    assert reply.ephemeral
    assert reply.text == "I can't use that value for `member`. Pick one from the list, please."
    assert troubles(caplog) == []


@pytest.mark.parametrize("value", ["abc", "", "9" * 21, str(2**63), "0", 123, None, "²"])
async def test_a_snowflake_option_discordpy_cannot_read_is_refused(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, value: Any
) -> None:
    data = {
        "id": "1",
        "name": "stats",
        "type": 1,
        "options": [{"name": "member", "type": 6, "value": value}],
    }
    assert not readable_payload(data)
    payload = interaction_payload(fake, kind=COMMAND, data=data)
    await driver.dispatch(payload)
    assert only_reply(fake, payload).text == UNREADABLE
    assert troubles(caplog) == []

    payload = interaction_payload(
        fake,
        kind=AUTOCOMPLETE,
        data={
            "id": "1",
            "name": "hint",
            "type": 1,
            "options": [
                {"name": "task", "type": 3, "value": "", "focused": True},
                {"name": "who", "type": 6, "value": value},
            ],
        },
    )
    await driver.dispatch(payload)
    (answer,) = [c for c in fake.calls if payload["token"] in c.url]
    assert answer.json["data"] == {"choices": []}


async def test_a_command_in_a_shape_the_bot_does_not_know_says_so(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    data = {
        "id": "1",
        "name": "schedule",
        "type": 1,
        "options": [{"name": "remove", "type": 1, "options": []}],
    }  # without its `id`
    payload = interaction_payload(fake, kind=COMMAND, data=data, member=MOD)
    await driver.dispatch(payload)
    assert only_reply(fake, payload).text == OUT_OF_DATE
    assert troubles(caplog) == []
    assert any("quizbot sync" in r.getMessage() for r in caplog.records)


# -- forged custom_ids (defect 4) --------------------------------------------------------------


@pytest.mark.parametrize(
    "custom_id", ["quiz:ans:{big}:A", "quiz:hint:{big}", "quiz:open:{big}", "quiz:ans:²:A"]
)
async def test_a_post_id_beyond_sqlite_is_an_unknown_post(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    post = await driver.post("mc-split")
    payload = await forge(driver, post, custom_id.format(big="9" * 20))
    reply = only_reply(fake, payload)
    assert reply.ephemeral
    assert CANT_FIND in reply.text
    assert troubles(caplog) == []


@pytest.mark.parametrize(
    "custom_id",
    [
        "quiz:ans",
        "quiz:ans:{post}",
        "quiz:hint",
        "quiz:open",
        "quiz:reveal",
        "quiz:submit",
        "quiz:submit:{post}",
        "quiz:pick:{post}",
        "quiz:pick:{post}:1",
    ],
)
async def test_a_custom_id_missing_fields_is_refused_not_ignored(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    post = await driver.post("mc-split")
    on = post if custom_id.startswith(("quiz:ans", "quiz:hint", "quiz:open")) else None
    forged = custom_id.format(post=post_id_of(post))
    payload = await forge(driver, on or private_message(fake), forged)
    reply = only_reply(fake, payload)
    assert reply.ephemeral and reply.text
    assert troubles(caplog) == []


async def test_picker_ids_on_a_choice_post_are_refused_and_record_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, caplog: pytest.LogCaptureFixture
) -> None:
    post = await driver.post("mc-split")
    post_id = post_id_of(post)
    for custom_id, on, values in [
        (f"quiz:open:{post_id}", post, None),
        (f"quiz:submit:{post_id}:B", private_message(fake), None),  # one pick: no picker
        (f"quiz:submit:{post_id}:BA", private_message(fake), None),
        (f"quiz:pick:{post_id}:1:B-", private_message(fake), ["B"]),
    ]:
        payload = await forge(driver, on, custom_id, values=values)
        reply = only_reply(fake, payload)
        assert reply.ephemeral
        assert reply.callback_type == CHANNEL_MESSAGE  # a new private message, no edit
        assert "doesn't fit this task's options" in reply.text, custom_id
    assert await bot.service.run_read(answers.read_progress, post_id, ALICE.id) == Progress()
    assert troubles(caplog) == []


async def test_blanks_and_labels_the_task_does_not_have_are_refused(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, caplog: pytest.LogCaptureFixture
) -> None:
    choice_id = post_id_of(await driver.post("mc-split"))
    two_id = post_id_of(await driver.post("fill-two"))
    picker = private_message(fake)
    for custom_id, values in [
        (f"quiz:pick:{two_id}:5:--", ["A"]),  # blank 5 of a two-blank task
        (f"quiz:pick:{two_id}:1:--", ["Z"]),  # no option Z
        (f"quiz:pick:{two_id}:1:---", ["A"]),  # three blanks' picks
        (f"quiz:submit:{two_id}:AZ", None),
        (f"quiz:submit:{two_id}:ABC", None),
    ]:
        payload = await forge(driver, picker, custom_id, values=values)
        assert "doesn't fit this task's options" in only_reply(fake, payload).text, custom_id
    payload = await forge(driver, await driver.post("mc-split"), f"quiz:ans:{choice_id}:Z")
    assert "doesn't fit this task's options" in only_reply(fake, payload).text
    assert await bot.service.run_read(answers.read_progress, two_id, ALICE.id) == Progress()
    assert await bot.service.run_read(answers.read_progress, choice_id, ALICE.id) == Progress()
    assert troubles(caplog) == []


@pytest.mark.parametrize("custom_id", ["quiz:reveal:{post}", "quiz:submit:{post}:AC"])
async def test_a_private_control_on_a_public_post_never_edits_it(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, custom_id: str
) -> None:
    post = await driver.post("fill-two")
    post_id = post_id_of(post)
    payload = await forge(driver, post, custom_id.format(post=post_id))
    reply = only_reply(fake, payload)
    assert reply.callback_type == CHANNEL_MESSAGE and reply.ephemeral
    assert "doesn't belong to this message" in reply.text
    assert not [c for c in fake.calls if c.callback_type == UPDATE_MESSAGE]
    assert await bot.service.run_read(answers.read_progress, post_id, ALICE.id) == Progress()


@pytest.mark.parametrize(
    "forged",
    [
        "quiz:next:abc:{shown}",
        "quiz:next:{session}:abc",
        "quiz:next:{big}:{shown}",
        "quiz:next:{session}:",
        "quiz:next:²:{shown}",
    ],
)
async def test_a_malformed_next_button_is_refused_privately_and_moves_no_session(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, forged: str
) -> None:
    started = await driver.command("practice", topic="MLOps")
    message = fake.response_to(started)
    real = find_component(message, r"quiz:next:\d+:\d+")["custom_id"]
    _, _, session, shown = real.split(":")
    custom_id = forged.format(session=session, shown=shown, big="9" * 20)
    payload = await forge(driver, message, custom_id)
    reply = only_reply(fake, payload)
    assert reply.ephemeral and reply.callback_type == CHANNEL_MESSAGE
    assert CANT_FIND in reply.text
    assert troubles(caplog) == []
    await driver.click(message, r"quiz:next:\d+:\d+")  # the real Next: still on task 1
    assert "Practice task 2" in fake.last_reply().text
    assert fake.channel_posts == []


async def test_next_on_another_members_session_is_refused_and_leaves_it_as_it_was(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    started = await driver.command("practice", topic="MLOps", member=BOB)
    bobs = fake.response_to(started)
    custom_id = find_component(bobs, r"quiz:next:\d+:\d+")["custom_id"]
    payload = await forge(driver, bobs, custom_id)  # Alice, with Bob's session's Next
    reply = only_reply(fake, payload)
    assert reply.ephemeral and reply.callback_type == CHANNEL_MESSAGE
    assert "another member's private practice" in reply.text
    assert troubles(caplog) == []
    await driver.click(bobs, r"quiz:next:\d+:\d+", member=BOB)  # Bob's session never moved
    mine = fake.last_reply()
    assert mine.ephemeral and "Practice task 2" in mine.text


# -- error replies -----------------------------------------------------------------------------


async def test_an_error_reply_is_cut_to_discords_limit(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def long_refusal(*args: Any, **kwargs: Any) -> Any:
        raise ScheduleInputError("x" * 5000)

    monkeypatch.setattr(bot.service, "stats", long_refusal)
    await driver.command("stats")
    content = fake.last_reply().data["content"]
    assert discord_len(content) == MESSAGE_CONTENT
    assert content.endswith("…")
    assert shown("💡" * 1500) == "💡" * 999 + "…"  # Discord counts UTF-16 units


async def test_a_reply_that_cannot_be_sent_is_a_warning_without_traceback(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail["/interactions/{webhook_id}/{webhook_token}/callback"] = discord.NotFound(
        response(404, "Not Found"), {"message": "Unknown interaction", "code": 10062}
    )
    await driver.command("quiz", difficulty="extreme")
    (record,) = [r for r in caplog.records if "could not send" in r.getMessage()]
    assert record.levelno == logging.WARNING
    assert record.exc_info is None
    assert "Unknown interaction" in record.getMessage()
    assert troubles(caplog) == []


async def test_send_private_cuts_what_it_is_given(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    payload = interaction_payload(fake, kind=COMMAND, data={"id": "1", "name": "x", "type": 1})
    interaction = discord.Interaction(data=payload, state=bot._connection)  # type: ignore[arg-type]
    await send_private(interaction, "y" * 3000)
    assert discord_len(fake.last_reply().data["content"]) == MESSAGE_CONTENT


# -- closed posts (defect 8) -------------------------------------------------------------------


async def closed_post(driver: Driver, bot: QuizBot, task: str = "mc-split") -> dict[str, Any]:
    post = await driver.post(task)
    assert await bot.service.run_write(
        StoreAction.WRITE, posts.close_post, post_id_of(post), datetime.now(UTC)
    )
    return post


def reveals(bot: QuizBot) -> list[tuple[Any, ...]]:
    with bot.service.store.read() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT post_id, user_id, kind FROM reveal"))]


async def test_the_hint_button_on_a_closed_post_is_free_and_records_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await closed_post(driver, bot)
    await driver.click(post, r"quiz:hint:\d+")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.data["content"] == "This quiz has closed, so the hint is free."
    assert "what gets copied" in reply.text
    assert "halved" not in reply.text
    assert (
        await bot.service.run_read(answers.read_progress, post_id_of(post), ALICE.id) == Progress()
    )
    assert reveals(bot) == []


async def test_hint_on_a_closed_post_is_free_and_records_nothing(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await closed_post(driver, bot)
    await driver.command("hint", task=str(post_id_of(post)))
    reply = fake.last_reply()
    assert reply.data["content"] == "This quiz has closed, so the hint is free."
    assert (
        await bot.service.run_read(answers.read_progress, post_id_of(post), ALICE.id) == Progress()
    )
    assert reveals(bot) == []


async def test_solution_on_a_closed_post_is_shown_without_the_forfeit_prompt(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await closed_post(driver, bot)
    await driver.command("solution")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.data["content"] == "This quiz has closed, so here's the worked solution."
    assert "Data parallelism copies the model" in reply.text
    assert reply.custom_ids() == []  # no "Show the solution (forfeits…)" button
    assert (
        await bot.service.run_read(answers.read_progress, post_id_of(post), ALICE.id) == Progress()
    )
    assert reveals(bot) == []


async def test_a_closed_posts_free_hint_and_solution_wait_while_its_task_is_open_for_you_elsewhere(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    # The same task posted again: the closed post's free look would tell Alice the answer she
    # can still score with on the new one.
    closed = await closed_post(driver, bot)
    again = await driver.post("mc-split")
    link = f"https://discord.com/channels/{GUILD_ID}/{again['channel_id']}/{again['id']}"
    await driver.command("solution", task=str(post_id_of(closed)))
    refused = fake.last_reply()
    assert refused.ephemeral
    assert "still open for you on another post" in refused.text
    assert link in refused.text
    assert "Data parallelism copies the model" not in refused.text
    await driver.click(closed, r"quiz:hint:\d+")
    assert "still open for you on another post" in fake.last_reply().text
    assert "what gets copied" not in fake.last_reply().text
    assert reveals(bot) == []
    # Bob finished the new post: for him the closed post's solution is free, as before.
    await driver.click(again, r"quiz:ans:\d+:B", member=BOB)
    await driver.command("solution", member=BOB, task=str(post_id_of(closed)))
    assert "Data parallelism copies the model" in fake.last_reply().text
    # And so it is for Alice once she has answered there.
    await driver.click(again, r"quiz:ans:\d+:A")
    await driver.click(again, r"quiz:ans:\d+:C")
    await driver.click(again, r"quiz:ans:\d+:D")
    await driver.command("solution", task=str(post_id_of(closed)))
    assert "Data parallelism copies the model" in fake.last_reply().text


async def test_answers_on_a_closed_post_are_refused(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await closed_post(driver, bot)
    await driver.click(post, r"quiz:ans:\d+:B")
    assert "This quiz has closed" in fake.last_reply().text
    assert fake.last_reply().ephemeral
    assert (
        await bot.service.run_read(answers.read_progress, post_id_of(post), ALICE.id) == Progress()
    )


async def test_raw_schedule_ids_beyond_int64_name_the_option(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    for sub in ("remove", "pause", "resume"):
        for value in (10**20, 0, -1, "7", 2**63):
            data = {
                "id": "1",
                "name": "schedule",
                "type": 1,
                "options": [
                    {
                        "name": sub,
                        "type": 1,
                        "options": [{"name": "id", "type": INTEGER, "value": value}],
                    }
                ],
            }
            payload = interaction_payload(fake, kind=COMMAND, data=data, member=MOD)
            await driver.dispatch(payload)
            reply = only_reply(fake, payload)
            assert reply.ephemeral
            assert "no daily quiz with that `id`" in reply.text
    assert troubles(caplog) == []


# -- the declarations --------------------------------------------------------------------------


def test_every_typed_option_is_declared_bounded_and_parsed_under_its_own_name(
    bot: QuizBot,
) -> None:
    """Discord's client enforces what an option declares; the transformer (`Checked`) parses
    the same bounds again for raw payloads, and names the option in its refusal."""
    checked = 0
    for command in bot.tree.walk_commands():
        if not isinstance(command, app_commands.Command):
            continue
        for param in command.parameters:
            where = f"/{command.qualified_name} {param.display_name}"
            if param.type is discord.AppCommandOptionType.string:
                assert param.choices or (param.max_value or 10**9) <= TEXT_LIMIT, where
            if param.type is discord.AppCommandOptionType.integer:
                assert param.min_value is not None, where
            # The transformer behind the option: only discord.py's own keeps it private.
            transformer = command._params[param.name]._annotation
            if param.type in CHECKED_TYPES:
                assert isinstance(transformer, Checked), where
                assert transformer.option == param.display_name, where
                checked += 1
    assert checked >= 15


CHECKED_TYPES = {
    discord.AppCommandOptionType.string,
    discord.AppCommandOptionType.integer,
    discord.AppCommandOptionType.boolean,
    discord.AppCommandOptionType.role,
}
