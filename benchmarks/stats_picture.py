"""The /stats picture's rendering time, with a full year of a busy member's data.

    python -m benchmarks.stats_picture              # 200 renders
    python -m benchmarks.stats_picture --runs 500 --out /tmp/stats.png

The member answered on most days of the last 365 (0 to 15 answers a day) in 20 topics, some
with reviews due: more than the picture shows (12 weeks, 6 topics), so the time includes
skipping the rest. Each run is `stats_picture.render` from the data to the PNG bytes (drawing
at 2x and encoding), as the cog runs it in a thread. Reported: median, p95 and max in ms,
against the budget of 50 ms, and the PNG's size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import date, timedelta
from pathlib import Path

from bot.clock import week_start
from bot.progress import MemberProgress, TopicProgress
from bot.stats_picture import render

BUDGET_MS = 50.0


def a_year_of_data(today: date, seed: int = 11) -> MemberProgress:
    rng = random.Random(seed)
    first_day = today - timedelta(days=364)
    per_day = tuple(rng.choice((0, 0, 1, 2, 3, 4, 5, 7, 9, 12, 15)) for _ in range(365))
    topics = []
    for i in range(20):
        tried = rng.randint(1, 80)
        topics.append(
            TopicProgress(f"Topic {i} with a long name", tried, rng.randint(0, tried), i % 4)
        )
    topics.sort(key=lambda t: -t.tried)
    return MemberProgress(first_day, today, per_day, tuple(topics))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--out", type=Path, help="also write the last PNG here")
    args = parser.parse_args()

    today = date(2026, 12, 9)
    assert week_start(today) != today  # a mid-week day: the last column is partly empty
    progress = a_year_of_data(today)
    render(progress)  # warm-up: imports, the font, the PNG encoder
    times = []
    png = b""
    for _ in range(args.runs):
        start = time.perf_counter()
        png = render(progress)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    median = statistics.median(times)
    verdict = "within" if p95 < BUDGET_MS else "OVER"
    print(
        f"stats picture, a year of data, {args.runs} renders: median {median:.1f} ms, "
        f"p95 {p95:.1f} ms, max {times[-1]:.1f} ms ({verdict} the {BUDGET_MS:.0f} ms budget); "
        f"PNG {len(png) / 1024:.0f} KiB"
    )
    if args.out:
        args.out.write_bytes(png)


if __name__ == "__main__":
    main()
