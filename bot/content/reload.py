"""Live reload of the task banks on a change under CONTENT_DIR, or SIGHUP.

A reload checks every bank off the event loop and swaps the catalog only if the check is clean;
else the last good one stays, each problem one WARNING line. Reloads never overlap. The watch
misses no change: one made before it is armed differs from the fingerprint of the last check;
a replaced CONTENT_DIR is watched again; without file system events the folder is polled.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from watchfiles import Change, DefaultFilter, awatch

from bot.content.loader import (
    check_banks,
    find_bank_files,
    fingerprint_of,
    is_bank_name,
    last_check,
)
from bot.content.problems import Problem
from bot.quiz.tasks import Catalog

log = logging.getLogger(__name__)

WATCH_STEP_MS = 300  # quiet time before a reload: an editor's save is one reload, not two


POLL_S = 1.0  # how often the watch stats its folder (still the one watched? back?)

Identity = os.stat_result
"""A folder as it was found: a folder deleted and made again is another (`os.path.samestat`)."""


def _identity(folder: Path) -> Identity | None:
    """The folder `folder` names now, or None (gone, or no folder)."""
    try:
        found = folder.stat()
    except OSError:
        return None
    return found if stat.S_ISDIR(found.st_mode) else None


def _still(folder: Path, identity: Identity) -> bool:
    """Whether `folder` still names the folder found as `identity`."""
    now = _identity(folder)
    return now is not None and os.path.samestat(now, identity)


class CatalogHolder(Protocol):
    """What a reload swaps the catalog of: the service."""

    @property
    def catalog(self) -> Catalog: ...

    async def use_catalog(self, catalog: Catalog) -> None: ...


@dataclass(frozen=True, slots=True)
class Reload:
    """What one reload found. `catalog` is None when problems kept the last good one."""

    catalog: Catalog | None
    problems: list[Problem] = field(default_factory=list)
    banks: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0

    @property
    def ok(self) -> bool:
        return self.catalog is not None

    def summary(self) -> str:
        assert self.catalog is not None
        tasks, banks = len(self.catalog), self.banks
        return (
            f"reloaded content: {tasks:,} task{'' if tasks == 1 else 's'} in "
            f"{banks:,} bank{'' if banks == 1 else 's'} (+{self.added}, -{self.removed}, "
            f"{self.changed} changed)"
        )


def check_reload(path: Path, current: Catalog) -> Reload:
    """Check the banks at `path` against the catalog in use (blocking: run it in a thread)."""
    catalog, problems = check_banks(path)
    if problems:
        return Reload(None, problems)
    old, new = current.tasks, catalog.tasks
    return Reload(
        catalog,
        banks=len(find_bank_files(path)),
        added=len(new.keys() - old.keys()),
        removed=len(old.keys() - new.keys()),
        changed=sum(1 for task_id in new.keys() & old.keys() if new[task_id] != old[task_id]),
    )


def watch_filter(path: Path) -> Callable[[Change, str], bool]:
    """Which changes are worth a reload: a bank file or a folder, not editors' swap files."""
    if path.is_file():
        target = path.resolve()
        return lambda _change, changed: Path(changed).resolve() == target
    ignored = DefaultFilter()

    def keep(change: Change, changed: str) -> bool:
        name = Path(changed).name
        return ignored(change, changed) and (is_bank_name(name) or Path(name).suffix == "")

    return keep


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic collection while a reload loads: repeated full collections held the GIL and
    stalled clicks for up to 200 ms (BENCHMARKS.md); what is left is collected once after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_out_of_collections() -> None:
    """Collect, then freeze what a reload left alive, as the start-up does: unfrozen, every full
    collection would scan the banks again (74 ms at 10,000 tasks, BENCHMARKS.md)."""
    gc.collect()
    gc.freeze()


