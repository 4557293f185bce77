"""Event-loop lag probe (QUIZBOT_LOOP_LAG_PROBE=1): how late the loop runs a due callback.

A task sleeps `interval` seconds in a loop; how much later it wakes is the lag every other
coroutine saw. Every `report_every` seconds, and once when stopped, one INFO line that
benchmarks/lag_log.py parses:

    loop-lag max_ms=3.1 p99_ms=1.2 samples=97 total_max_ms=12.4
    loop-lag final max_ms=12.4 p99_ms=1.5 samples=4210

`also` (the writer thread's load) adds a line after each periodic one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections import Counter
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

_BUCKET_MS = 0.1


class LoopLagStats:
    """Lag samples in seconds: the current window's, and a histogram of all of them."""

    def __init__(self) -> None:
        self.window: list[float] = []
        self.total_max = 0.0
        self.total_samples = 0
        self._histogram: Counter[int] = Counter()

    def add(self, lag: float) -> None:
        self.window.append(lag)
        self.total_samples += 1
        self.total_max = max(self.total_max, lag)
        self._histogram[int(lag * 1000 / _BUCKET_MS)] += 1

    def take_window(self) -> list[float]:
        window, self.window = self.window, []
        return window

    def total_p99(self) -> float:
        """Seconds; the upper edge of the histogram bucket holding the 99th percentile."""
        if not self.total_samples:
            return 0.0
        rank = math.ceil(0.99 * self.total_samples)
        seen = 0
        for bucket in sorted(self._histogram):
            seen += self._histogram[bucket]
            if seen >= rank:
                return min((bucket + 1) * _BUCKET_MS / 1000, self.total_max)
        return self.total_max


def p99(samples: list[float]) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


def _line(prefix: str, max_s: float, p99_s: float, samples: int, extra: str = "") -> str:
    return f"{prefix}max_ms={max_s * 1000:.1f} p99_ms={p99_s * 1000:.1f} samples={samples}{extra}"


Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[object]]


async def _probe(
    stats: LoopLagStats,
    interval: float,
    report_every: float,
    clock: Clock,
    sleep: Sleep,
    also: Callable[[], str] | None,
) -> None:
    next_report = clock() + report_every
    try:
        while True:
            asked = clock()
            await sleep(interval)
            now = clock()
            stats.add(max(0.0, now - asked - interval))
            if now >= next_report:
                next_report = now + report_every
                window = stats.take_window()
                log.info(
                    "loop-lag %s",
                    _line(
                        "",
                        max(window, default=0.0),
                        p99(window),
                        len(window),
                        f" total_max_ms={stats.total_max * 1000:.1f}",
                    ),
                )
                if also is not None:
                    log.info("%s", also())
    finally:
        log.info(
            "loop-lag %s",
            _line("final ", stats.total_max, stats.total_p99(), stats.total_samples),
        )


_running: asyncio.Task[None] | None = None


def start_loop_lag_probe(
    interval: float = 0.01,
    report_every: float = 1.0,
    *,
    clock: Clock | None = None,
    sleep: Sleep = asyncio.sleep,
    also: Callable[[], str] | None = None,
) -> asyncio.Task[None]:
    """Start the probe on the running loop (or return the running one); tests pass their own
    `clock` and `sleep`."""
    global _running
    loop = asyncio.get_running_loop()
    if _running is not None and not _running.done() and _running.get_loop() is loop:
        return _running
    probe = _probe(LoopLagStats(), interval, report_every, clock or loop.time, sleep, also)
    _running = loop.create_task(probe, name="quizbot-loop-lag")
    return _running


async def stop_loop_lag_probe() -> None:
    """Stop the probe; it logs its final line. A no-op when none is running."""
    task = _running
    if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
