"""Engine setup: WAL, pragmas, the data directory, and BEGIN IMMEDIATE for writers."""

from __future__ import annotations

import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine, inspect, text

from bot.clock import utcnow
from bot.settings import Settings
from bot.store import DEFAULT_DATABASE_URL, Store, answers, make_engine
from tests.store_calls import write

# About SQLite itself (its file, WAL mode, pragmas, write lock): not run on PostgreSQL.
pytestmark = pytest.mark.sqlite_only


def test_first_start_creates_the_data_directory_in_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "quizbot.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        assert path.is_file()
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        assert {"member", "guild_config", "post", "attempt", "reveal", "score"} <= set(
            inspect(engine).get_table_names()
        )
    finally:
        engine.dispose()
    # WAL is a property of the file: a plain connection sees it too.
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_connections_opening_a_new_file_together_all_switch_it_to_wal(tmp_path: Path) -> None:
    """Shards started at once on a new database each switch it to WAL as they connect. SQLite
    refuses all but one of them at once, without waiting (about one start in five here),
    so the switch waits for its turn: every connection opens, and the file is in WAL mode."""
    connections, rounds = 4, 50

    def connect(engine: Engine, barrier: threading.Barrier) -> str:
        barrier.wait()
        with engine.connect() as conn:
            return str(conn.exec_driver_sql("PRAGMA journal_mode").scalar())

    for round_ in range(rounds):
        path = tmp_path / f"new-{round_}.db"
        engines = [make_engine(f"sqlite:///{path}", create=False) for _ in range(connections)]
        barrier = threading.Barrier(connections)
        try:
            with ThreadPoolExecutor(connections) as pool:
                opened = pool.map(connect, engines, [barrier] * connections)
                assert list(opened) == ["wal"] * connections
        finally:
            for engine in engines:
                engine.dispose()


def test_restart_keeps_data(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/quizbot.db"
    first = make_engine(url)
    write(Store(first), answers.upsert_member, 1, 2, "ada", utcnow())
    first.dispose()
    second = make_engine(url)
    with second.connect() as conn:
        assert conn.execute(text("SELECT name FROM member")).scalar() == "ada"
    second.dispose()


def test_write_units_of_work_hold_the_write_lock_from_begin(sqlite_file_store: Store) -> None:
    """BEGIN IMMEDIATE: the lock is taken before any statement runs, so a concurrent writer
    waits (here: fails at once with a zero timeout) while readers carry on."""
    database = sqlite_file_store.engine.url.database
    assert database is not None
    other = sqlite3.connect(database, timeout=0, isolation_level=None)
    try:
        with sqlite_file_store.write():
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            assert other.execute("SELECT count(*) FROM post").fetchone() == (0,)
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        # Reads take no write lock.
        with sqlite_file_store.read():
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
    finally:
        other.close()


def test_a_failed_unit_of_work_writes_nothing(sqlite_file_store: Store) -> None:
    with pytest.raises(RuntimeError), sqlite_file_store.write() as conn:
        conn.exec_driver_sql(
            "INSERT INTO member (guild_id, user_id, name, first_seen) "
            "VALUES (1, 2, 'x', '2024-01-01 00:00:00.000000')"
        )
        raise RuntimeError("boom")
    with sqlite_file_store.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM member").scalar() == 0


def test_memory_url_shares_one_database_across_threads() -> None:
    engine = make_engine("sqlite://")
    store = Store(engine)
    threads = [
        threading.Thread(target=write, args=(store, answers.upsert_member, 1, n, f"m{n}", utcnow()))
        for n in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with store.read() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM member").scalar() == 8
    engine.dispose()


def test_default_url_creates_data_dir_relative_to_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert Settings(_env_file=None).database_url == DEFAULT_DATABASE_URL
    engine = make_engine(DEFAULT_DATABASE_URL)
    try:
        assert (tmp_path / "data" / "quizbot.db").is_file()
        assert (tmp_path / "data" / "quizbot.db-wal").exists()
    finally:
        engine.dispose()


def test_a_uri_url_creates_the_files_folder_and_no_stray_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    path = tmp_path / "data" / "quizbot.db"
    engine = make_engine(f"sqlite:///file:{path}?mode=rwc&uri=true")
    try:
        assert path.is_file()
        assert list(work.iterdir()) == []  # not a folder named `file:` here
    finally:
        engine.dispose()


def test_synchronous_is_full_by_default_and_normal_when_set(tmp_path: Path) -> None:
    """FULL: an acknowledged commit is on disk; NORMAL (the SQLITE_SYNCHRONOUS setting) on
    every pooled connection, not only the first."""
    url = f"sqlite:///{tmp_path}/quizbot.db"
    for setting, expected in ((None, 2), ("NORMAL", 1), ("FULL", 2)):
        engine = make_engine(url) if setting is None else make_engine(url, synchronous=setting)
        try:
            with engine.connect() as first, engine.connect() as second:
                for conn in (first, second):
                    assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == expected
        finally:
            engine.dispose()


def test_an_unknown_synchronous_mode_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="FULL, NORMAL"):
        make_engine(f"sqlite:///{tmp_path}/quizbot.db", synchronous="OFF; DROP TABLE post")


def test_the_busy_timeout_can_be_shortened(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/quizbot.db", busy_timeout_ms=50)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 50
    finally:
        engine.dispose()
