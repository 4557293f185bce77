"""How long the disk takes to make a write durable: the wait every commit at SQLITE_SYNCHRONOUS
=FULL adds, and what its rare stalls do to the click latency's tail.

    python -m benchmarks.fsync [--seconds 20] [--rate N] [--dir PATH] [--markdown FILE]

It appends 16 KiB (about a commit's WAL frames) to a file and fsyncs it, again and again for
`--seconds`, one writer (as the bot's one writer thread), and prints the distribution and the
stalls. A stall of the disk stalls the writer thread, so every answer and Next queued behind
it: at 300 clicks/s a 100 ms stall delays about 30-45 clicks, 1-1.5 % of a 10-second run,
enough to put that run's p99 above 50 ms (BENCHMARKS.md, "where a /review click waits").

The file must be on the disk the bot would use: `--dir` defaults to a temporary folder in the
working directory, because /tmp is often a tmpfs, where an fsync costs nothing.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from benchmarks.machine import loadavg, machine_info, pct

CHUNK = 16 * 1024
WRAP = 1000
"""Appends before the file starts over (as the WAL does after a checkpoint)."""
STALLS_MS = (20, 50, 100)


def measure(directory: Path, seconds: float, rate: float | None = None) -> list[float]:
    """Each fsync's duration in seconds. `rate`: at most this many a second (the bot's pace,
    100-300 commits a second at 300 clicks/s), else as fast as the disk allows."""
    durations: list[float] = []
    gap = 1 / rate if rate else 0.0
    due = time.monotonic()
    path = directory / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        chunk = b"x" * CHUNK
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if len(durations) % WRAP == 0:
                os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, chunk)
            start = time.perf_counter()
            os.fsync(fd)
            durations.append(time.perf_counter() - start)
            if gap:
                due += gap
                time.sleep(max(due - time.monotonic(), 0))
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    return durations


def report(durations: list[float], seconds: float) -> str:
    ordered = sorted(durations)
    ms = [pct(ordered, p) * 1000 for p in (0.5, 0.99, 0.999)]
    stalls = ", ".join(
        f"{sum(d * 1000 > limit for d in durations)} over {limit} ms" for limit in STALLS_MS
    )
    return "\n".join(
        [
            f"machine: {machine_info()} load average {loadavg()}",
            "| fsyncs | seconds | p50 ms | p99 ms | p99.9 ms | max ms | stalls |",
            "|---:|---:|---:|---:|---:|---:|---|",
            f"| {len(durations)} | {seconds:.0f} | {ms[0]:.2f} | {ms[1]:.2f} | {ms[2]:.2f} "
            f"| {ordered[-1] * 1000:.1f} | {stalls} |",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--dir", type=Path, help="where the probe file goes (the bot's disk)")
    parser.add_argument("--markdown", type=Path, help="also write the report to this file")
    parser.add_argument(
        "--rate", type=float, help="fsyncs a second at most (default: as fast as possible)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir or Path.cwd(), prefix="fsync-") as tmp:
        durations = measure(Path(tmp), args.seconds, args.rate)
    text = report(durations, args.seconds)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")


if __name__ == "__main__":
    main()
