"""The SQLite file deleted or replaced while the bot runs (issue 26, class 1).

Its open connections would go on committing into the unlinked file, and members would be told
"You earned 10 points" of answers the next start no longer has. Once the path no longer names
the file that was opened, every write is refused as unavailable (nothing acknowledged), and the
host gets one log line, without a traceback. Done for real: files unlinked and renamed over.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.quiz.engine import Status
from bot.quiz.errors import StoreUnavailableError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, answers, guild_config, make_engine
from tests.factories import Clock, choice_task
from tests.store.conftest import GUILD, NOW, new_post, request
from tests.store_calls import answer, read

pytestmark = pytest.mark.sqlite_only  # about an SQLite file

TASK = choice_task()
NOT_RECORDED = (
    "The quiz database is unavailable; your answer was not recorded. "
    "Try again in a minute; the bot's host has been told."
)


def unlink_database(path: Path) -> None:
    """What `rm quizbot.db*` does under a running bot."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def fault_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r
        for r in caplog.records
        if r.name == "bot.store.store" and r.getMessage().startswith("database fault")
    ]


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info]
    assert "Traceback" not in caplog.text


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "quizbot.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    engine = make_engine(f"sqlite:///{path}")
    yield Store(engine)
    engine.dispose()


@pytest.fixture
async def service(store: Store) -> AsyncIterator[QuizService]:
    service = QuizService(
        Catalog.of([TASK]),
        store,
        clock=Clock(datetime(2024, 5, 8, 12, tzinfo=UTC)),
        batch_window=0.01,
    )
    await service.start()
    yield service
    await service.close()


async def test_an_answer_after_the_file_was_deleted_is_refused_not_acknowledged(
    service: QuizService, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    posted = await service.create_post(GUILD, 10, TASK, 99)
    first = await service.answer(posted.post.id, GUILD, 1, "ada", ("A",))
    assert first.outcome.status is Status.CORRECT and first.outcome.points == 10

    unlink_database(path)
    caplog.clear()
    with pytest.raises(StoreUnavailableError) as refused:
        await service.answer(posted.post.id, GUILD, 2, "bob", ("A",))
    assert str(refused.value) == NOT_RECORDED
    (line,) = fault_lines(caplog)
    assert line.levelno == logging.ERROR
    assert "deleted or replaced" in line.getMessage()
    assert str(path) in line.getMessage() and "(DATABASE_URL)" in line.getMessage()

    # Every later write is refused too, without another line; no new file appears at the path.
    for user in (3, 4):
        with pytest.raises(StoreUnavailableError):
            await service.answer(posted.post.id, GUILD, user, f"m{user}", ("A",))
    assert len(fault_lines(caplog)) == 1
    assert_no_traceback(caplog)
    assert not await asyncio.to_thread(path.exists)


def test_a_file_renamed_over_the_database_is_detected(
    store: Store, path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(store)
    answer(store, request(post, 1), NOW)
    other = tmp_path / "other.db"
    make_engine(f"sqlite:///{other}").dispose()
    other.replace(path)  # e.g. a restored backup moved into place under the running bot
    with pytest.raises(StoreUnavailableError) as refused:
        answer(store, request(post, 2), NOW)
    assert str(refused.value) == NOT_RECORDED
    assert len(fault_lines(caplog)) == 1
    assert_no_traceback(caplog)


def test_a_deleted_wal_refuses_the_write_it_would_have_held(
    store: Store, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(store)
    answer(store, request(post, 1), NOW)
    Path(f"{path}-wal").unlink()
    Path(f"{path}-shm").unlink()
    with pytest.raises(StoreUnavailableError):
        answer(store, request(post, 2), NOW)
    # Later answers are refused before they are written: the orphaned -wal, which reads
    # still see, holds none of them.
    for user in (3, 4):
        with pytest.raises(StoreUnavailableError):
            answer(store, request(post, user), NOW)
        assert read(store, answers.read_progress, post.id, user).attempts_used == 0
    assert len(fault_lines(caplog)) == 1
    assert_no_traceback(caplog)


def test_a_file_moved_back_is_written_again(
    store: Store, path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(store)
    aside = tmp_path / "aside.db"
    shutil.move(path, aside)
    with pytest.raises(StoreUnavailableError):
        answer(store, request(post, 1), NOW)
    shutil.move(aside, path)  # the same file (inode) again
    assert answer(store, request(post, 1), NOW).outcome.points == 10
    assert any("is back" in r.getMessage() for r in caplog.records)
    assert len(fault_lines(caplog)) == 1


def test_a_new_connection_does_not_create_an_empty_file_in_its_place(
    store: Store, path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    new_post(store)
    store.engine.dispose()  # every pooled connection closed: the next one opens the path
    unlink_database(path)
    with pytest.raises(StoreUnavailableError):
        read(store, guild_config.guild_config, GUILD)
    with pytest.raises(StoreUnavailableError):
        new_post(store)
    assert not path.exists()
    assert len(fault_lines(caplog)) == 1
    assert_no_traceback(caplog)
