"""Live reload of the task banks: a change under CONTENT_DIR (or SIGHUP) is picked up without a
restart.

A reload checks every bank again, off the event loop (`asyncio.to_thread`), and hands the
service the new catalog only if the check is clean: a bank with problems is not loaded, the last
good catalog stays, and each problem is logged as one WARNING line (no traceback: it is the
host's content, not a bug). Each reload logs one line with the task counts, e.g.
"reloaded content: 12 tasks in 2 banks (+2, -0, 1 changed)".

Open posts do not change with the banks: each keeps the task version it was posted with
(bot/store/task_versions.py). The catalog decides only what /topics, autocomplete and the next
post offer, and the service swaps it in one assignment (`QuizService.use_catalog`).

`ContentReloader` is owned by the bot (bot/discord_ui/client.py), which starts the watch once
the gateway is ready (unless CONTENT_WATCH is off) and stops it on close; the runner turns
SIGHUP into `request()`. Reloads never overlap: a request during one runs once more after it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from watchfiles import Change, DefaultFilter, awatch

from bot.content.loader import BANK_SUFFIXES, check_banks, find_bank_files
from bot.content.problems import Problem
from bot.quiz.tasks import Catalog
from bot.wording import plural

log = logging.getLogger(__name__)

WATCH_STEP_MS = 300
"""Quiet time after the last change before a reload: an editor's save is one reload, not two
(and a half-written file is rarely caught; if it is, the next event reloads it whole)."""


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
        return (
            f"reloaded content: {plural(len(self.catalog), 'task')} in "
            f"{plural(self.banks, 'bank')} (+{self.added}, -{self.removed}, "
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
    """Which changes are worth a reload: a bank file (or the one file `path`), or a folder
    (a moved or deleted folder of banks); not editors' swap and backup files."""
    if path.is_file():
        target = path.resolve()
        return lambda _change, changed: Path(changed).resolve() == target
    ignored = DefaultFilter()

    def keep(change: Change, changed: str) -> bool:
        suffix = Path(changed).suffix
        return ignored(change, changed) and (suffix in BANK_SUFFIXES or suffix == "")

    return keep


@contextlib.contextmanager
def collections_paused() -> Iterator[None]:
    """No automatic garbage collection while a reload loads the banks: the load allocates so
    much that full collections ran again and again in its thread, each holding the
    interpreter lock, so the event loop (clicks) stalled for up to 200 ms at a time
    (BENCHMARKS.md). What the pause leaves is collected once after (`keep_out_of_collections`),
    or by the next automatic collection when the reload fails."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_out_of_collections() -> None:
    """Freeze what a reload left alive, as the start-up does (`QuizBot.setup_hook`): the new
    banks live until the next reload, and unfrozen every full collection would scan them
    again (74 ms each at 10,000 tasks, BENCHMARKS.md). Collected first, so that the load's own
    garbage is freed rather than kept for good; one pause per reload instead of one per full
    collection."""
    gc.collect()
    gc.freeze()


class ContentReloader:
    def __init__(self, path: Path, target: CatalogHolder, *, step_ms: int = WATCH_STEP_MS) -> None:
        self.path = path
        self.target = target
        self.step_ms = step_ms
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
                kept = self.target.catalog
                log.warning(
                    "content not reloaded: %s in %s; still serving the last good content "
                    "(%s)",
                    plural(len(result.problems), "problem"),
                    self.path,
                    plural(len(kept), "task"),
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

    # -- watching ------------------------------------------------------------------------------

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
        # A single bank file is watched through its folder: editors that save by replacing
        # the file would leave a watch on the file itself looking at the old one.
        one_file = self.path.is_file()
        where = self.path.parent if one_file else self.path
        log.info("watching %s for content changes", self.path)
        try:
            async for _changes in awatch(
                where,
                watch_filter=watch_filter(self.path),
                step=self.step_ms,
                stop_event=stop,
                recursive=not one_file,
            ):
                await self.reload()
        except Exception as exc:  # the folder went away, too many watches, ...: the host's
            log.warning(
                "stopped watching %s for content changes (%s: %s); reload with SIGHUP",
                self.path,
                type(exc).__name__,
                exc,
            )

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
