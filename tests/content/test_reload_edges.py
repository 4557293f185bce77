"""Live reload never misses a change: the edges of the watch, with real files and the real watcher.

- CONTENT_DIR deleted and made again, or replaced by another folder: the watch follows it, and
  says so in one line each way;
- a change made between the start-up's load and the watch being armed is picked up;
- a change the watch filter cannot tell is a bank's (a folder named `old.d` moved away) is
  picked up; a file named `b.YAML` is a bank; a broken link is a problem, not silence;
- a change made during a reload is picked up by another.

No fixed sleeps: each test waits for what it expects, with a timeout.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.content import load_banks
from bot.content.cache import load_banks_cached
from bot.content.reload import ContentReloader
from bot.quiz.tasks import Catalog

from .test_reload import LOGGER, Holder, bank, messages

TIMEOUT = 20.0


async def until(done: Callable[[], bool], what: str) -> None:
    """Poll `done` until it holds, or fail naming `what`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not done():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def ids(catalog: Catalog) -> list[str]:
    return sorted(t.id for t in catalog)


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    folder.mkdir()
    (folder / "a.yaml").write_text(bank("c-1"))
    return folder


@pytest.fixture
async def reloaders() -> AsyncIterator[list[ContentReloader]]:
    made: list[ContentReloader] = []
    yield made
    for reloader in made:
        await asyncio.wait_for(reloader.stop(), TIMEOUT)
        assert not reloader.watching


def watch(made: list[ContentReloader], path: Path, holder: Holder) -> ContentReloader:
    reloader = ContentReloader(path, holder, step_ms=50, poll_s=0.05)
    made.append(reloader)
    reloader.watch()
    return reloader


async def armed(caplog: pytest.LogCaptureFixture, count: int = 1) -> None:
    """Wait until the watch has logged that it watches (it is armed right after)."""
    await until(
        lambda: (
            len([m for m in messages(caplog, logging.INFO) if m.startswith("watching")]) >= count
        ),
        "the watch to start",
    )


async def armed_watch(
    made: list[ContentReloader], path: Path, caplog: pytest.LogCaptureFixture
) -> tuple[Holder, ContentReloader]:
    """The banks at `path` loaded, and a watch over them that is armed."""
    caplog.set_level(logging.INFO, LOGGER)
    holder = Holder(load_banks(path))
    reloader = watch(made, path, holder)
    await armed(caplog)
    return holder, reloader


