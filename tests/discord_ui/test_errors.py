"""Failures end as private replies and logged tracebacks; slow work is deferred in time."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.error_texts import SOMETHING_WENT_WRONG
from bot.quiz.engine import Outcome, Progress, grade
from bot.quiz.tasks import Catalog, Task
from bot.service import QuizService
from bot.store import AnswerRequest, Store, answers, make_engine, posts
from tests.discord_ui.conftest import TOKEN, BotFactory, Driver, settings
from tests.discord_ui.fakes import (
    ALICE,
    CHANNEL_ID,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    GUILD_ID,
    FakeDiscordHTTP,
    response,
)
from tests.store.conftest import fill_the_disk, write_lock_held
from tests.store_calls import answer_batch, read

CONTEXT = ("guild=800000000000000001", "channel=700000000000000001", "user=111")


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("boom")


async def aboom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("boom")


def logged_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR and r.exc_info]


async def test_a_failing_command_answers_privately_and_logs_the_traceback(
    driver: Driver,
    fake: FakeDiscordHTTP,
    bot: QuizBot,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bot.service, "leaderboard", aboom)
    await driver.command("leaderboard")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == SOMETHING_WENT_WRONG
    (record,) = logged_errors(caplog)
    assert record.exc_info and isinstance(record.exc_info[1], RuntimeError)
    message = record.getMessage()
    assert "/leaderboard" in message
    assert all(part in message for part in CONTEXT)
    assert "aboom" in caplog.text  # the traceback itself


async def test_a_failing_button_answers_privately_and_logs_its_custom_id(
    driver: Driver,
    fake: FakeDiscordHTTP,
    bot: QuizBot,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    message = await driver.post("mc-split")
    monkeypatch.setattr(bot.service, "answer", aboom)
    await driver.click(message, r"quiz:ans:\d+:A")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == SOMETHING_WENT_WRONG
    (record,) = logged_errors(caplog)
    assert "component 'quiz:ans:1:A'" in record.getMessage()
    assert all(part in record.getMessage() for part in CONTEXT)


async def test_a_failing_picker_select_answers_privately(
    driver: Driver,
    fake: FakeDiscordHTTP,
    bot: QuizBot,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    post = await driver.post("fill-two")
    opened = await driver.click(post, r"quiz:open:\d+")
    monkeypatch.setattr(bot.service, "posted", aboom)
    await driver.select(fake.response_to(opened), r"quiz:pick:\d+:1:--", "A")
    assert fake.last_reply().text == SOMETHING_WENT_WRONG
    assert fake.last_reply().ephemeral
    assert "quiz:pick:1:1:--" in logged_errors(caplog)[0].getMessage()


async def test_domain_errors_are_not_logged_as_bugs(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    await driver.command("quiz", task="no-such-task")
    assert "couldn't find a matching task" in fake.last_reply().text
    assert logged_errors(caplog) == []


async def test_a_failed_discord_call_is_logged_and_reported(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord's outage is not our bug: one line in the log, no traceback, and a reply that
    says what happened."""
    import discord

    fake.fail["/channels/{channel_id}/messages"] = discord.DiscordServerError(
        response(500, "Server Error"), {"message": "oops", "code": 0}
    )
    await driver.command("quiz", task="mc-split")
    assert "Discord had a problem (error 500)" in fake.last_reply().text
    assert fake.last_reply().ephemeral
    assert logged_errors(caplog) == []
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "Discord refused a call in /quiz" in warning.getMessage() and not warning.exc_info


