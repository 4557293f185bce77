"""How busy the store's one writer thread is, and how long work waited for it.

Every write unit of work (the answers' group commits, a Next, a post) runs in the service's
single writer thread, one after another. Under a burst of clicks that thread, not the event
loop, is what members wait for: its units take about twice their CPU time in wall time,
because each call into the database driver lets the event loop's thread take the interpreter
lock back (BENCHMARKS.md, "where a /review click waits"). The loop-lag probe logs a window of
these figures every second, beside the loop's lag:

    writer busy_pct=73 units=171 wait_max_ms=64.0

`busy_pct` is the share of the window the thread spent running units (wall time, waits for
the lock included; a unit counts in the window it ends in), `wait_max_ms` the longest any
unit queued before it started (a group commit: since its first answer or unit was queued, so
its window and any group still committing ahead of it count).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WriterWindow:
    seconds: float
    units: int
    busy: float
    """Seconds spent running units."""
    wait_max: float
    """Seconds the longest-queued unit waited to start."""

    def describe(self) -> str:
        busy_pct = 100 * self.busy / self.seconds if self.seconds > 0 else 0.0
        return (
            f"writer busy_pct={busy_pct:.0f} units={self.units} "
            f"wait_max_ms={self.wait_max * 1000:.1f}"
        )


class WriterLoad:
    """Counters the writer thread adds to (`timed`) and the probe takes a window of (`take`)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._since = clock()
        self._units = 0
        self._busy = 0.0
        self._wait_max = 0.0

    def timed(self, work: Callable[[], T], submitted: float) -> T:
        """Run `work` (in the writer thread), counting it; `submitted` is when it was queued
        (`clock()` on the event loop)."""
        started = self.clock()
        try:
            return work()
        finally:
            ran = self.clock() - started
            with self._lock:
                self._units += 1
                self._busy += ran
                self._wait_max = max(self._wait_max, started - submitted)

    def take(self) -> WriterWindow:
        """The window since the last `take`, and a new one begun."""
        now = self.clock()
        with self._lock:
            window = WriterWindow(now - self._since, self._units, self._busy, self._wait_max)
            self._since, self._units, self._busy, self._wait_max = now, 0, 0.0, 0.0
        return window
