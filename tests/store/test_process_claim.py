"""A second bot process where one already serves the same servers is refused at start-up.

SQLite: one process per database file, across real processes. PostgreSQL: processes with
disjoint SHARD_IDS of one SHARD_COUNT start side by side; an overlap, a different count, or a
process serving every shard beside another is refused, naming the setting to change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.pool import NullPool

from bot.host_errors import HostError
from bot.sharding import ShardPlan
from bot.store.process_claim import (
    SHARD,
    ProcessClaim,
    Renewal,
    claim_database_file,
    claim_shards,
)
from tests.pg_server import PgServer

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_claim_on_one_sqlite_file_is_refused_until_the_first_lets_go(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/quizbot.db"
    first = claim_database_file(url)
    with pytest.raises(HostError) as refused:
        claim_database_file(url)
    error = refused.value
    assert error.setting == "DATABASE_URL"
    assert f"another quizbot process (process {os.getpid()}) is already running" in str(error)
    assert str(tmp_path / "quizbot.db") in str(error)
    assert "PostgreSQL" in error.fix
    first.release()
    first.release()  # idempotent
    claim_database_file(url).release()


def test_another_process_holding_the_file_is_named_by_its_process_id(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/quizbot.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys\n"
            "from bot.store.process_claim import claim_database_file\n"
            f"claim_database_file({url!r})\n"
            "print('held', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(HostError, match=f"process {holder.pid}"):
            claim_database_file(url)
    finally:
        holder.communicate("", timeout=30)  # it ends: the kernel lets go of its lock
    claim_database_file(url).release()


def test_the_same_file_by_another_spelling_is_the_same_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with ExitStack() as held:
        held.callback(claim_database_file("sqlite:///quizbot.db").release)
        with pytest.raises(HostError):
            claim_database_file(f"sqlite:///file:{tmp_path}/quizbot.db?mode=rwc&uri=true")


def test_a_link_to_the_file_is_the_same_claim(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "quizbot.db").symlink_to(tmp_path / "data" / "real.db")
    with ExitStack() as held:
        held.callback(claim_database_file(f"sqlite:///{tmp_path}/data/real.db").release)
        with pytest.raises(HostError, match=r"data/real\.db"):
            claim_database_file(f"sqlite:///{tmp_path}/quizbot.db")


def test_in_memory_databases_claim_nothing() -> None:
    first, second = claim_database_file("sqlite://"), claim_database_file("sqlite://")
    first.release()
    second.release()


# -- PostgreSQL: shards ---------------------------------------------------------------------


class Processes:
    """Each claim on an engine of its own, as each bot process has."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engines: list[Engine] = []
        self.claims: list[ProcessClaim] = []

    def start(self, count: int | None = None, ids: str | None = None) -> ProcessClaim:
        engine = create_engine(self.url, poolclass=NullPool)
        self.engines.append(engine)
        claim = claim_shards(engine, ShardPlan.parse(count, ids))
        self.claims.append(claim)
        return claim

    def refused(self, count: int | None = None, ids: str | None = None) -> HostError:
        with pytest.raises(HostError) as refused:
            self.start(count, ids)
        return refused.value

    def close(self) -> None:
        for claim in self.claims:
            claim.release()
        for engine in self.engines:
            engine.dispose()


@pytest.fixture
def processes(pg_url: str) -> Iterator[Processes]:
    started = Processes(pg_url)
    yield started
    started.close()


def cut_claim_connections(url: str) -> list[bool]:
    """End the sessions holding shard locks on the database, one result each: what a database
    restart does to a running bot. From the server's `postgres` database, so it works while
    the database refuses new connections."""
    database = make_url(url)
    admin = create_engine(database.set(database="postgres"), poolclass=NullPool)
    try:
        with admin.connect() as conn:
            holders = text(
                "SELECT pg_terminate_backend(pid) FROM (SELECT DISTINCT pid FROM pg_locks"
                " WHERE locktype = 'advisory' AND classid::bigint = :ns AND database ="
                " (SELECT oid FROM pg_database WHERE datname = :db)) AS holders"
            )
            return list(conn.execute(holders, {"ns": SHARD, "db": database.database}).scalars())
    finally:
        admin.dispose()


@pytest.mark.postgresql
def test_processes_with_disjoint_shards_of_one_count_run_side_by_side(
    processes: Processes,
) -> None:
    processes.start(4, "0-1")
    processes.start(4, "2")
    processes.start(4, "3")


@pytest.mark.postgresql
def test_a_shard_already_running_elsewhere_is_refused_and_the_refused_process_holds_nothing(
    processes: Processes,
) -> None:
    processes.start(4, "2")
    error = processes.refused(4, "1-2")
    assert error.setting == "SHARD_IDS"
    assert "shard 2 is already running in another quizbot process" in error.problem
    # The refusal let go of shard 1, which it had taken before it met shard 2.
    processes.start(4, "1")


