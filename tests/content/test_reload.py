"""Live reload: a clean check swaps the catalog, a broken bank keeps the last good one (one
WARNING line per problem, no traceback), and every reload logs one line with its counts."""

from __future__ import annotations

import asyncio
import gc
import logging
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from watchfiles import Change

from bot.content import load_banks
from bot.content import reload as reload_module
from bot.content.reload import ContentReloader, watch_filter
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine

LOGGER = "bot.content.reload"


def bank(*ids: str, answer: str = "B", topic: str = "Testing") -> str:
    tasks = "".join(
        textwrap.dedent(
            f"""\
              - id: {task_id}
                kind: choice
                difficulty: easy
                question: Which colour is grass?
                options: [red, green, blue]
                answer: {answer}
                hint: Not red.
                solution:
                  explanation: Grass is green.
            """
        )
        for task_id in ids
    )
    head = f"bank: Colours\ntopic: {topic}\ntasks:\n"
    return head + textwrap.indent(tasks, "  ")


BROKEN = "bank: Broken\ntopic: Testing\ntasks:\n  - id: [unclosed\n"
"""YAML that does not parse."""


class Holder:
    """The service as the reloader sees it: a catalog, and a way to replace it."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.swaps: list[Catalog] = []
        self.swapped = asyncio.Event()

    async def use_catalog(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.swaps.append(catalog)
        self.swapped.set()


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    (folder / "colours").mkdir(parents=True)
    (folder / "colours" / "a.yaml").write_text(bank("c-1", "c-2"))
    (folder / "b.yml").write_text(bank("c-3", topic="Other"))
    return folder


@pytest.fixture
def holder(content: Path) -> Holder:
    return Holder(load_banks(content))


def messages(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno == level]


async def test_a_clean_reload_swaps_the_catalog_and_logs_one_line(
    content: Path, holder: Holder, caplog: pytest.LogCaptureFixture
) -> None:
    (content / "colours" / "a.yaml").write_text(bank("c-1", "c-4", "c-5", answer="C"))
    caplog.set_level(logging.INFO, LOGGER)

    result = await ContentReloader(content, holder).reload()

    assert result.ok and holder.swaps == [result.catalog]
    assert sorted(t.id for t in holder.catalog) == ["c-1", "c-3", "c-4", "c-5"]
    assert holder.catalog.get_or_raise("c-1").answers == ("C",)
    assert messages(caplog, logging.INFO) == [
        "reloaded content: 4 tasks in 2 banks (+2, -1, 1 changed)"
    ]
    assert messages(caplog, logging.WARNING) == []


async def test_a_reloaded_catalog_is_left_out_of_later_collections(
    content: Path, holder: Holder
) -> None:
    """Like the start-up's banks: a full collection must not scan the new tasks again."""
    (content / "colours" / "a.yaml").write_text(bank("c-1", "c-4"))
    result = await ContentReloader(content, holder).reload()

    assert result.catalog is not None
    task = result.catalog.get_or_raise("c-4")
    assert gc.is_tracked(task)
    tracked = {id(obj) for obj in gc.get_objects()}  # generations 0-2, not the frozen ones
    assert id(task) not in tracked


