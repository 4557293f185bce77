"""The event-loop lag probe: a callback that blocks the loop shows up as lag, in the log line."""

from __future__ import annotations

import asyncio
import logging
import re
import time

import pytest

from bot.discord_ui import loop_lag

LINE = re.compile(r"loop-lag (final )?max_ms=([0-9.]+) p99_ms=([0-9.]+) samples=(\d+)")


def parsed(caplog: pytest.LogCaptureFixture) -> list[tuple[bool, float, float, int]]:
    found = []
    for record in caplog.records:
        if record.name == loop_lag.__name__ and (m := LINE.search(record.getMessage())):
            found.append((bool(m[1]), float(m[2]), float(m[3]), int(m[4])))
    return found


async def test_a_blocking_callback_shows_up_as_lag(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    task = loop_lag.start_loop_lag_probe(interval=0.005, report_every=0.2)
    try:
        await asyncio.sleep(0.05)  # a few quiet samples first
        asyncio.get_running_loop().call_soon(time.sleep, 0.15)  # blocks the loop for 150 ms
        await asyncio.sleep(0.4)  # at least one periodic report after the block
    finally:
        await loop_lag.stop_loop_lag_probe()
    assert task.done()

    lines = parsed(caplog)
    periodic = [line for line in lines if not line[0]]
    final = [line for line in lines if line[0]]
    assert periodic, "no periodic loop-lag line"
    assert len(final) == 1, "exactly one final line at stop"
    # The 150 ms block delays the probe's wake-up by at least ~145 ms (one interval may
    # already have elapsed when the block starts).
    assert max(line[1] for line in periodic) >= 140
    _, final_max, final_p99, samples = final[0]
    assert final_max >= 140
    assert samples > 10
    assert final_p99 <= final_max
    stats = loop_lag.probe_stats()
    assert stats is not None and stats.total_max >= 0.14


async def test_quiet_loop_has_little_lag(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    loop_lag.start_loop_lag_probe(interval=0.005, report_every=10)
    await asyncio.sleep(0.2)
    await loop_lag.stop_loop_lag_probe()
    ((is_final, max_ms, _p99, samples),) = parsed(caplog)
    assert is_final and samples > 5
    # Generous: the test machine may be busy, but nothing here blocks for 100 ms.
    assert max_ms < 100


async def test_start_is_idempotent_and_stop_without_probe_is_a_no_op() -> None:
    first = loop_lag.start_loop_lag_probe()
    assert loop_lag.start_loop_lag_probe() is first
    await loop_lag.stop_loop_lag_probe()
    await loop_lag.stop_loop_lag_probe()
    assert first.done()


def test_p99_of_samples() -> None:
    assert loop_lag.p99([]) == 0.0
    samples = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    assert loop_lag.p99(samples) == pytest.approx(0.099)
    stats = loop_lag.LoopLagStats()
    for s in samples:
        stats.add(s)
    assert stats.total_p99() == pytest.approx(0.099, abs=0.0002)
    assert stats.total_max == pytest.approx(0.1)