async def test_a_deleted_and_recreated_folder_is_watched_again(
    content: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    holder, reloader = await armed_watch(reloaders, content, caplog)

    shutil.rmtree(content)
    gone = f"{content} is gone; watching for it to come back (the last good content stays)"
    await until(lambda: gone in messages(caplog, logging.WARNING), "the gone line")
    assert ids(holder.catalog) == ["c-1"]  # the last good content stays

    await asyncio.to_thread(content.mkdir)
    (content / "a.yaml").write_text(bank("c-1", "c-2"))
    await until(lambda: "c-2" in holder.catalog, "the recreated folder's banks")
    assert f"{content} is back; watching it for content changes" in messages(caplog, logging.INFO)

    # And it keeps watching the new folder: a later change is picked up too.
    (content / "b.yaml").write_text(bank("c-3"))
    await until(lambda: "c-3" in holder.catalog, "a change in the recreated folder")
    assert reloader.watching
    assert messages(caplog, logging.WARNING).count(gone) == 1
    assert all(r.exc_info is None for r in caplog.records)


async def test_a_folder_replaced_by_another_is_watched(
    tmp_path: Path,
    content: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`rm -r content && mv new content`, faster than the watch looks: another inode."""
    holder, _ = await armed_watch(reloaders, content, caplog)

    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "a.yaml").write_text(bank("c-1", "c-5"))
    shutil.rmtree(content)
    staged.rename(content)
    await until(lambda: "c-5" in holder.catalog, "the replacing folder's banks")

    (content / "b.yaml").write_text(bank("c-6"))
    await until(lambda: "c-6" in holder.catalog, "a change in the replacing folder")


async def test_a_watch_started_before_the_folder_exists_waits_for_it(
    tmp_path: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    folder = tmp_path / "later"
    holder = Holder(Catalog.of([]))
    reloader = watch(reloaders, folder, holder)
    await until(
        lambda: any("is gone" in m for m in messages(caplog, logging.WARNING)), "the gone line"
    )
    assert reloader.watching

    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "a.yaml").write_text(bank("c-1"))
    staged.rename(folder)
    await until(lambda: "c-1" in holder.catalog, "the new folder's banks")


async def test_a_change_between_the_load_and_the_watch_is_picked_up(
    content: Path, reloaders: list[ContentReloader]
) -> None:
    holder = Holder(load_banks(content))
    # The bot loads at start-up and arms the watch once the gateway is ready, seconds later.
    (content / "a.yaml").write_text(bank("c-1", "c-2"))
    watch(reloaders, content, holder)
    await until(lambda: "c-2" in holder.catalog, "the change made before the watch")
    assert len(holder.swaps) == 1


async def test_a_change_after_a_cached_start_up_is_picked_up(
    tmp_path: Path, content: Path, reloaders: list[ContentReloader]
) -> None:
    cache = tmp_path / "cache.pickle"
    load_banks_cached(content, cache)  # writes the cache
    holder = Holder(load_banks_cached(content, cache))  # the restart: from the cache
    (content / "a.yaml").write_text(bank("c-1", "c-2"))
    watch(reloaders, content, holder)
    await until(lambda: "c-2" in holder.catalog, "the change made before the watch")


async def test_an_unchanged_folder_is_not_reloaded_when_the_watch_starts(
    content: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    holder, _ = await armed_watch(reloaders, content, caplog)
    (content / "b.yaml").write_text(bank("c-2"))  # a first change after arming: one reload
    await until(lambda: "c-2" in holder.catalog, "the change")
    assert len(holder.swaps) == 1


async def test_a_folder_of_banks_with_a_dot_in_its_name_moved_away_is_picked_up(
    tmp_path: Path,
    content: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    (content / "topic.v2").mkdir()
    (content / "topic.v2" / "b.yaml").write_text(bank("c-2"))
    holder = Holder(load_banks(content))
    watch(reloaders, content, holder)
    await armed(caplog)

    (content / "topic.v2").rename(tmp_path / "topic.v2")  # one event, for `topic.v2`
    await until(lambda: "c-2" not in holder.catalog, "the moved folder's banks to go")
    assert ids(holder.catalog) == ["c-1"]


async def test_a_bank_with_an_upper_case_extension_is_reloaded(
    content: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    holder, _ = await armed_watch(reloaders, content, caplog)
    (content / "b.YAML").write_text(bank("c-2"))
    await until(lambda: "c-2" in holder.catalog, "b.YAML")


async def test_a_broken_link_is_reported_by_the_reload(
    content: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    holder, _ = await armed_watch(reloaders, content, caplog)
    (content / "b.yaml").symlink_to(content / "nowhere.yaml")
    line = (
        f"content problem: {content / 'b.yaml'}: a broken symbolic link: its target "
        f"{content / 'nowhere.yaml'} does not exist"
    )
    await until(lambda: line in messages(caplog, logging.WARNING), "the broken link's line")
    assert ids(holder.catalog) == ["c-1"]


async def test_a_change_during_a_reload_is_picked_up(
    content: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, LOGGER)
    holder = Holder(load_banks(content))
    entered, gate = asyncio.Event(), asyncio.Event()
    swap = holder.use_catalog

    async def slow_swap(catalog: Catalog) -> None:
        entered.set()
        await gate.wait()
        await swap(catalog)

    holder.use_catalog = slow_swap  # type: ignore[method-assign]
    watch(reloaders, content, holder)
    await armed(caplog)
    (content / "b.yaml").write_text(bank("c-2"))
    await asyncio.wait_for(entered.wait(), TIMEOUT)
    (content / "c.yaml").write_text(bank("c-3"))  # while the first reload is still going
    gate.set()
    await until(lambda: "c-3" in holder.catalog, "the change made during a reload")


async def test_a_watch_that_cannot_use_events_polls_instead(
    content: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Out of inotify watches, say: the watch polls rather than stopping."""
    from bot.content import reload as reload_module

    real = reload_module.awatch

    def no_events(*paths: Path, force_polling: bool | None = None, **kwargs: object):  # type: ignore[no-untyped-def]
        if not force_polling:
            raise OSError(28, "inotify watch limit reached")
        return real(*paths, force_polling=True, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(reload_module, "awatch", no_events)
    caplog.set_level(logging.INFO, LOGGER)
    holder = Holder(load_banks(content))
    watch(reloaders, content, holder)
    await until(
        lambda: any("polling it every" in m for m in messages(caplog, logging.WARNING)),
        "the polling line",
    )
    (content / "b.yaml").write_text(bank("c-2"))
    await until(lambda: "c-2" in holder.catalog, "the change, seen by polling")


async def test_a_content_link_pointed_at_a_new_release_is_followed(
    tmp_path: Path, reloaders: list[ContentReloader], caplog: pytest.LogCaptureFixture
) -> None:
    """The deploy that points `current` at the next release (`ln -sfn releases/v2 current`)."""
    caplog.set_level(logging.INFO, LOGGER)
    v1, v2 = tmp_path / "v1", tmp_path / "v2"
    v1.mkdir()
    (v1 / "a.yaml").write_text(bank("c-1"))
    current = tmp_path / "current"
    current.symlink_to(v1)
    holder = Holder(load_banks(current))
    watch(reloaders, current, holder)
    await armed(caplog)

    v2.mkdir()
    (v2 / "a.yaml").write_text(bank("c-1", "c-2"))
    (tmp_path / "next").symlink_to(v2)
    (tmp_path / "next").replace(current)  # atomically, as `ln -sfn` does with `mv -T`
    await until(lambda: "c-2" in holder.catalog, "the new release's banks")
    assert f"{current} was replaced; watching the new one for content changes" in messages(
        caplog, logging.INFO
    )
    (v2 / "b.yaml").write_text(bank("c-3"))
    await until(lambda: "c-3" in holder.catalog, "a change in the new release")


async def test_a_bank_linked_from_outside_the_folder_is_reloaded_when_its_target_changes(
    tmp_path: Path,
    content: Path,
    reloaders: list[ContentReloader],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """No event comes from the content folder when a linked bank's target changes elsewhere."""
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "s.yaml").write_text(bank("c-2"))
    (content / "s.yaml").symlink_to(shared / "s.yaml")
    holder, _ = await armed_watch(reloaders, content, caplog)
    assert "c-3" not in holder.catalog
    (shared / "s.yaml").write_text(bank("c-2", "c-3"))
    await until(lambda: "c-3" in holder.catalog, "the linked bank's change")
