"""Database faults while running, produced for real: a held write lock, a full disk
(`PRAGMA max_page_count`), a read-only or damaged file, a vanished folder.

Each refused unit of work stores nothing, raises the domain error whose message says what the
member lost, and is logged once, in one line without a traceback, naming DATABASE_URL.
Leaderboards still answer when their totals cannot be built.
"""

from __future__ import annotations

import logging
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from bot.quiz.errors import StoreAction, StoreBusyError, StoreError, StoreUnavailableError
from bot.store import Store, answers, guild_config, leaderboard, make_engine, posts, stats
from tests.store.conftest import (
    GUILD,
    NOW,
    RIGHT,
    WRONG,
    fill_the_disk,
    new_post,
    request,
    write_lock_held,
)
from tests.store_calls import answer, answer_batch, configure, read, write

UTC_ZONE = ZoneInfo("UTC")
BUSY_MS = 100
NOT_RECORDED_BUSY = (
    "The quiz database is busy; your answer was not recorded. Try again in a moment."
)
NOT_RECORDED_UNAVAILABLE = (
    "The quiz database is unavailable; your answer was not recorded. "
    "Try again in a minute; the bot's host has been told."
)


def database_of(store: Store) -> str:
    database = store.engine.url.database
    assert database is not None
    return database


def fault_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "bot.store.store"]


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], "a fault was logged with a traceback"
    assert "Traceback" not in caplog.text


def count(store: Store, table: str) -> int:
    with store.read() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())


@pytest.fixture
def busy_store(tmp_path: Path) -> Iterator[Store]:
    engine = make_engine(f"sqlite:///{tmp_path}/quizbot.db", busy_timeout_ms=BUSY_MS)
    yield Store(engine)
    engine.dispose()


# -- a lock held too long ---------------------------------------------------------------------


