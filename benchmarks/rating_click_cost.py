"""What the Elo rating update adds to a whole answer click's CPU (issue 31: under 10%).

    python -m benchmarks.rating_click_cost [--rounds 20] [--clicks 50] [--tasks 40]

The click goes through the whole stack in this process, as in benchmarks/trace_click.py: a raw
interaction through discord.py's real ConnectionState, the bot's dispatch, the service's group
commit and the store on an SQLite file (WAL, `synchronous=FULL`), the reply rendered and sent
to the fake Discord below discord.py's HTTP layer. Each click is a member's first try at a task
(each member meets each task once, in a shuffled order). The post's footer redraw, which a
click starts at most once every 5 s, is left out. Two modes, interleaved round by round (the
first alternating): `with` is the code as it is; `without` skips the rating
(`answers._rates` answers False: no rating rows in the progress read, no first try rated: the
path as before issue 31, plus a call an answer). CPU is
the process's (`time.process_time`: the event loop's thread and the writer's). Prints each
mode's median µs per click over the rounds and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.machine import loadavg, machine_info


async def measure(rounds: int, clicks: int, tasks: int) -> dict[str, list[float]]:
    import pytest  # its MonkeyPatch installs the fake Discord, as the tests do

    from bot.discord_ui.client import QuizBot
    from bot.quiz.tasks import Catalog
    from bot.service import QuizService
    from bot.store import Store, answers, make_engine
    from tests.discord_ui.conftest import TOKEN, Driver, choice_task, settings
    from tests.discord_ui.fakes import FakeDiscordHTTP, Member

    catalog = [dataclasses.replace(choice_task(), id=f"t{n}") for n in range(tasks)]
    needed = (2 * rounds + 1) * clicks
    members = -(-needed // tasks)
    pairs = [(m, t) for m in range(members) for t in range(tasks)]
    random.Random(31).shuffle(pairs)
    fresh = iter(pairs)
    real = answers._rates
    per_mode: dict[str, list[float]] = {"with": [], "without": []}
    with (
        tempfile.TemporaryDirectory(prefix="quizbot-rating-") as tmp,
        pytest.MonkeyPatch.context() as monkeypatch,
    ):
        fake = FakeDiscordHTTP()
        fake.install(monkeypatch)
        db = Path(tmp) / "quiz.db"
        service = QuizService(Catalog.of(catalog), Store(make_engine(f"sqlite:///{db}")))
        bot = QuizBot(settings(db), service, run_scheduler=False)
        await bot.login(TOKEN)
        try:
            driver = Driver(bot, fake)
            posts: list[dict[str, Any]] = [await driver.post(task.id) for task in catalog]
            monkeypatch.setattr(bot.live_counts, "bump", lambda post_id: None)

            async def run(count: int) -> float:
                """µs of the process's CPU per click, over `count` first tries."""
                spent = 0.0
                for _ in range(count):
                    member, task = next(fresh)
                    who = Member(10_000 + member, f"m{member}")
                    option = "B" if (member + task) % 3 else "A"  # the answer is B
                    fake.clear()
                    t0 = time.process_time()
                    await driver.click(posts[task], rf"quiz:ans:\d+:{option}", member=who)
                    spent += time.process_time() - t0
                return spent / count * 1e6

            await run(clicks)  # warm-up: statements built, caches filled
            for round_no in range(rounds):
                order = ("with", "without") if round_no % 2 == 0 else ("without", "with")
                for mode in order:
                    check = real if mode == "with" else (lambda _: False)
                    monkeypatch.setattr(answers, "_rates", check)
                    per_mode[mode].append(await run(clicks))
            monkeypatch.setattr(answers, "_rates", real)
        finally:
            await bot.close()
    return per_mode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clicks", type=int, default=50, help="clicks per mode and round")
    parser.add_argument("--tasks", type=int, default=40)
    args = parser.parse_args(argv)
    print(machine_info())
    per_mode = asyncio.run(measure(args.rounds, args.clicks, args.tasks))
    print(f"load {loadavg()}; {args.rounds} rounds × {args.clicks} clicks per mode")
    for mode, values in per_mode.items():
        print(
            f"{mode:>8}: median {statistics.median(values):,.0f} µs per click"
            f" (rounds: {min(values):,.0f}–{max(values):,.0f})"
        )
    base, rated = (statistics.median(per_mode[m]) for m in ("without", "with"))
    ratios = [w / wo for w, wo in zip(per_mode["with"], per_mode["without"], strict=True)]
    print(
        f"rating added {rated - base:+,.0f} µs per click: {rated / base:.3f}× the click's CPU"
        f" (round ratios {min(ratios):.3f}–{max(ratios):.3f},"
        f" median {statistics.median(ratios):.3f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