async def test_slow_work_is_deferred_then_answered_privately(
    make_bot: BotFactory, fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await make_bot()
    driver = Driver(bot, fake)
    message = await driver.post("mc-split")
    hint = bot.service.hint

    async def slow_hint(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.1)
        return await hint(*args, **kwargs)

    monkeypatch.setattr(bot.service, "hint", slow_hint)
    bot.ack_after = 0.02
    fake.clear()
    await driver.click(message, r"quiz:hint:\d+")
    deferral, reply = fake.calls[0], fake.calls[-1]
    assert deferral.callback_type == DEFERRED_CHANNEL_MESSAGE and deferral.ephemeral
    assert reply.path == "/webhooks/{webhook_id}/{webhook_token}"
    assert reply.ephemeral
    assert "what gets copied" in reply.text


async def test_slow_picker_updates_are_deferred_then_edit_the_picker(
    make_bot: BotFactory, fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await make_bot()
    driver = Driver(bot, fake)
    post = await driver.post("fill-two")
    opened = await driver.click(post, r"quiz:open:\d+")
    posted = bot.service.posted

    async def slow_posted(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.1)
        return await posted(*args, **kwargs)

    monkeypatch.setattr(bot.service, "posted", slow_posted)
    bot.ack_after = 0.02
    fake.clear()
    picker = fake.response_to(opened)
    await driver.select(picker, r"quiz:pick:\d+:1:--", "A")
    assert fake.calls[0].callback_type == DEFERRED_UPDATE
    assert fake.calls[-1].path.endswith("/messages/@original")
    assert "to_device" in fake.calls[-1].text


async def test_an_error_after_deferring_still_reaches_the_member(
    make_bot: BotFactory, fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await make_bot()
    driver = Driver(bot, fake)

    async def slow_boom(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.1)
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.service, "stats", slow_boom)
    bot.ack_after = 0.02
    await driver.command("stats")
    assert fake.callbacks()[0].callback_type == DEFERRED_CHANNEL_MESSAGE
    assert fake.last_reply().text == SOMETHING_WENT_WRONG
    assert fake.last_reply().ephemeral


async def test_the_token_never_reaches_the_logs(
    make_bot: BotFactory,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    bot = await make_bot()
    driver = Driver(bot, fake)
    message = await driver.post("mc-split")
    await driver.click(message, r"quiz:ans:\d+:B")
    monkeypatch.setattr(bot.service, "leaderboard", aboom)
    await driver.command("leaderboard")
    await bot.close()
    assert caplog.records
    assert TOKEN not in caplog.text
    for record in caplog.records:
        assert TOKEN not in record.getMessage()
        assert TOKEN not in repr(record.__dict__)


async def test_an_error_after_a_public_deferral_stays_private(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def slow_boom(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.1)
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.service, "leaderboard", slow_boom)
    bot.ack_after = 0.02
    await driver.command("leaderboard")
    deferral = fake.callbacks()[0]
    assert deferral.callback_type == DEFERRED_CHANNEL_MESSAGE
    assert not deferral.ephemeral  # the board itself would have been public
    # The public "thinking…" message goes; the error comes as a new private message.
    assert [c.method for c in fake.calls if c.path.endswith("/messages/@original")] == ["DELETE"]
    assert fake.last_reply().ephemeral
    assert fake.last_reply().text == SOMETHING_WENT_WRONG


# -- database faults ---------------------------------------------------------------------------


@pytest.fixture
async def impatient_bot(
    tmp_path: Path, fake: FakeDiscordHTTP, catalog: Catalog
) -> AsyncIterator[QuizBot]:
    """A bot whose database gives up waiting for a lock after 0.1 s (5 s in production)."""
    db = tmp_path / "quiz.db"
    store = Store(make_engine(f"sqlite:///{db}", busy_timeout_ms=100))
    bot = QuizBot(settings(db), QuizService(catalog, store, batch_window=0.001))
    await bot.login(TOKEN)
    yield bot
    await bot.close()
    store.engine.dispose()


async def test_a_busy_database_tells_the_member_the_answer_was_not_recorded(
    impatient_bot: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    driver = Driver(impatient_bot, fake)
    message = await driver.post("mc-split")
    database = impatient_bot.service.store.engine.url.database
    assert database is not None
    with write_lock_held(database):
        await driver.click(message, r"quiz:ans:\d+:B")
        refused = fake.last_reply()
        await driver.click(message, r"quiz:hint:\d+")
        hint_refused = fake.last_reply()
    assert refused.ephemeral
    assert refused.text == (
        "The quiz database is busy; your answer was not recorded. Try again in a moment."
    )
    assert hint_refused.ephemeral
    assert hint_refused.text == (
        "The quiz database is busy; nothing was shown or saved. Try again in a moment."
    )
    assert not [r for r in caplog.records if r.exc_info]
    assert "Traceback" not in caplog.text
    assert [r.levelno for r in caplog.records if r.levelno >= logging.WARNING] == [
        logging.WARNING
    ] * 2

    # The lock is gone: the same click counts, as the member's first try.
    await driver.click(message, r"quiz:ans:\d+:B")
    assert "**10** points on your first try" in fake.last_reply().text


async def test_an_attempt_the_database_refuses_says_all_attempts_are_used(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The engine stops a finished member itself; only the database's limit on attempts
    (AttemptLimitError) catches a grader that did not see them all, as one racing another
    process's write could be: here, one that sees no attempts at all."""
    message = await driver.post("mc-split")
    for pick in "ACD":  # three misses: every attempt used
        await driver.click(message, rf"quiz:ans:\d+:{pick}")
    post = read(bot.service.store, posts.latest_post, GUILD_ID, CHANNEL_ID)
    assert post is not None
    before = await bot.service.run_read(answers.read_progress, post.id, ALICE.id)
    assert before.finished and before.wrong_tries == 3

    def blind(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
        return grade(task, Progress(), picks)

    monkeypatch.setattr(answers, "grade", blind)
    await driver.click(message, r"quiz:ans:\d+:B")  # right, but a fourth attempt
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == "You've used all 3 attempts on this one."
    assert (
        await bot.service.run_read(answers.read_progress, post.id, ALICE.id) == before
    )  # nothing stored
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_full_disk_leaves_leaderboard_and_stats_working(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    await driver.post("mc-split")
    store = bot.service.store
    post = read(store, posts.latest_post, GUILD_ID, CHANNEL_ID)
    assert post is not None
    members = [(ALICE.id, ALICE.name)] + [(2000 + n, f"student{n}") for n in range(300)]
    answer_batch(
        store,
        [AnswerRequest(post.id, GUILD_ID, user, name, ("B",)) for user, name in members],
        bot.service.clock(),
    )
    fill_the_disk(store.engine)  # building the leaderboard's totals needs new pages

    await driver.command("leaderboard", period="all")
    board = fake.last_reply()
    assert "Leaderboard · all time" in board.text
    assert board.text.count("student") == 9
    await driver.command("stats")
    assert "1 of 1 tried" in fake.last_reply().text
    assert any("aggregated from the scores" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.exc_info]