@pytest.mark.parametrize("fails", [False, True], ids=["clean", "unreadable"])
async def test_no_automatic_collection_runs_while_a_reload_loads(
    fails: bool, content: Path, holder: Holder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load's full collections held the interpreter lock and stalled clicks; they come
    back once it is done, whether it succeeded or not."""
    seen: list[bool] = []
    check = reload_module.check_reload

    def checking(path: Path, current: Catalog) -> reload_module.Reload:
        seen.append(gc.isenabled())
        if fails:
            raise OSError("the folder changed under the walk")
        return check(path, current)

    monkeypatch.setattr(reload_module, "check_reload", checking)
    assert gc.isenabled()
    result = await ContentReloader(content, holder).reload()

    assert seen == [False]
    assert gc.isenabled()
    assert result.ok is not fails


async def test_a_broken_bank_keeps_the_last_good_catalog(
    content: Path, holder: Holder, caplog: pytest.LogCaptureFixture
) -> None:
    good = holder.catalog
    (content / "colours" / "a.yaml").write_text(bank("c-1", answer="Z"))  # no option Z
    (content / "broken.yaml").write_text(BROKEN)
    caplog.set_level(logging.INFO, LOGGER)

    result = await ContentReloader(content, holder).reload()

    assert not result.ok and len(result.problems) == 2
    assert holder.catalog is good and holder.swaps == []
    warnings = messages(caplog, logging.WARNING)
    assert warnings[0] == (
        f"content not reloaded: 2 problems in {content}; "
        "still serving the last good content (3 tasks)"
    )
    assert warnings[1:] == [f"content problem: {p}" for p in result.problems]
    assert any("broken.yaml" in w and "YAML does not parse" in w for w in warnings)
    assert any("a.yaml" in w and "c-1" in w for w in warnings)
    assert messages(caplog, logging.INFO) == []
    assert all(r.exc_info is None for r in caplog.records)  # the host's content: no traceback


async def test_a_fixed_bank_is_picked_up(
    content: Path, holder: Holder, caplog: pytest.LogCaptureFixture
) -> None:
    reloader = ContentReloader(content, holder)
    (content / "broken.yaml").write_text(BROKEN)
    assert not (await reloader.reload()).ok
    (content / "broken.yaml").write_text(bank("c-9"))
    caplog.set_level(logging.INFO, LOGGER)

    assert (await reloader.reload()).ok
    assert "c-9" in holder.catalog
    assert messages(caplog, logging.INFO) == [
        "reloaded content: 4 tasks in 3 banks (+1, -0, 0 changed)"
    ]


def remove_banks(folder: Path) -> None:
    for file in folder.rglob("*.y*ml"):
        file.unlink()


async def test_an_empty_folder_is_refused(content: Path, holder: Holder) -> None:
    remove_banks(content)
    result = await ContentReloader(content, holder).reload()
    assert not result.ok and holder.swaps == []
    assert "no *.yaml or *.yml banks here" in str(result.problems[0])


async def test_requests_during_a_reload_make_one_more(content: Path, holder: Holder) -> None:
    entered, gate = asyncio.Event(), asyncio.Event()
    swap = holder.use_catalog

    async def slow_swap(catalog: Catalog) -> None:
        entered.set()
        await gate.wait()
        await swap(catalog)

    holder.use_catalog = slow_swap  # type: ignore[method-assign]
    reloader = ContentReloader(content, holder)
    reloader.request()
    reloader.request()  # before the reload has read the banks: that reload serves it too
    await asyncio.wait_for(entered.wait(), timeout=20)
    for _ in range(3):  # while it swaps: the banks may have changed again, so once more
        reloader.request()
    gate.set()
    await reloader.stop()  # waits for the requested reloads
    assert len(holder.swaps) == 2


async def test_a_reload_reaches_the_service_at_once(content: Path) -> None:
    """/topics and autocomplete read `service.catalog`: the swap is that one assignment."""
    engine = make_engine("sqlite://")
    service = QuizService(load_banks(content), Store(engine))
    try:
        (content / "b.yml").write_text(bank("c-3", topic="Renamed"))
        assert (await ContentReloader(content, service).reload()).ok
        assert service.catalog.topics() == ["Renamed", "Testing"]
        assert service.choose_task(None, topic="Renamed").id == "c-3"
    finally:
        await service.close()
        engine.dispose()


# -- watching ------------------------------------------------------------------------------


@pytest.fixture
async def watching(content: Path, holder: Holder) -> AsyncIterator[ContentReloader]:
    reloader = ContentReloader(content, holder, step_ms=50)
    reloader.watch()
    yield reloader
    await reloader.stop()
    assert not reloader.watching


async def saved_until(save: Callable[[], None], done: Callable[[], bool]) -> None:
    """Save until `done()`: the watch may not be set up yet when the first save lands."""
    for _ in range(40):
        save()
        for _tick in range(50):
            await asyncio.sleep(0.01)
            if done():
                return
    raise AssertionError("no reload after 40 saves")


async def test_a_change_in_the_folder_reloads(
    content: Path, holder: Holder, watching: ContentReloader
) -> None:
    file = content / "colours" / "a.yaml"
    await saved_until(lambda: file.write_text(bank("c-1", "c-2", "c-7")), holder.swapped.is_set)
    assert "c-7" in holder.catalog


async def test_a_broken_save_keeps_serving_then_the_fix_reloads(
    content: Path, holder: Holder, watching: ContentReloader, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, LOGGER)
    good, file = holder.catalog, content / "colours" / "a.yaml"
    refused = lambda: bool(messages(caplog, logging.WARNING))  # noqa: E731
    await saved_until(lambda: file.write_text(BROKEN), refused)
    assert messages(caplog, logging.WARNING)[0].startswith("content not reloaded: 1 problem")
    assert holder.catalog is good and holder.swaps == []

    await saved_until(lambda: file.write_text(bank("c-1", "c-8")), holder.swapped.is_set)
    assert "c-8" in holder.catalog


async def test_a_single_bank_file_is_watched_through_its_folder(tmp_path: Path) -> None:
    file = tmp_path / "one.yaml"
    file.write_text(bank("c-1"))
    holder = Holder(load_banks(file))
    reloader = ContentReloader(file, holder, step_ms=50)
    reloader.watch()
    try:
        (tmp_path / "other.yaml").write_text(bank("c-2"))  # not the bank: no reload

        def replace_the_file() -> None:  # as editors save: a new file renamed over the old
            (tmp_path / "one.yaml.new").write_text(bank("c-1", "c-9"))
            (tmp_path / "one.yaml.new").replace(file)

        await saved_until(replace_the_file, holder.swapped.is_set)
    finally:
        await reloader.stop()
    assert [t.id for t in holder.catalog] == ["c-1", "c-9"]
    assert all("c-9" in swapped for swapped in holder.swaps)  # other.yaml reloaded nothing


async def test_stop_ends_the_watch(content: Path, holder: Holder) -> None:
    reloader = ContentReloader(content, holder)
    reloader.watch()
    assert reloader.watching
    await asyncio.wait_for(reloader.stop(), timeout=20)
    assert not reloader.watching


def test_the_watch_keeps_bank_files_and_folders_only(tmp_path: Path) -> None:
    keep = watch_filter(tmp_path)
    assert keep(Change.modified, str(tmp_path / "topic" / "bank.yaml"))
    assert keep(Change.added, str(tmp_path / "bank.yml"))
    assert keep(Change.added, str(tmp_path / "bank.YAML"))  # a bank in any case
    assert keep(Change.deleted, str(tmp_path / "topic"))
    assert not keep(Change.modified, str(tmp_path / ".bank.yaml.swp"))
    assert not keep(Change.modified, str(tmp_path / "bank.yaml~"))
    assert not keep(Change.added, str(tmp_path / "notes.txt"))
    assert not keep(Change.added, str(tmp_path / ".git"))

    single = tmp_path / "one.yaml"
    single.write_text(bank("c-1"))
    only = watch_filter(single)
    assert only(Change.modified, str(single))
    assert not only(Change.modified, str(tmp_path / "other.yaml"))
