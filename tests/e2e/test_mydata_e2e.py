"""Your data, in the real bot process against the emulated Discord: /mydata show sums up a
member's own data privately, /mydata delete deletes it after their own confirmation and takes
their points off the leaderboard at once, and nothing of another member's is shown or touched.
When the bot is removed from a server, its data is marked and (with no grace) deleted; a
server the bot is added back to keeps it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import DiscordEmulator, Driver

from . import test_bot_e2e as base
from .bot_helpers import (
    ANSWERS,
    STEP,
    QuizBotRunner,
    checked_bot,
    click,
    custom_ids,
    is_ephemeral,
    raw_command,
    reply_of,
    text_of,
    wrong_option,
)
from .test_bot_e2e import MC1, World, answer, post_quiz, started

pytestmark = pytest.mark.e2e

world = base.world
quizbot = base.quizbot
quizbot_backend = base.quizbot_backend

MEMBER_TABLES = (
    "attempt",
    "score",
    "reveal",
    "member",
    "member_total",
    "review_card",
    "member_rating",
)


def rows_of(quizbot: QuizBotRunner, guild_id: int, user_id: int) -> dict[str, int]:
    return {
        table: quizbot.query(
            f"SELECT count(*) AS n FROM {table} WHERE guild_id = ? AND user_id = ?",
            guild_id,
            user_id,
        )[0]["n"]
        for table in MEMBER_TABLES
    }


async def test_a_member_sees_and_deletes_their_own_data_and_no_one_elses(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["quiz"]
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    (right,) = ANSWERS[MC1]
    await answer(driver, post, post_id, wrong_option(MC1), world.bob)
    await answer(driver, post, post_id, right, world.bob)
    await answer(driver, post, post_id, right, world.alice)
    board = await reply_of(driver.slash("leaderboard", user=world.bob, channel=channel))
    assert "alice" in text_of(board) and "bob" in text_of(board)
    bob_rows = rows_of(quizbot, world.guild.id, world.bob.id)

    shown = await reply_of(driver.slash("mydata show", user=world.alice, channel=channel))
    assert is_ephemeral(shown), shown
    text = text_of(shown)
    assert "What I keep about you in this server" in text
    assert "**alice**" in text and "1 answer (1 right)" in text
    assert "Posted with /quiz: 1 task" in text
    assert "bob" not in text  # nothing of another member's

    prompt = await reply_of(driver.slash("mydata delete", user=world.alice, channel=channel))
    assert is_ephemeral(prompt)
    assert "cannot be undone" in text_of(prompt)
    erase = f"mydata:erase:{world.alice.id}"
    assert custom_ids(prompt) == [erase, f"mydata:keep:{world.alice.id}"]

    # Bob replaying her button (a forged click) deletes nothing, of hers or his.
    forged = raw_command(driver, world, world.bob, channel, "mydata", [], {})
    forged.update(type=3, data={"custom_id": erase, "component_type": 2}, message=prompt)
    refused = await reply_of(driver.send_raw_interaction(forged))
    assert is_ephemeral(refused)
    assert "for the member who asked" in text_of(refused)
    assert rows_of(quizbot, world.guild.id, world.alice.id)["attempt"] == 1
    assert rows_of(quizbot, world.guild.id, world.bob.id) == bob_rows

    done = await reply_of(click(driver, prompt, erase, user=world.alice))
    assert "I deleted everything I kept about you in this server" in text_of(done)
    assert "1 answer" in text_of(done)
    assert custom_ids(done) == []  # the buttons are gone
    assert set(rows_of(quizbot, world.guild.id, world.alice.id).values()) == {0}
    assert rows_of(quizbot, world.guild.id, world.bob.id) == bob_rows
    [row] = quizbot.query("SELECT posted_by FROM post WHERE id = ?", post_id)
    assert row["posted_by"] is None  # her post stays the channel's, without her id

    board = await reply_of(driver.slash("leaderboard", user=world.bob, channel=channel))
    assert "alice" not in text_of(board) and "bob" in text_of(board)
    again = await reply_of(driver.slash("mydata show", user=world.alice, channel=channel))
    assert "I keep nothing about you in this server." in text_of(again)


async def test_keep_it_deletes_nothing(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    channel = world.channels["quiz"]
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    await answer(driver, post, post_id, ANSWERS[MC1][0], world.alice)
    prompt = await reply_of(driver.slash("mydata delete", user=world.alice, channel=channel))
    kept = await reply_of(click(driver, prompt, f"mydata:keep:{world.alice.id}", user=world.alice))
    assert "Nothing was deleted." in text_of(kept)
    assert rows_of(quizbot, world.guild.id, world.alice.id)["attempt"] == 1


@pytest_asyncio.fixture
async def quick_purge(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
    async with checked_bot(emulator, tmp_path, env={"REMOVAL_GRACE_DAYS": "0"}) as bot:
        yield bot


async def test_a_server_that_removes_the_bot_loses_its_data_after_the_grace(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    await answer(driver, post, post_id, ANSWERS[MC1][0], world.alice)
    driver.remove_bot(world.guild)
    await quizbot.wait_for_query(
        "SELECT guild_id FROM guild_removal WHERE guild_id = ?", world.guild.id
    )
    driver.add_bot(world.guild)
    await quizbot.wait_for_query(
        "SELECT guild_id FROM guild_removal WHERE guild_id = ?",
        world.guild.id,
        until=lambda rows: not rows,
    )
    assert rows_of(quizbot, world.guild.id, world.alice.id)["attempt"] == 1  # kept


async def test_with_no_grace_a_removed_servers_data_is_deleted_at_once(
    driver: Driver, world: World, quick_purge: QuizBotRunner
) -> None:
    quizbot = quick_purge
    await started(quizbot, world)
    other = driver.create_guild("Other Group")
    elsewhere = driver.create_text_channel(other, "quiz")
    owner = other.members[other.owner_id]
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    await answer(driver, post, post_id, ANSWERS[MC1][0], world.alice)
    reply = await reply_of(
        driver.slash("quiz", user=owner, channel=elsewhere, options={"task": MC1})
    )
    assert "Posted" in reply["content"]
    driver.remove_bot(world.guild)
    await quizbot.wait_for_query(
        "SELECT id FROM post WHERE guild_id = ?",
        world.guild.id,
        until=lambda rows: not rows,
        timeout=STEP,
    )
    assert set(rows_of(quizbot, world.guild.id, world.alice.id).values()) == {0}
    assert quizbot.query("SELECT count(*) AS n FROM post WHERE guild_id = ?", other.id)[0]["n"] == 1
    assert "its data is deleted" in quizbot.logs()


async def test_a_removal_while_the_bot_was_down_is_noticed_when_it_starts(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    post, post_id = await post_quiz(driver, quizbot, world, "quiz", MC1)
    await answer(driver, post, post_id, ANSWERS[MC1][0], world.alice)
    await quizbot.kill()
    driver.remove_bot(world.guild)
    await quizbot.start()
    await quizbot.wait_for_query(
        "SELECT guild_id FROM guild_removal WHERE guild_id = ?", world.guild.id
    )
    assert rows_of(quizbot, world.guild.id, world.alice.id)["attempt"] == 1  # until the grace ends
