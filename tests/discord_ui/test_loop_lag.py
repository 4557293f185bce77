"""The event-loop lag probe: how late a sleep wakes up is the lag, reported in the log line.

The probe measures with a scripted clock: each sleep wakes `interval` plus a given lag later,
so the figures in the lines are exact.
"""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from bot.discord_ui import loop_lag

LINE = re.compile(
    r"loop-lag (final )?max_ms=([0-9.]+) p99_ms=([0-9.]+) samples=(\d+)"
    r"(?: total_max_ms=([0-9.]+))?"
)


class ScriptedLoop:
    """A clock and a sleep: the n-th sleep wakes `lags[n]` seconds late; after the script the
    probe sleeps until it is stopped."""

    def __init__(self, lags: list[float]) -> None:
        self.now = 1000.0
        self._lags = list(lags)
        self.done = asyncio.Event()

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if not self._lags:
            self.done.set()
            await asyncio.Future()  # until cancelled
        self.now += seconds + self._lags.pop(0)
        await asyncio.sleep(0)


async def probe_lines(
    caplog: pytest.LogCaptureFixture, lags: list[float], *, interval: float, report_every: float
) -> list[tuple[bool, float, float, int, float | None]]:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    script = ScriptedLoop(lags)
    task = loop_lag.start_loop_lag_probe(
        interval, report_every, clock=script.clock, sleep=script.sleep
    )
    try:
        await asyncio.wait_for(script.done.wait(), 5)
    finally:
        await loop_lag.stop_loop_lag_probe()
    assert task.done()
    found = []
    for record in caplog.records:
        if record.name == loop_lag.__name__ and (m := LINE.search(record.getMessage())):
            total = float(m[5]) if m[5] else None
            found.append((bool(m[1]), float(m[2]), float(m[3]), int(m[4]), total))
    return found


async def test_a_late_wake_up_shows_up_as_lag(caplog: pytest.LogCaptureFixture) -> None:
    # 10 ms sleeps, reports every 95 ms; the sixth wake-up is 150 ms late (a blocked loop).
    lags = [0.0] * 5 + [0.150] + [0.0] * 10
    lines = await probe_lines(caplog, lags, interval=0.01, report_every=0.095)
    periodic = [line for line in lines if not line[0]]
    final = [line for line in lines if line[0]]
    assert periodic == [
        (False, 150.0, 150.0, 6, 150.0),  # the window with the block
        (False, 0.0, 0.0, 10, 150.0),  # a quiet window; the maximum since the start stays
    ]
    assert final == [(True, 150.0, 150.0, 16, None)]  # exactly one, at stop


async def test_each_periodic_line_is_followed_by_the_writers(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    script = ScriptedLoop([0.0] * 20)
    windows = iter(range(1, 10))
    loop_lag.start_loop_lag_probe(
        0.01, 0.095, clock=script.clock, sleep=script.sleep, also=lambda: f"writer {next(windows)}"
    )
    try:
        await asyncio.wait_for(script.done.wait(), 5)
    finally:
        await loop_lag.stop_loop_lag_probe()
    said = [r.getMessage() for r in caplog.records if r.name == loop_lag.__name__]
    kinds = ["final" if "final" in m else "lag" if "loop-lag" in m else m for m in said]
    assert kinds == ["lag", "writer 1", "lag", "writer 2", "final"]


async def test_a_quiet_loop_has_no_lag(caplog: pytest.LogCaptureFixture) -> None:
    lines = await probe_lines(caplog, [0.0] * 50, interval=0.01, report_every=10)
    assert lines == [(True, 0.0, 0.0, 50, None)]


async def test_the_final_p99_ignores_a_rare_spike(caplog: pytest.LogCaptureFixture) -> None:
    lags = [0.001] * 199 + [0.080]
    ((is_final, max_ms, p99_ms, samples, _),) = await probe_lines(
        caplog, lags, interval=0.01, report_every=100
    )
    assert (is_final, max_ms, samples) == (True, 80.0, 200)
    assert p99_ms == pytest.approx(1.0, abs=0.11)  # one histogram bucket


async def test_the_real_probe_runs_on_the_loop_and_logs_at_stop(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=loop_lag.__name__)
    first = loop_lag.start_loop_lag_probe(interval=0.001)
    assert loop_lag.start_loop_lag_probe() is first  # idempotent
    await asyncio.sleep(0.01)
    await loop_lag.stop_loop_lag_probe()
    await loop_lag.stop_loop_lag_probe()  # a no-op once stopped
    assert first.done()
    finals = [r for r in caplog.records if "loop-lag final" in r.getMessage()]
    assert len(finals) == 1


def test_p99_of_samples() -> None:
    assert loop_lag.p99([]) == 0.0
    samples = [i / 1000 for i in range(1, 101)]  # 1..100 ms
    assert loop_lag.p99(samples) == pytest.approx(0.099)
    stats = loop_lag.LoopLagStats()
    for s in samples:
        stats.add(s)
    assert stats.total_p99() == pytest.approx(0.099, abs=0.0002)
    assert stats.total_max == pytest.approx(0.1)
