"""What the benchmarks note about the machine and measure of a process: CPU, RSS, load."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import platform
from datetime import datetime
from pathlib import Path

import psutil


def machine_info() -> dict[str, str]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cores": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "date": datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
    }


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def cpu_seconds(pid: int) -> float:
    """User plus system CPU of a process so far; 0 once it is gone."""
    with contextlib.suppress(psutil.Error):
        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    return 0.0


def pct(sorted_values: list[float], p: float) -> float:
    """The p-quantile (nearest rank) of already sorted values; NaN for none."""
    if not sorted_values:
        return math.nan
    return sorted_values[min(len(sorted_values) - 1, math.ceil(p * len(sorted_values)) - 1)]


class RssSampler:
    """Peak resident set size of one process, sampled in the background."""

    def __init__(self, pid: int, every: float = 0.05) -> None:
        self._proc = psutil.Process(pid)
        self.every = every
        self.peak = 0
        self.last = 0
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> int:
        with contextlib.suppress(psutil.Error):
            self.last = self._proc.memory_info().rss
            self.peak = max(self.peak, self.last)
        return self.last

    def start(self) -> RssSampler:
        async def run() -> None:
            while True:
                self.sample()
                await asyncio.sleep(self.every)

        self._task = asyncio.create_task(run())
        return self

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
