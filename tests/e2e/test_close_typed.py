"""A daily quiz with a typed answer closes with the group's common wrong answer: three members
typing "lyon" however they spell its case and spaces are one answer, named in the channel's
summary with its note; an answer only two members gave is not named, so no one is singled out."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import DiscordEmulator, Driver, Member, Message

from . import test_bot_e2e as base
from .bot_helpers import (
    STEP,
    QuizBotRunner,
    attempts,
    banks_env,
    checked_bot,
    is_ephemeral,
    reply_of,
    text_of,
)
from .test_bot_e2e import DB_TIME, World, db_time, started
from .test_short_e2e import opened

pytestmark = pytest.mark.e2e

world = base.world  # the main e2e module's study group

TASK = "capital-fr"
BANK = f"""\
bank: Geography
topic: Geography
tasks:
  - id: {TASK}
    kind: short
    difficulty: easy
    question: What is the capital of France?
    answers: [Paris]
    mistakes:
      - answers: [Lyon]
        note: A large city, but not the capital.
      - Think of the Eiffel Tower.
    solution:
      explanation: Paris has been the capital since 987.
"""


@pytest_asyncio.fixture
async def quizbot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
    env = banks_env(tmp_path, {"geo.yaml": BANK})
    async with checked_bot(emulator, tmp_path, env=env) as bot:
        yield bot


async def daily_posted(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> tuple[Message, dict, int]:
    """A daily quiz scheduled a minute ago by a schedule made an hour ago (the scheduler runs
    on the wall clock, so the database is moved instead): the post, its run and its post id."""
    channel = world.channels["daily"]
    at = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%H:%M")
    options = {"channel": channel, "time": at, "timezone": "UTC", "difficulty": "easy"}
    added = await reply_of(
        driver.slash("schedule add", user=world.owner, channel=channel, options=options)
    )
    assert is_ephemeral(added) and "Scheduled **#1**" in added["content"], added
    await quizbot.kill(signal.SIGTERM)
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).strftime(DB_TIME)
    with quizbot.db() as conn:
        conn.execute("UPDATE schedule SET created_at = ?, active_since = ?", (an_hour_ago,) * 2)
        conn.commit()
    await quizbot.start()
    daily = await driver.wait_for_message(
        channel, lambda m: "Daily quiz" in (m.get("content") or ""), timeout=30
    )
    [run] = await quizbot.wait_for_query(
        "SELECT * FROM schedule_run WHERE status != 'claimed'", timeout=STEP
    )
    return daily, run, int(run["post_ids"])


async def closed_a_day_later(
    driver: Driver, quizbot: QuizBotRunner, daily: Message, run: dict, post_id: int
) -> str:
    """The run moved back a day, so that it is due to close at the next start: the summary."""
    await quizbot.kill(signal.SIGTERM)
    scheduled_for = db_time(run["scheduled_for"])

    def day_before(value: str) -> str:
        return (db_time(value) - timedelta(days=1)).strftime(DB_TIME)

    with quizbot.db() as conn:
        conn.execute(
            "UPDATE schedule_run SET local_date = ?, scheduled_for = ?, closes_at = ?, "
            "claimed_at = ?, posted_at = ? WHERE id = ?",
            (
                (date.fromisoformat(run["local_date"]) - timedelta(days=1)).isoformat(),
                day_before(run["scheduled_for"]),
                scheduled_for.strftime(DB_TIME),
                day_before(run["claimed_at"]),
                day_before(run["posted_at"]),
                run["id"],
            ),
        )
        closes = scheduled_for.strftime(DB_TIME)
        conn.execute("UPDATE post SET closes_at = ? WHERE id = ?", (closes, post_id))
        conn.commit()
    await quizbot.start()
    closed = await driver.world.changed.wait_for(
        lambda: daily if "closed" in (daily.get("content") or "") else None,
        30,
        "the daily post to be closed with its summary",
    )
    return str(closed["content"])


async def typed(
    driver: Driver, quizbot: QuizBotRunner, daily: Message, post_id: int, who: Member, text: str
) -> str:
    modal = await opened(driver, daily, f"quiz:type:{post_id}", who)
    reply = await reply_of(driver.submit_modal(modal, {"answer": text}))
    assert is_ephemeral(reply), reply
    assert len(attempts(quizbot, post_id, who.id)) == 1
    return text_of(reply)


async def test_the_close_summary_names_a_wrong_answer_three_members_typed(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    await started(quizbot, world)
    daily, run, post_id = await daily_posted(driver, world, quizbot)
    assert quizbot.query("SELECT task_id FROM post WHERE id = ?", post_id)[0][0] == TASK
    said = {
        world.alice: "lyon",
        world.bob: "  Lyon ",
        world.carol: "LYON",
        world.dave: "Marseille",
        world.erin: "marseille ",
        world.frank: "Paris",
    }
    for who, text in said.items():
        await typed(driver, quizbot, daily, post_id, who, text)
    # Nobody's typed answer reached the channel while the quiz was open.
    public = driver.channel_messages(world.channels["daily"])
    assert all("lyon" not in text_of(m).casefold() for m in public)

    summary = await closed_a_day_later(driver, quizbot, daily, run, post_id)
    assert "**6** answered · **1** solved" in summary
    assert "**Common mistakes:**" in summary
    assert "50% typed *lyon* — A large city, but not the capital." in summary
    # Two members (33%, above the share rule) typed Marseille: too few to be named.
    assert "marseille" not in summary.casefold()
