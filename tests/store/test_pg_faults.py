"""The PostgreSQL server stops and starts again while members answer: nothing acknowledged is
lost, nothing refused is kept, members are told the database is unavailable (no traceback in
the log), and the bot recovers by itself when the server is back. And a server that cannot be
reached at start-up is one line for the host (`preflight`).

These stop the session's server (tests/pg_server.py), so they run on PostgreSQL only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import text

from bot.host_errors import HostError
from bot.quiz.errors import StoreAction, StoreBusyError, StoreError, StoreUnavailableError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine
from bot.store.preflight import check_database
from tests.factories import choice_task
from tests.pg_server import PgServer

pytestmark = pytest.mark.postgresql

GUILD, CHANNEL = 1, 10
TASK = choice_task()
MEMBERS = 24
POSTS = 60


@dataclass
class Tally:
    acknowledged: set[tuple[int, int]] = field(default_factory=set)
    refused: list[StoreError] = field(default_factory=list)
    unexpected: list[BaseException] = field(default_factory=list)


@pytest.fixture
async def server_and_service(pg_server: PgServer) -> AsyncIterator[tuple[PgServer, QuizService]]:
    url = pg_server.new_database()
    store = Store(make_engine(url))
    service = QuizService(Catalog.of([TASK]), store, batch_window=0.005)
    await service.start()
    try:
        yield pg_server, service
    finally:
        await service.close()
        store.engine.dispose()
        # The server is up again whatever the test did (the other tests share it).
        if pg_server.pg_ctl("status", check=False).returncode != 0:
            pg_server.start()
        pg_server.drop_database(url)


async def test_stopping_the_server_under_load_loses_nothing_acknowledged_and_recovers(
    server_and_service: tuple[PgServer, QuizService], caplog: pytest.LogCaptureFixture
) -> None:
    server, service = server_and_service
    posts = [(await service.create_post(GUILD, CHANNEL, TASK, 99)).post.id for _ in range(POSTS)]
    tally = Tally()
    stopped = asyncio.Event()
    restarted = asyncio.Event()
    answered_a_quarter = asyncio.Event()
    refused_enough = asyncio.Event()
    after_restart: set[tuple[int, int]] = set()

    async def member(user: int) -> None:
        # One right answer per post: each acknowledged answer is exactly one attempt row.
        for post_id in posts:
            if post_id == posts[POSTS // 3] and not stopped.is_set():
                await stopped.wait()  # the rest of the posts are answered around the outage
            if post_id == posts[2 * POSTS // 3] and not restarted.is_set():
                # The last third once the server is back: refused answers come fast (tens a
                # second), so without this a slow restart left no posts to answer after it.
                await restarted.wait()
            try:
                await service.answer(post_id, GUILD, user, f"user{user}", ("A",))
            except StoreError as exc:
                tally.refused.append(exc)
                if len(tally.refused) >= MEMBERS:
                    refused_enough.set()
                await asyncio.sleep(0.01)
                continue
            except BaseException as exc:
                tally.unexpected.append(exc)
                raise
            tally.acknowledged.add((post_id, user))
            if len(tally.acknowledged) >= MEMBERS * (POSTS // 4):
                answered_a_quarter.set()
            if restarted.is_set():
                after_restart.add((post_id, user))

    async def outage() -> None:
        await answered_a_quarter.wait()
        await asyncio.to_thread(server.stop, "fast")
        stopped.set()
        await refused_enough.wait()
        await asyncio.to_thread(server.start)
        restarted.set()

    with caplog.at_level(logging.WARNING):
        await asyncio.wait_for(
            asyncio.gather(outage(), *(member(user) for user in range(1, MEMBERS + 1))), 120
        )

    assert tally.unexpected == []
    assert len(tally.refused) >= MEMBERS
    assert {type(e) for e in tally.refused} <= {StoreUnavailableError, StoreBusyError}
    unavailable = [e for e in tally.refused if isinstance(e, StoreUnavailableError)]
    assert unavailable, "the outage was not reported as the database being unavailable"
    assert str(unavailable[0]) == (
        "The quiz database is unavailable; your answer was not recorded. "
        "Try again in a minute; the bot's host has been told."
    )
    assert unavailable[0].action is StoreAction.ANSWER
    # Recovered by itself: answers after the restart are acknowledged.
    assert len(after_restart) >= MEMBERS
    # The database holds exactly the acknowledged attempts: none lost, none refused kept.
    with service.store.read() as conn:
        rows = conn.execute(text("SELECT post_id, user_id FROM attempt"))
        stored = {(post_id, user_id) for post_id, user_id in rows}
    assert stored == tally.acknowledged
    # Told once per fault, without a traceback; the log names the server as unreachable.
    tracebacks = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.exc_info]
    assert not tracebacks, f"a traceback was logged: {tracebacks}"
    faults = [r.getMessage() for r in caplog.records if r.name == "bot.store.store"]
    assert faults and all("was refused and stored nothing" in m for m in faults)
    assert any("cannot be reached" in m for m in faults)


@pytest.mark.parametrize("reached_the_server", [True, False], ids=["committed", "not-committed"])
async def test_an_answer_whose_commit_lost_its_reply_counts_exactly_when_it_was_stored(
    pg_url: str, reached_the_server: bool, caplog: pytest.LogCaptureFixture
) -> None:
    # The connection breaks during the COMMIT: after the server committed (it crashed, or the
    # network broke, before the reply came), or before the COMMIT reached it. Only the
    # database knows which; a member must not be told "not recorded" of a recorded answer.
    import psycopg

    store = Store(make_engine(pg_url))
    service = QuizService(Catalog.of([TASK]), store)
    await service.start()
    try:
        post = (await service.create_post(GUILD, CHANNEL, TASK, 99)).post.id
        dialect = store.engine.dialect
        real_commit = dialect.do_commit

        def commit_and_lose_the_reply(connection: Any) -> None:
            del dialect.do_commit  # only this one COMMIT
            if reached_the_server:
                real_commit(connection)
            connection.driver_connection.close()
            raise psycopg.OperationalError("consuming input failed: server closed the connection")

        dialect.do_commit = commit_and_lose_the_reply  # type: ignore[method-assign]
        with caplog.at_level(logging.WARNING):
            if reached_the_server:
                reply = await service.answer(post, GUILD, 1, "user1", ("A",))
                assert reply.outcome.recorded and reply.outcome.points > 0
            else:
                with pytest.raises(StoreUnavailableError):
                    await service.answer(post, GUILD, 1, "user1", ("A",))
        with store.read() as conn:
            stored = conn.execute(text("SELECT user_id FROM attempt")).scalars().all()
        assert stored == ([1] if reached_the_server else [])
        after_all = [r for r in caplog.records if "committed after all" in r.getMessage()]
        assert len(after_all) == int(reached_the_server)
        assert not [r for r in caplog.records if r.exc_info]
        # The member goes on from what was stored: solved, or a fresh first try.
        again = await service.answer(post, GUILD, 1, "user1", ("A",))
        assert again.outcome.recorded is not reached_the_server
    finally:
        await service.close()
        store.engine.dispose()


def test_an_unreachable_postgres_server_is_one_host_error() -> None:
    from socket import socket

    with socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql+psycopg://quizbot:secret@127.0.0.1:{port}/quizbot"
    with pytest.raises(HostError) as caught:
        check_database(url)
    message = str(caught.value)
    assert "cannot connect to the PostgreSQL database" in message
    assert "secret" not in message and "DATABASE_URL" in message


def test_a_reachable_postgres_database_passes(pg_server: PgServer) -> None:
    url = pg_server.new_database()
    try:
        check_database(url)
    finally:
        pg_server.drop_database(url)
