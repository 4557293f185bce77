"""Server banks in the service: a server's uploads serve that server only, next to the shipped
banks; replacing or removing a bank leaves open posts their task versions; they survive a
restart and a reload of the shipped banks; a check that takes too long is refused."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from bot.content import uploads
from bot.quiz.engine import Status
from bot.quiz.errors import (
    BankRefusedError,
    NoMatchingTaskError,
    UnknownBankError,
    UnknownTaskError,
)
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine
from tests.factories import bank_yaml, choice, choice_task

GUILD, OTHER, MOD = 1, 2, 77
SHIPPED = choice_task()


def bank(task_id: str = "net-1", question: str = "Which layer is IP?", answer: str = "A") -> bytes:
    return bank_yaml(task_id, question=question, answer=answer).encode()


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    """Once per engine: `[sqlite]` and `[postgresql]`."""
    store = Store(make_engine(database_url))
    yield store
    store.engine.dispose()


@pytest.fixture
async def service(store: Store) -> AsyncIterator[QuizService]:
    service = QuizService(Catalog.of([SHIPPED]), store, batch_window=0.001)
    await service.start()
    yield service
    await service.close()


async def test_an_uploaded_bank_serves_its_server_only(service: QuizService) -> None:
    done = await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
    assert (done.bank.name, done.replaced) == ("net", False)
    assert {t.id for t in service.catalog_for(GUILD)} == {SHIPPED.id, "net-1"}
    assert service.catalog_for(GUILD).topics() == ["Networking", SHIPPED.topic]
    assert service.choose_task(GUILD, "networking").id == "net-1"
    assert {t.id for t in service.catalog_for(OTHER)} == {SHIPPED.id}
    with pytest.raises(UnknownTaskError):
        service.choose_task(OTHER, task_id="net-1")
    with pytest.raises(NoMatchingTaskError):
        service.tasks_matching(OTHER, "Networking", None)
    assert [t.id for t in service.tasks_matching(GUILD, "Networking", None)] == ["net-1"]
    assert service.bank_names(GUILD) == ["net"] and service.bank_names(OTHER) == []


async def test_replacing_a_bank_keeps_open_posts_on_their_version(service: QuizService) -> None:
    await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
    old = service.choose_task(GUILD, task_id="net-1")
    posted = await service.create_post(GUILD, 5, old, MOD)
    done = await service.upload_bank(GUILD, "net.yaml", bank(answer="B"), MOD)
    assert done.replaced
    assert service.choose_task(GUILD, task_id="net-1").answers == ("B",)
    reply = await service.answer(posted.post.id, GUILD, 9, "ann", ("A",))
    assert reply.outcome.status is Status.CORRECT  # graded with the version it was posted with
    (summary,) = await service.list_banks(GUILD)
    assert summary.task_count == 1 and "answer: B" in await service.bank_yaml(GUILD, "net")


async def test_ids_may_not_collide_within_a_server(service: QuizService) -> None:
    await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
    with pytest.raises(BankRefusedError) as refused:
        await service.upload_bank(GUILD, "more.yaml", bank(), MOD)
    (problem,) = refused.value.problems
    assert "already used by this server's bank 'net'" in problem
    with pytest.raises(BankRefusedError) as refused:
        await service.upload_bank(GUILD, "mine.yaml", bank(task_id=SHIPPED.id), MOD)
    assert "already used by the shipped bank" in refused.value.problems[0]
    await service.upload_bank(OTHER, "more.yaml", bank(), MOD)  # another server: its own ids


async def test_removing_a_bank_stops_serving_it(service: QuizService) -> None:
    await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
    posted = await service.create_post(GUILD, 5, service.choose_task(GUILD, task_id="net-1"), 1)
    assert await service.remove_bank(GUILD, "net") == 1
    assert {t.id for t in service.catalog_for(GUILD)} == {SHIPPED.id}
    with pytest.raises(UnknownBankError):
        await service.remove_bank(GUILD, "net")
    with pytest.raises(UnknownBankError):
        await service.bank_yaml(GUILD, "net")
    still = await service.posted(posted.post.id, GUILD)  # its open post keeps working
    assert still.task.id == "net-1"


async def test_banks_survive_a_restart_and_a_reload_of_the_shipped_banks(store: Store) -> None:
    first = QuizService(Catalog.of([SHIPPED]), store)
    await first.start()
    await first.upload_bank(GUILD, "net.yaml", bank(), MOD)
    await first.close()
    second = QuizService(Catalog.of([SHIPPED]), store)
    await second.start()
    try:
        assert "net-1" in second.catalog_for(GUILD) and "net-1" not in second.catalog_for(OTHER)
        await second.use_catalog(Catalog.of([choice("another")]))
        assert {t.id for t in second.catalog_for(GUILD)} == {"another", "net-1"}
    finally:
        await second.close()


async def test_a_check_over_the_time_limit_is_refused_and_stores_nothing(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    real = uploads.check_upload_encoded

    def slow(*args: object, **kwargs: object) -> object:
        release.wait(10)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(uploads, "check_upload_encoded", slow)
    service = QuizService(
        Catalog.of([SHIPPED]), store, upload_timeout=0.01, upload_pool=ThreadPoolExecutor
    )
    await service.start()
    try:
        with pytest.raises(BankRefusedError) as refused:
            await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
        assert "took over 0.01 s" in refused.value.problems[0]
        assert await service.list_banks(GUILD) == []
    finally:
        release.set()
        await service.close()


async def test_a_worker_process_that_died_is_replaced_and_the_upload_says_so(
    service: QuizService, caplog: pytest.LogCaptureFixture
) -> None:
    await service.upload_bank(GUILD, "net.yaml", bank(), MOD)
    # The worker ends under the bot (the out-of-memory killer, a crash in a C parser).
    for worker in multiprocessing.active_children():
        worker.kill()
        worker.join(10)

    with pytest.raises(BankRefusedError) as refused:
        await service.upload_bank(GUILD, "more.yaml", bank("net-2"), MOD)

    assert refused.value.problems == (
        "more.yaml: the check stopped before it ended (its worker process quit): upload it again",
    )
    assert not [r for r in caplog.records if r.exc_info]
    # The next upload gets a new worker: uploads do not stay broken until a restart.
    done = await service.upload_bank(GUILD, "more.yaml", bank("net-2"), MOD)
    assert [t.id for t in done.bank.tasks] == ["net-2"]


async def test_too_large_is_refused_before_any_check(service: QuizService) -> None:
    with pytest.raises(BankRefusedError) as refused:
        await service.upload_bank(GUILD, "big.yaml", b" " * (uploads.MAX_UPLOAD_BYTES + 1), MOD)
    assert "1,000,001 bytes" in refused.value.problems[0]


async def test_a_bank_uploaded_by_another_process_is_read_when_refreshed(store: Store) -> None:
    sender = QuizService(Catalog.of([SHIPPED]), store)  # the process that sends reminders
    await sender.start()
    owner = QuizService(Catalog.of([SHIPPED]), store, upload_pool=ThreadPoolExecutor)
    await owner.start()
    try:
        assert not await sender.refresh_server_banks()  # nothing changed: nothing re-read
        await owner.upload_bank(GUILD, "networking.yaml", bank(), MOD)
        assert "net-1" not in sender.catalog_for(GUILD)
        assert await sender.refresh_server_banks()
        assert "net-1" in sender.catalog_for(GUILD)
        await owner.remove_bank(GUILD, "networking")
        assert await sender.refresh_server_banks()
        assert "net-1" not in sender.catalog_for(GUILD)
    finally:
        await owner.close()
        await sender.close()


@pytest.mark.parametrize("change", ["upload", "remove"])
async def test_a_refresh_under_way_never_undoes_an_upload_or_removal_in_this_process(
    store: Store, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """The reminders' process re-reads every server's banks (another process uploaded one) while
    a moderator of one of its own servers uploads or removes a bank: once both are done, the
    server is served exactly what /bank said, not the banks as they were before."""
    sender = QuizService(Catalog.of([SHIPPED]), store, upload_pool=ThreadPoolExecutor)
    await sender.start()
    elsewhere = QuizService(Catalog.of([SHIPPED]), store, upload_pool=ThreadPoolExecutor)
    await elsewhere.start()
    try:
        if change == "remove":
            await sender.upload_bank(GUILD, "networking.yaml", bank(), MOD)
        await elsewhere.upload_bank(OTHER, "other.yaml", bank("other-1"), MOD)
        # The re-read parses the stored banks slowly (many servers' banks) ...
        parsing, go_on = threading.Event(), threading.Event()
        real = uploads.stored_tasks

        def slow(name: str, text: str) -> object:
            parsing.set()
            go_on.wait(timeout=10)
            return real(name, text)

        monkeypatch.setattr(uploads, "stored_tasks", slow)
        refresh = asyncio.create_task(sender.refresh_server_banks())
        await asyncio.to_thread(parsing.wait, 10)
        # ... while the moderator's command runs to its end, and is told it worked.
        if change == "upload":
            changed = asyncio.create_task(sender.upload_bank(GUILD, "networking.yaml", bank(), MOD))
        else:
            changed = asyncio.create_task(sender.remove_bank(GUILD, "networking"))
        await asyncio.sleep(0.2)
        go_on.set()
        await asyncio.gather(refresh, changed)

        assert ("net-1" in sender.catalog_for(GUILD)) == (change == "upload")
        assert sender.bank_names(GUILD) == (["networking"] if change == "upload" else [])
        assert "other-1" in sender.catalog_for(OTHER)
    finally:
        await elsewhere.close()
        await sender.close()