class ContentReloader:
    def __init__(
        self,
        path: Path,
        target: CatalogHolder,
        *,
        step_ms: int = WATCH_STEP_MS,
        poll_s: float = POLL_S,
    ) -> None:
        self.path = path
        self.target = target
        self.step_ms = step_ms
        self.poll_s = poll_s
        self._one_file = path.is_file()  # watched through its folder
        self._folder = path.parent if self._one_file else path
        self._keep = watch_filter(path)
        self._lock = asyncio.Lock()
        self._requested: asyncio.Task[None] | None = None
        self._again = False
        self._watch: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None

    async def reload(self) -> Reload:
        """Check the banks and, if clean, give the service the new catalog; log the outcome."""
        async with self._lock:
            try:
                with collections_paused():
                    result = await asyncio.to_thread(check_reload, self.path, self.target.catalog)
            except OSError as exc:  # the folder changed under the walk: the host's, not a bug
                log.warning("content not reloaded: cannot read %s (%s)", self.path, exc)
                return Reload(None)
            except Exception:
                # check_banks reports what is wrong with the banks; anything raised is a bug.
                log.exception("reloading the content failed; the last good one stays")
                return Reload(None)
            if result.catalog is None:
                found, kept = len(result.problems), len(self.target.catalog)
                log.warning(
                    "content not reloaded: %s problem%s in %s; still serving the last good "
                    "content (%s task%s)",
                    f"{found:,}",
                    "" if found == 1 else "s",
                    self.path,
                    f"{kept:,}",
                    "" if kept == 1 else "s",
                )
                for problem in result.problems:
                    log.warning("content problem: %s", problem)
                return result
            try:
                await self.target.use_catalog(result.catalog)
            except Exception:  # the database, most likely: the watch must go on regardless
                log.exception("handing the reloaded content to the service failed")
                return result
            keep_out_of_collections()
            log.info("%s", result.summary())
            return result

    def request(self) -> None:
        """Reload soon (SIGHUP): at once, or right after the reload in progress."""
        if self._requested is not None and not self._requested.done():
            self._again = True
            return
        self._requested = asyncio.create_task(self._serve_requests(), name="quizbot-reload")

    async def _serve_requests(self) -> None:
        while True:
            self._again = False
            await self.reload()
            if not self._again:
                return

    @property
    def watching(self) -> bool:
        return self._watch is not None and not self._watch.done()

    def watch(self) -> None:
        """Reload on every change under the content path, until `stop`."""
        if self.watching:
            return
        self._stop = asyncio.Event()
        self._watch = asyncio.create_task(self._watch_changes(self._stop), name="quizbot-watch")

    async def _watch_changes(self, stop: asyncio.Event) -> None:
        """Watch the folder as long as the bot runs, armed again on a folder that replaces it."""
        log.info("watching %s for content changes", self.path)
        polling = False
        watched: Identity | None = None
        while not stop.is_set():
            identity = _identity(self._folder)
            if identity is None:
                log.warning(
                    "%s is gone; watching for it to come back (the last good content stays)",
                    self._folder,
                )
                if not await self._until_back(stop):
                    return
                log.info("%s is back; watching it for content changes", self._folder)
                watched = None
                continue
            if watched is not None and not os.path.samestat(identity, watched):
                log.info("%s was replaced; watching the new one for content changes", self._folder)
            watched = identity
            try:
                await self._watch_folder(identity, stop, polling)
            except Exception as exc:  # too many watches, a file system without events, ...
                if not _still(self._folder, identity):
                    continue  # it went away while being armed: see to it as above
                if polling:
                    log.warning(
                        "stopped watching %s for content changes (%s: %s); reload with SIGHUP",
                        self.path,
                        type(exc).__name__,
                        exc,
                    )
                    return
                log.warning(
                    "cannot watch %s for changes (%s: %s); polling it every %d ms instead",
                    self.path,
                    type(exc).__name__,
                    exc,
                    self.step_ms,
                )
                polling = True

    async def _until_back(self, stop: asyncio.Event) -> bool:
        """Wait until the folder exists again (True) or the watch is stopped (False)."""
        while _identity(self._folder) is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_s)
            if stop.is_set():
                return False
        return True

    async def _watch_folder(self, identity: Identity, stop: asyncio.Event, polling: bool) -> None:
        """Reload on each change until the folder is not `identity`'s or the watch stops."""
        until = asyncio.Event()
        monitor = asyncio.create_task(self._until_replaced(identity, stop, until))
        changes = awatch(
            self._folder,
            watch_filter=DefaultFilter(),
            step=self.step_ms,
            stop_event=until,
            rust_timeout=0,  # no timeouts: one clears what arrived during its last check
            recursive=not self._one_file,
            force_polling=True if polling else None,
            poll_delay_ms=self.step_ms,
        )
        keep = self._keep
        pending: asyncio.Future[set[tuple[Change, str]]] = asyncio.ensure_future(anext(changes))
        try:
            # One turn arms the watch; a change since the last check is the fingerprint's to find.
            await asyncio.sleep(0)
            if not pending.done() and await self._changed_since_checked():
                await self.reload()
            while True:
                try:
                    batch = await pending
                except StopAsyncIteration:
                    return
                # A batch without a bank reloads only if the banks changed since the last check.
                if any(keep(change, name) for change, name in batch) or (
                    await self._changed_since_checked()
                ):
                    await self.reload()
                pending = asyncio.ensure_future(anext(changes))
        finally:
            until.set()
            monitor.cancel()
            if not pending.done():
                pending.cancel()
            with contextlib.suppress(BaseException):
                await pending
            with contextlib.suppress(asyncio.CancelledError):
                await monitor
            await changes.aclose()

    async def _until_replaced(
        self, identity: Identity, stop: asyncio.Event, until: asyncio.Event
    ) -> None:
        """Set `until` once the watch is stopped or the folder replaced; meanwhile compare the
        banks on each tick, as a bank linked from outside changes with no event."""
        while _still(self._folder, identity):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_s)
            if stop.is_set() or not _still(self._folder, identity):
                break
            if not self._lock.locked() and await self._changed_under_links():
                self.request()
        until.set()

    async def _changed_under_links(self) -> bool:
        """Whether banks linked from outside (no events) are known to differ from their check."""
        checked = last_check(self.path)
        if checked is None or not checked[1]:
            return False
        now = await asyncio.to_thread(fingerprint_of, self.path)
        return now is not None and now != checked[0]

    async def _changed_since_checked(self) -> bool:
        """Whether the banks differ from what the last check saw (unknown counts as changed)."""
        checked = last_check(self.path)
        now = await asyncio.to_thread(fingerprint_of, self.path)
        return checked is None or now is None or now != checked[0]

    async def stop(self) -> None:
        """Stop watching, and wait for a reload in progress."""
        if self._stop is not None:
            self._stop.set()
        for task in (self._watch, self._requested):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._watch = self._requested = None


__all__ = ["CatalogHolder", "ContentReloader", "Reload", "check_reload", "watch_filter"]
