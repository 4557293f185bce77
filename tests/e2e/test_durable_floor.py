"""The load benchmark's durable floor acknowledges an answer only once it is committed.

benchmarks/durable_floor.py stands for the least a bot must do to acknowledge an answer
durably; if it replied before its commit, quizbot would be held to a floor no durable bot can
reach. Its writer thread commits whatever has queued, with no window.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import DiscordEmulator, Driver

from benchmarks.durable_floor import Answer, AnswerLog, DurableFloorBot

STEP = 10.0
BUTTON_ROW = [
    {
        "type": 1,
        "components": [{"type": 2, "style": 1, "label": "A", "custom_id": "quiz:ans:1:A"}],
    }
]


def rows(db: Path) -> list[tuple[int, int, str]]:
    """What another process would find in the file (its own connection)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return conn.execute("SELECT interaction_id, user_id, custom_id FROM answers").fetchall()


@contextlib.contextmanager
def write_lock(db: Path) -> Iterator[None]:
    """Another writer holding the database: the durable floor's commit waits until it ends."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        conn.execute("ROLLBACK")
        conn.close()


@pytest_asyncio.fixture
async def answer_log(tmp_path: Path) -> AsyncIterator[AnswerLog]:
    log = AnswerLog(tmp_path / "answers.db")
    log.start(asyncio.get_running_loop())
    try:
        yield log
    finally:
        log.close()


def answer(n: int) -> Answer:
    return Answer(n, 1000 + n, "quiz:ans:1:A", 0.0)


async def test_record_returns_only_after_the_commit_and_commits_what_queued_meanwhile(
    answer_log: AnswerLog,
) -> None:
    with write_lock(answer_log.path):
        first = asyncio.create_task(answer_log.record(answer(1)))
        await asyncio.sleep(0.05)  # the writer is now stuck on the first answer's insert
        rest = [asyncio.create_task(answer_log.record(answer(n))) for n in range(2, 6)]
        done, _ = await asyncio.wait([first, *rest], timeout=0.3)
        assert not done, "acknowledged while the commit could not happen"
        assert rows(answer_log.path) == []
    await asyncio.wait_for(asyncio.gather(first, *rest), STEP)

    assert [r[0] for r in rows(answer_log.path)] == [1, 2, 3, 4, 5]
    # The four that queued behind the first went in one commit: no window, no one at a time.
    assert (answer_log.answers, answer_log.commits) == (5, 2)


async def test_a_failed_commit_is_not_acknowledged(answer_log: AnswerLog) -> None:
    await answer_log.record(answer(1))
    with pytest.raises(sqlite3.IntegrityError):
        await asyncio.wait_for(answer_log.record(answer(1)), STEP)  # the same interaction again
    await asyncio.wait_for(answer_log.record(answer(2)), STEP)  # and the writer goes on
    assert [r[0] for r in rows(answer_log.path)] == [1, 2]


@pytest.mark.e2e
async def test_the_bot_replies_to_a_click_only_once_the_answer_is_in_the_file(
    discord_pointed_at_emulator: DiscordEmulator, driver: Driver, tmp_path: Path
) -> None:
    guild = driver.create_guild("Load")
    channel = driver.create_text_channel(guild, "quiz")
    alice = driver.add_member(guild, "alice")
    post = driver.add_bot_message(channel, "Which?", components=BUTTON_ROW)
    db = tmp_path / "answers.db"
    answers = AnswerLog(db)
    bot = DurableFloorBot(answers)
    await bot.login(discord_pointed_at_emulator.token)
    running = asyncio.create_task(bot.connect())
    try:
        await asyncio.wait_for(bot.wait_until_ready(), STEP)
        with write_lock(db):
            click = driver.click_button(post, "quiz:ans:1:A", user=alice)
            with pytest.raises(TimeoutError):
                await click.wait_response(timeout=0.5)
        response = await click.wait_response(timeout=STEP)
        assert response["data"]["content"] == "ok"
        assert rows(db) == [(int(click.id), alice.id, "quiz:ans:1:A")]
    finally:
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(running, STEP)
        answers.close()
