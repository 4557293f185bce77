"""Stores on a fresh database, a small task, helpers to answer it at a given moment, and
real database faults (a held write lock, a full disk)."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from bot.quiz.engine import Outcome
from bot.quiz.tasks import Task
from bot.store import AnswerRequest, PostInfo, Store, make_engine
from tests.factories import choice
from tests.store_calls import answer, create_post

GUILD = 1
CHANNEL = 10
NOW = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
"""A Wednesday, well away from any day or week boundary."""

TASK = choice("t-easy", texts=("right", "wrong", "also wrong", "far off"))
RIGHT, WRONG = ("A",), ("B",)
WRONGS = (("B",), ("C",), ("D",))
"""TASK's three different wrong answers: a member's three misses (the same wrong answer
again is not graded again, so it uses no attempt)."""
_task_numbers = itertools.count(1)


def fresh_task() -> Task:
    """TASK under an id no post has had yet: a member's points, misses and wrong answers for a
    task count once per server, so a test that adds them up over several posts gives each its
    own task."""
    return dataclasses.replace(TASK, id=f"{TASK.id}-{next(_task_numbers)}")


def request(post: PostInfo | int, user_id: int, picks: tuple[str, ...] = RIGHT) -> AnswerRequest:
    """An answer by member `user_id` (named "user<id>") in the post's server."""
    if isinstance(post, int):
        return AnswerRequest(post, GUILD, user_id, f"user{user_id}", picks)
    return AnswerRequest(post.id, post.guild_id, user_id, f"user{user_id}", picks)


def finish(store: Store, post: PostInfo, user_id: int, now: datetime, wrong: int = 0) -> Outcome:
    """Answer wrongly `wrong` times (each time another wrong option), then rightly (unless
    that already failed the task)."""
    outcome = None
    for picks in WRONGS[:wrong]:
        outcome = answer(store, request(post, user_id, picks), now).outcome
    if wrong < 3:
        outcome = answer(store, request(post, user_id, RIGHT), now).outcome
    assert outcome is not None
    return outcome


def new_post(
    store: Store,
    now: datetime = NOW,
    guild_id: int = GUILD,
    task: Task = TASK,
    closes_at: datetime | None = None,
) -> PostInfo:
    return create_post(store, guild_id, CHANNEL, task, now=now, posted_by=99, closes_at=closes_at)


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """A store on a new database, once per engine (`[sqlite]`: in memory; `[postgresql]`)."""
    engine = make_engine(database_url)
    yield Store(engine)
    engine.dispose()


@pytest.fixture
def sqlite_store() -> Iterator[Store]:
    """A store on an in-memory SQLite database, for the tests about SQLite itself."""
    engine = make_engine("sqlite://")
    yield Store(engine)
    engine.dispose()


@pytest.fixture
def file_store(shared_database_url: str) -> Iterator[Store]:
    """A store whose units of work each get their own connection (an SQLite file, or a
    PostgreSQL database), once per engine: for concurrent writers."""
    engine = make_engine(shared_database_url)
    yield Store(engine)
    engine.dispose()


@pytest.fixture
def sqlite_file_store(tmp_path: Path) -> Iterator[Store]:
    """A store on an SQLite file: for the tests about SQLite itself (its locks, a full disk)."""
    engine = make_engine(f"sqlite:///{tmp_path}/data/quizbot.db")
    yield Store(engine)
    engine.dispose()


# -- database faults, for real ----------------------------------------------------------------


@contextlib.contextmanager
def write_lock_held(path: str | Path) -> Iterator[None]:
    """Another connection (another process, an admin's sqlite3 shell) holds the write lock."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


def fill_the_disk(engine: Engine) -> None:
    """Every connection of `engine` from now on may not grow the file: SQLite reports
    SQLITE_FULL, as on a full disk, for any write that needs a new page."""
    with engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()

    @event.listens_for(engine, "connect")
    def _limit(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    engine.dispose()  # pooled connections reconnect, with the limit