@pytest.mark.sqlite_only  # SQLite's own faults
def test_a_held_write_lock_refuses_the_answer_as_busy_and_nothing_is_lost(
    busy_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(busy_store)
    with write_lock_held(database_of(busy_store)):
        with pytest.raises(StoreBusyError) as refused:
            answer(busy_store, request(post, 7, WRONG), NOW)
        # Readers are not blocked by a writer (WAL): the member's progress is still there.
        assert read(busy_store, answers.read_progress, post.id, 7).attempts_used == 0
    assert str(refused.value) == NOT_RECORDED_BUSY
    (record,) = fault_records(caplog)
    assert record.levelno == logging.WARNING
    assert "busy" in record.getMessage() and "SQLITE_BUSY" in record.getMessage()
    assert f"{busy_store.engine.url} (DATABASE_URL)" in record.getMessage()
    assert_no_traceback(caplog)
    # The lock is gone: the same answer is the member's first attempt, not their second.
    outcome = answer(busy_store, request(post, 7, WRONG), NOW).outcome
    assert outcome.progress.attempts_used == 1
    assert count(busy_store, "attempt") == 1


@pytest.mark.parametrize(
    ("action", "lost"),
    [
        (
            lambda s, p: write(
                s, answers.reveal_hint, p.id, GUILD, 7, "ada", NOW, action=StoreAction.REVEAL
            ),
            "nothing was shown or saved",
        ),
        (
            lambda s, p: write(
                s,
                answers.reveal_solution,
                p.id,
                GUILD,
                7,
                "ada",
                NOW,
                confirmed=True,
                action=StoreAction.REVEAL,
            ),
            "nothing was shown or saved",
        ),
        (lambda s, p: configure(s, GUILD, timezone="UTC"), "your change was not saved"),
        (lambda s, p: new_post(s), "the quiz was not posted"),
        (lambda s, p: write(s, posts.close_post, p.id, NOW), "nothing was saved"),
    ],
)
def test_the_busy_message_says_what_was_not_saved(
    busy_store: Store, action: Any, lost: str
) -> None:
    post = new_post(busy_store)
    with write_lock_held(database_of(busy_store)), pytest.raises(StoreBusyError) as refused:
        action(busy_store, post)
    assert str(refused.value) == f"The quiz database is busy; {lost}. Try again in a moment."
    assert count(busy_store, "reveal") == 0
    assert count(busy_store, "post") == 1


def test_a_bug_in_sql_is_not_a_database_fault(
    busy_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(OperationalError, match="no such table"), busy_store.write() as conn:
        conn.exec_driver_sql("SELECT * FROM no_such_table")
    assert fault_records(caplog) == []


# -- a full disk ------------------------------------------------------------------------------


@pytest.mark.sqlite_only  # SQLite's own faults
def test_a_full_disk_refuses_answers_and_leaderboards_still_answer(
    sqlite_file_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    store = sqlite_file_store
    first, second = new_post(store), new_post(store)
    members = range(1, 301)
    answer_batch(store, [request(first, m, RIGHT if m % 3 else WRONG) for m in members], NOW)
    fill_the_disk(store.engine)

    # A burst of answers (one group commit) needs new pages: refused whole, nothing stored.
    with pytest.raises(StoreUnavailableError) as refused:
        answer_batch(store, [request(second, m) for m in members], NOW)
    assert str(refused.value) == NOT_RECORDED_UNAVAILABLE
    assert read(store, posts.post_counts, second.id).answered == 0
    (record,) = fault_records(caplog)
    assert record.levelno == logging.ERROR
    message = record.getMessage()
    assert "the disk is full" in message and "SQLITE_FULL" in message
    assert "(DATABASE_URL)" in message and "free space" in message

    # The first leaderboard would build the totals (a write the full disk refuses): it answers
    # from the scores instead, exactly, and keeps answering.
    caplog.clear()
    for period in ("all", "week", "today"):
        board = leaderboard.leaderboard(store, GUILD, period, UTC_ZONE, NOW, 3, 10)
        assert board == read(
            store, leaderboard.leaderboard_exact, GUILD, period, UTC_ZONE, NOW, 3, 10
        )
        assert len(board.rows) == 10 and board.me is None  # member 3 answered wrongly
    assert [r.levelno for r in fault_records(caplog)] == [logging.ERROR] * 3
    fallbacks = [r for r in caplog.records if "aggregated from the scores" in r.getMessage()]
    assert len(fallbacks) == 3 and all(r.levelno == logging.WARNING for r in fallbacks)
    assert "the disk is full" in fallbacks[0].getMessage()
    assert_no_traceback(caplog)
    assert read(store, stats.member_stats, GUILD, 1, UTC_ZONE, NOW).points == 10

    # Space freed (a new engine without the limit): the totals are built, the ranks unchanged.
    freed = Store(make_engine(str(store.engine.url)))
    try:
        assert leaderboard.leaderboard(freed, GUILD, "all", UTC_ZONE, NOW, None, 10) == read(
            store, leaderboard.leaderboard_exact, GUILD, "all", UTC_ZONE, NOW, None, 10
        )
        assert count(freed, "member_total") == 200
    finally:
        freed.engine.dispose()


# -- a read-only, damaged or vanished database ------------------------------------------------


@pytest.mark.sqlite_only  # SQLite's own faults
def test_a_read_only_database_refuses_writes_and_leaderboards_still_answer(
    sqlite_file_store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(sqlite_file_store)
    answer_batch(sqlite_file_store, [request(post, m) for m in range(1, 4)], NOW)
    url = f"sqlite:///file:{database_of(sqlite_file_store)}?mode=ro&uri=true"
    read_only = Store(make_engine(url, create=False))
    try:
        with pytest.raises(StoreUnavailableError) as refused:
            answer(read_only, request(post, 9), NOW)
        assert str(refused.value) == NOT_RECORDED_UNAVAILABLE
        assert "read-only" in fault_records(caplog)[0].getMessage()
        board = leaderboard.leaderboard(read_only, GUILD, "all", UTC_ZONE, NOW, None, 10)
        assert [r.user_id for r in board.rows] == [1, 2, 3]
    finally:
        read_only.engine.dispose()
    assert_no_traceback(caplog)


def damaged_copy(store: Store, tmp_path: Path, table: str) -> str:
    """A copy of the store's database with garbage written over the root page of `table`."""
    database = database_of(store)
    with store.write() as conn:
        root = conn.exec_driver_sql(
            "SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)
        ).scalar_one()
    with sqlite3.connect(database) as raw:
        raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
        page_size = raw.execute("PRAGMA page_size").fetchone()[0]
    copy = tmp_path / "damaged.db"
    shutil.copyfile(database, copy)
    with copy.open("r+b") as file:
        file.seek((root - 1) * page_size)
        file.write(bytes([0xA5]) * page_size)
    return f"sqlite:///{copy}"


@pytest.mark.sqlite_only  # SQLite's own faults
def test_a_damaged_page_is_reported_once_without_a_traceback(
    sqlite_file_store: Store, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    post = new_post(sqlite_file_store)
    answer(sqlite_file_store, request(post, 1), NOW)
    damaged = Store(make_engine(damaged_copy(sqlite_file_store, tmp_path, "attempt")))
    try:
        caplog.clear()
        with pytest.raises(StoreUnavailableError) as refused:
            answer(damaged, request(post, 2), NOW)
        assert str(refused.value) == NOT_RECORDED_UNAVAILABLE
        (record,) = fault_records(caplog)
        assert record.levelno == logging.ERROR
        assert "damaged" in record.getMessage() and "SQLITE_CORRUPT" in record.getMessage()
        assert "damaged.db (DATABASE_URL)" in record.getMessage()

        caplog.clear()
        with pytest.raises(StoreUnavailableError) as read_refused:
            read(damaged, answers.read_progress, post.id, 1)
        # A read lost nothing, so its message names nothing.
        assert str(read_refused.value) == (
            "The quiz database is unavailable. Try again in a minute; the bot's host has been told."
        )
        assert len(fault_records(caplog)) == 1
        assert read(damaged, posts.get_post, post.id) == post  # the undamaged tables still read
    finally:
        damaged.engine.dispose()
    assert_no_traceback(caplog)


@pytest.mark.sqlite_only  # SQLite's own faults
def test_a_vanished_database_folder_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "data"
    store = Store(make_engine(f"sqlite:///{folder}/quizbot.db"))
    store.engine.dispose()
    shutil.rmtree(folder)
    try:
        with pytest.raises(StoreError) as refused:
            read(store, guild_config.guild_config, GUILD)
    finally:
        store.engine.dispose()
    assert isinstance(refused.value, StoreUnavailableError)
    (record,) = fault_records(caplog)
    # Not "cannot be opened": the file the bot opened is gone (tests/store/test_file_gone.py).
    assert "deleted or replaced" in record.getMessage()
    assert_no_traceback(caplog)
