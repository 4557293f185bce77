"""A server's first hour with the real bot process (issue 29): the welcome when the bot joins,
once and never again (restarts, reconnects, a removal and re-add); /help for a member and a
moderator; /config show and /config cooldown, refused to a member's crafted payload, and the
cooldown followed by /quiz."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import pytest
from fakediscord import Channel, Driver, Member, Message
from fakediscord import permissions as perm

from . import test_bot_e2e as base
from .bot_helpers import (
    STEP,
    QuizBotRunner,
    is_ephemeral,
    raw_command,
    reply_of,
    text_of,
)
from .test_bot_e2e import MC1, MC2, World, started

pytestmark = pytest.mark.e2e

world = base.world
quizbot = base.quizbot
quizbot_backend = base.quizbot_backend


async def logged(quizbot: QuizBotRunner, line: str, timeout: float = STEP) -> None:  # noqa: ASYNC109
    """Wait until the running bot's log has `line` (what it did when it did nothing else)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while line not in quizbot.current.log_path.read_text(errors="replace"):
        assert loop.time() < deadline, f"never logged {line!r}:\n{quizbot.logs()[-3000:]}"
        await asyncio.sleep(0.05)


async def help_works(driver: Driver, world: World) -> None:
    """An interaction answered: the bot has handled every event sent before it."""
    reply = await reply_of(driver.slash("help", user=world.alice, channel=world.channels["quiz"]))
    assert is_ephemeral(reply)


def messages(driver: Driver, *channels: Channel) -> list[Message]:
    return [m for channel in channels for m in driver.channel_messages(channel)]


async def test_a_server_that_adds_the_bot_is_welcomed_once(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    # discord.py counts a GUILD_CREATE before its READY (2 s after the last one) as a server
    # it was already in.
    await logged(quizbot, "logged in as")
    assert messages(driver, *world.channels.values()) == []  # a server known at start: none

    # Added to a server with a system channel it may write in.
    new = driver.create_guild("Newcomers", with_bot=False)
    general = driver.create_text_channel(new, "general")
    joins = driver.create_text_channel(new, "joins")
    driver.set_system_channel(new, joins)
    driver.add_bot(new)
    welcome = await driver.wait_for_message(joins, timeout=STEP)
    assert welcome["author"]["id"] == str(driver.bot_user.id)
    assert not is_ephemeral(welcome)
    for command in ("/quiz", "/help", "/schedule add"):
        assert f"`{command}`" in text_of(welcome)
    assert driver.channel_messages(general) == []
    rows = quizbot.query("SELECT guild_id FROM guild_welcome")
    assert [row["guild_id"] for row in rows] == [new.id]

    # A restart, a new session (every server's GUILD_CREATE again), a removal and re-add.
    await quizbot.restart(signal.SIGTERM)
    await logged(quizbot, "logged in as")
    await help_works(driver, world)
    identified = driver.identify_count
    driver.invalidate_session()
    await driver.wait_for_identify(identified + 1)
    await asyncio.sleep(3)  # discord.py's READY, after the GUILD_CREATEs
    await help_works(driver, world)
    driver.remove_bot(new)
    driver.add_bot(new)
    await logged(quizbot, f"joined server {new.id} again: it was welcomed before")
    assert messages(driver, general, joins) == [welcome]

    # No system channel: the first channel in the list it may write in.
    other = driver.create_guild("Readers", with_bot=False)
    rules = driver.create_text_channel(other, "rules")
    driver.set_permissions(rules, other, deny=perm.SEND_MESSAGES)
    chat = driver.create_text_channel(other, "chat")
    driver.add_bot(other)
    await driver.wait_for_message(chat, timeout=STEP)
    assert driver.channel_messages(rules) == []

    # Nowhere to write: one line, no welcome.
    closed = driver.create_guild("Closed", with_bot=False)
    news = driver.create_text_channel(closed, "news")
    driver.set_permissions(news, closed, deny=perm.SEND_MESSAGES)
    driver.add_bot(closed)
    await logged(quizbot, f"joined server {closed.id}: no channel the bot may write in")
    assert driver.channel_messages(news) == []


async def test_help_shows_a_member_theirs_and_a_moderator_theirs_too(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["quiz"]
    member = await reply_of(driver.slash("help", user=world.alice, channel=channel))
    assert is_ephemeral(member)
    said = text_of(member)
    assert "**Play**" in said and "`/quiz [topic] [difficulty] [task]`" in said
    assert "**Moderators**" not in said and "/config" not in said
    moderator = await reply_of(driver.slash("help", user=world.owner, channel=channel))
    assert is_ephemeral(moderator)
    assert "**Moderators**" in text_of(moderator)
    assert "`/config cooldown seconds`" in text_of(moderator)
    assert driver.channel_messages(channel) == []


def raw_config(
    driver: Driver, world: World, who: Member, sub: str, **options: Any
) -> dict[str, Any]:
    """/config <sub> as a crafted payload (integer options): Discord's client hides /config
    from members and keeps numbers within the declared range; a raw request does neither."""
    inner = [{"type": 4, "name": name, "value": value} for name, value in options.items()]
    payload = [{"type": 1, "name": sub, "options": inner}]
    return raw_command(driver, world, who, world.channels["quiz"], "config", payload, {})


async def test_config_show_and_cooldown_are_moderators_and_quiz_follows_the_cooldown(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["quiz"]
    for sub, options in (("show", {}), ("cooldown", {"seconds": 0})):
        refusal = await reply_of(
            driver.send_raw_interaction(raw_config(driver, world, world.alice, sub, **options))
        )
        assert is_ephemeral(refusal)
        assert "Only moderators" in refusal["content"]
        assert "Cooldown" not in text_of(refusal)
    assert quizbot.query("SELECT * FROM guild_config") == []

    too_long = await reply_of(
        driver.send_raw_interaction(
            raw_config(driver, world, world.owner, "cooldown", seconds=5000)
        )
    )
    assert is_ephemeral(too_long)
    assert too_long["content"] == "The `seconds` option takes a whole number from 0 to 3,600."
    assert quizbot.query("SELECT * FROM guild_config") == []

    done = await reply_of(
        driver.slash("config cooldown", user=world.owner, channel=channel, options={"seconds": 0})
    )
    assert is_ephemeral(done) and "none" in done["content"]
    [row] = quizbot.query(
        "SELECT cooldown_seconds FROM guild_config WHERE guild_id = ?", world.guild.id
    )
    assert row["cooldown_seconds"] == 0
    shown = await reply_of(driver.slash("config show", user=world.owner, channel=channel))
    assert is_ephemeral(shown)
    assert "none: `/quiz` may post in a channel at any time" in text_of(shown)

    # Two posts in a row in one channel: no cooldown now.
    for task in (MC1, MC2):
        confirm = await reply_of(
            driver.slash("quiz", user=world.alice, channel=channel, options={"task": task})
        )
        assert "Posted" in confirm["content"], confirm
    posts = [m for m in driver.channel_messages(channel) if m.get("embeds")]
    assert len(posts) == 2
