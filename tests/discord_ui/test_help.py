"""/help through the real command tree, from raw interaction payloads (the shared `Driver`):
what a member sees, what a moderator sees besides, and that the lines are the tree's own."""

from __future__ import annotations

import logging

import discord
import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs import help as help_cog
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import (
    ALICE,
    GUILD_ID,
    MOD,
    Call,
    FakeDiscordHTTP,
    Member,
    command_data,
    interaction_payload,
)
from tests.discord_ui.test_schedule_cog import TUTOR, TUTORS, cache_guild

MODERATOR_LINES = (
    "`/schedule add channel time [timezone] [topic] [difficulty] [count] [thread]` — ",
    "`/config show` — This server's settings at a glance.",
    "`/config cooldown seconds` — How long /quiz waits between posts in a channel.",
    "`/insights overview [period] [post]` — ",
    "`/insights tasks [topic] [flag] [page]` — ",
    "`/bank upload file [topic]` — ",
)


async def run_help(
    driver: Driver, fake: FakeDiscordHTTP, member: Member, *, guild: bool = True
) -> Call:
    payload = interaction_payload(
        fake, kind=COMMAND, data=command_data("help"), member=member, guild=guild
    )
    reply = await driver.one_reply(payload)
    assert reply.ephemeral
    return reply


def sections(reply: Call) -> dict[str, list[str]]:
    """The embed's sections: each bold heading and the lines under it."""
    (embed,) = reply.data["embeds"]
    shown: dict[str, list[str]] = {}
    for block in embed["description"].split("\n\n"):
        heading, *lines = block.split("\n")
        assert heading.startswith("**") and heading.endswith("**"), block
        shown[heading.strip("*")] = lines
    return shown


def member_commands(bot: QuizBot) -> set[str]:
    """Every top-level command Discord shows to every member (no default permissions)."""
    return {
        c.name
        for c in bot.tree.get_commands(type=discord.AppCommandType.chat_input)
        if c.default_permissions is None
    }


async def test_a_member_sees_their_commands_grouped_and_no_moderators_ones(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    shown = sections(await run_help(driver, fake, ALICE))
    assert list(shown)[:3] == ["Play", "Practice & review", "Progress"]
    assert "Moderators" not in shown
    play = shown["Play"]
    assert "`/quiz [topic] [difficulty] [task]` — Post a practice task in this channel." in play
    assert "`/hint [task]` — A private hint (it halves the points)." in play
    assert any(
        line.startswith("`/reminders on [hour] [timezone]` — ")
        for line in shown["Practice & review"]
    )
    text = "\n".join(line for lines in shown.values() for line in lines)
    for name in member_commands(bot) - {"help"}:
        assert f"`/{name}" in text, name
    for moderators_only in ("/schedule", "/config", "/insights", "/bank"):
        assert moderators_only not in text
    assert fake.posts() == []


async def test_a_moderator_also_sees_theirs(driver: Driver, fake: FakeDiscordHTTP) -> None:
    reply = await run_help(driver, fake, MOD)
    shown = sections(reply)
    assert list(shown)[-1] == "Moderators"
    for start in MODERATOR_LINES:
        assert any(line.startswith(start) for line in shown["Moderators"]), start
    assert "Play" in shown
    # The whole list fits in one embed, nothing cut.
    (embed,) = reply.data["embeds"]
    assert len(embed["description"]) < 4096
    assert not embed["description"].endswith("…")
    assert "You are a moderator here" in embed["footer"]["text"]


async def test_the_moderator_role_counts_as_the_bot_checks_it(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    cache_guild(bot)
    assert "Moderators" not in sections(await run_help(driver, fake, TUTOR))
    await bot.service.update_guild_config(GUILD_ID, mod_role_id=TUTORS)
    assert "Moderators" in sections(await run_help(driver, fake, TUTOR))


async def test_when_only_moderators_post_a_member_is_not_offered_quiz(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await bot.service.update_guild_config(GUILD_ID, post_policy="mods")
    reply = await run_help(driver, fake, ALICE)
    assert not any(line.startswith("`/quiz") for line in sections(reply)["Play"])
    assert "only moderators post quizzes" in reply.data["embeds"][0]["footer"]["text"]
    assert any(
        line.startswith("`/quiz") for line in sections(await run_help(driver, fake, MOD))["Play"]
    )


async def test_from_a_dm_it_says_it_works_in_a_server(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    reply = await run_help(driver, fake, ALICE, guild=False)
    assert reply.text == "This command only works in a server."
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


def test_every_shipped_command_has_a_section(bot: QuizBot) -> None:
    """A new command lands in a named section (SECTIONS), not in "More"."""
    tree = bot.tree.get_commands(type=discord.AppCommandType.chat_input)
    shown = help_cog.help_sections(tree, moderator=True, may_post=True, running="help")
    assert help_cog.MORE not in shown
    assert set(shown) == {"Play", "Practice & review", "Progress", "Moderators"}
    # Every subcommand has its own line.
    lines = [line for group in shown.values() for line in group]
    assert sum(line.startswith("`/schedule ") for line in lines) == 5
    assert len(lines) == len(set(lines))
