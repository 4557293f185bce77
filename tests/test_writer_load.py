"""The writer thread's load: how busy it was and how long work queued for it, per window,
as the loop-lag probe logs it beside the loop's lag."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bot.quiz.tasks import Catalog
from bot.service import QuizService, WriterLoad
from bot.store import Store, make_engine


class Ticks:
    """A clock that reads the next of the given times at each call."""

    def __init__(self, *times: float) -> None:
        self._times: Iterator[float] = iter(times)

    def __call__(self) -> float:
        return next(self._times)


def test_a_window_counts_the_units_their_running_time_and_the_longest_wait() -> None:
    #                window  1st unit: start, end  2nd: start, end  take
    load = WriterLoad(Ticks(0.000, 0.004, 0.007, 0.007, 0.008, 0.010))
    assert load.timed(lambda: "first", submitted=0.002) == "first"  # waited 2 ms, ran 3 ms
    load.timed(lambda: None, submitted=0.007)  # no wait, ran 1 ms
    window = load.take()
    assert (window.units, window.seconds) == (2, pytest.approx(0.010))
    assert window.describe() == "writer busy_pct=40 units=2 wait_max_ms=2.0"


def test_a_failed_unit_still_counts_and_take_starts_a_new_window() -> None:
    load = WriterLoad(Ticks(0.0, 0.1, 0.6, 1.0, 2.0))

    def refused() -> None:
        raise RuntimeError("refused")

    with pytest.raises(RuntimeError, match="refused"):
        load.timed(refused, submitted=0.1)
    assert load.take().describe() == "writer busy_pct=50 units=1 wait_max_ms=0.0"
    assert load.take().describe() == "writer busy_pct=0 units=0 wait_max_ms=0.0"


async def test_the_services_writes_run_through_the_writer_load() -> None:
    store = Store(make_engine("sqlite://"))
    service = QuizService(Catalog.of([]), store)
    try:
        await service.start()
        service.writer_load.take()  # the start's own writes
        changes = (service.update_guild_config(7, cooldown_seconds=n) for n in range(3))
        await asyncio.gather(*changes)
        window = service.writer_load.take()
        assert window.units == 3 and window.busy > 0
    finally:
        await service.close()
        store.engine.dispose()
