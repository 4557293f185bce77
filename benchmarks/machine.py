"""What the benchmarks note about the machine and measure of a process: CPU, RSS, load."""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import platform
from collections.abc import Sequence
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


IO_PRESSURE = Path("/proc/pressure/io")


def io_stall_seconds(source: Path = IO_PRESSURE) -> float | None:
    """Seconds, since boot, that some task of the machine waited for I/O (Linux's pressure
    stall information, "some" line); None where the kernel does not report it. A phase's
    share of it tells whether the disk stalled while the phase ran: at SQLITE_SYNCHRONOUS
    =FULL every commit waits for the disk, so the bot's own commits count in it too."""
    try:
        text = source.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        kind, _, fields = line.partition(" ")
        if kind == "some":
            values = dict(field.split("=", 1) for field in fields.split())
            return int(values["total"]) / 1e6
    return None


def cpu_steal_seconds() -> float | None:
    """CPU seconds, summed over the cores since boot, that the hypervisor gave to other
    machines while this one wanted to run (None where the kernel does not say): a phase with
    much of it ran on a slower machine than the rest."""
    return getattr(psutil.cpu_times(), "steal", None)


def server_cpu_seconds(pid: int) -> float:
    """CPU of a server process and all its children so far, live or exited (PostgreSQL's
    postmaster reaps its backends, so theirs is in its `children_*` times); 0 once gone."""
    total = 0.0
    with contextlib.suppress(psutil.Error):
        root = psutil.Process(pid)
        t = root.cpu_times()
        total = t.user + t.system + t.children_user + t.children_system
        for child in root.children(recursive=True):
            with contextlib.suppress(psutil.Error):
                c = child.cpu_times()
                total += c.user + c.system
    return total


class WithServer:
    """The bot's processes, measured as `cpu_seconds` measures them, while noting the
    database server's CPU at each reading: `server_seconds()` is the server's CPU between
    the last two readings (the phase the bot was measured over)."""

    def __init__(self, bot: int | Sequence[int], server_pid: int) -> None:
        self.bot = bot
        self.server_pid = server_pid
        self.marks: list[float] = []

    def read(self) -> float:
        self.marks.append(server_cpu_seconds(self.server_pid))
        return cpu_seconds(self.bot)

    def server_seconds(self) -> float:
        return self.marks[-1] - self.marks[-2] if len(self.marks) >= 2 else 0.0


Pids = int | Sequence[int] | WithServer
"""A process, several measured as one (a bot in several shard processes), or either with its
database server (noted apart)."""


def cpu_seconds(pid: Pids) -> float:
    """User plus system CPU of a process (or the sum over several) so far; 0 once gone."""
    if isinstance(pid, WithServer):
        return pid.read()
    if not isinstance(pid, int):
        return sum(cpu_seconds(one) for one in pid)
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