@pytest.mark.postgresql
def test_a_different_shard_count_is_refused_naming_both(processes: Processes) -> None:
    processes.start(4, "0")
    error = processes.refused(2, "1")
    assert error.setting == "SHARD_COUNT"
    assert "SHARD_COUNT=2" in error.problem and "SHARD_COUNT=4" in error.problem
    assert "stop them all first" in error.fix


@pytest.mark.postgresql
@pytest.mark.parametrize(
    ("every", "setting"),
    [((None, None), "SHARD_COUNT"), ((2, None), "SHARD_IDS"), ((2, "0-1"), "SHARD_IDS")],
    ids=["unsharded", "count-alone", "all-ids"],
)
def test_a_process_serving_every_shard_runs_only_alone(
    processes: Processes, every: tuple[int | None, str | None], setting: str
) -> None:
    first = processes.start(*every)
    assert "already running" in processes.refused(*every).problem
    assert "serving every shard" in processes.refused(2, "1").problem
    first.release()
    sharded = processes.start(2, "1")
    error = processes.refused(*every)
    assert error.setting == setting
    assert "SHARD_COUNT=2 are already running" in error.problem
    sharded.release()
    processes.start(*every)


@pytest.mark.postgresql
def test_a_process_whose_connection_is_gone_lets_go_of_its_shards(
    processes: Processes, pg_url: str
) -> None:
    processes.start(2, "0")
    processes.refused(2, "0")
    # What the server does when the holder's host vanishes (keepalives) or the process dies.
    assert cut_claim_connections(pg_url) == [True]
    processes.start(2, "0")


# -- PostgreSQL: a hold lost while running --------------------------------------------------


@pytest.mark.postgresql
def test_renewing_a_held_claim_changes_nothing(processes: Processes) -> None:
    first = processes.start(2, "0")
    assert first.renew() == Renewal()
    assert "shard 0 is already running" in processes.refused(2, "0").problem


@pytest.mark.postgresql
def test_a_claim_whose_connection_was_cut_is_taken_again_on_renewal(
    processes: Processes, pg_url: str
) -> None:
    first = processes.start(3, "0-1")
    assert cut_claim_connections(pg_url) == [True]  # one session, two locks
    assert first.renew() == Renewal(retaken=True)
    # Held again, every shard of it.
    for shard in ("0", "1"):
        assert f"shard {shard} is already running" in processes.refused(3, shard).problem
    assert first.renew() == Renewal()


@pytest.mark.postgresql
def test_a_shard_taken_by_another_process_meanwhile_refuses_the_renewal(
    processes: Processes, pg_url: str
) -> None:
    first = processes.start(3, "0-1")
    cut_claim_connections(pg_url)
    processes.start(3, "1")  # started while the first's hold was gone
    with pytest.raises(HostError) as refused:
        first.renew()
    assert refused.value.setting == "SHARD_IDS"
    assert "shard 1 is already running in another quizbot process" in refused.value.problem
    # The refused renewal holds nothing: shard 0 is free for a process of its own.
    processes.start(3, "0")


@pytest.mark.postgresql
def test_a_renewal_while_the_database_is_unreachable_says_so_and_a_later_one_retakes(
    processes: Processes, pg_url: str, pg_server: PgServer
) -> None:
    first = processes.start(2, "0")
    pg_server.allow_connections(pg_url, False)
    cut_claim_connections(pg_url)
    try:
        for _ in range(2):  # again: still down, still nothing held
            renewal = first.renew()
            assert renewal.unreachable is not None
            assert "is not currently accepting connections" in renewal.unreachable
            assert not renewal.retaken
    finally:
        pg_server.allow_connections(pg_url, True)
    assert first.renew() == Renewal(retaken=True)
    assert "shard 0 is already running" in processes.refused(2, "0").problem


@pytest.mark.postgresql
def test_released_shards_are_free_before_the_server_has_ended_the_session(
    processes: Processes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process stopped and started again at once: the server ends a closed connection's
    session a moment after the client hung up, and the new process must not meet the old
    locks. Here the hang-up never reaches the server (the socket stays open), so only
    letting go before hanging up frees them."""
    import psycopg

    first = processes.start(2, "0")
    hung_up: list[psycopg.Connection[object]] = []
    close = psycopg.Connection.close
    monkeypatch.setattr(psycopg.Connection, "close", lambda conn: hung_up.append(conn))
    first.release()
    monkeypatch.setattr(psycopg.Connection, "close", close)
    try:
        assert hung_up, "the claim's connection was not closed"
        processes.start(2, "0")
    finally:
        for conn in hung_up:
            conn.close()


@pytest.mark.postgresql
def test_a_released_claim_is_not_taken_again(processes: Processes) -> None:
    first = processes.start(2, "0")
    first.release()
    assert first.renew() == Renewal()
    processes.start(2, "0")


def test_a_file_claim_has_nothing_to_renew(tmp_path: Path) -> None:
    claim = claim_database_file(f"sqlite:///{tmp_path / 'bot.db'}")
    try:
        assert claim.renew() == Renewal()
    finally:
        claim.release()
