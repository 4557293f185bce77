"""Closed-loop click rate of the floor bot (or the null bot) through fakediscord.

N concurrent "users" each click a button, await the bot's callback, and click again, for a
fixed time. Emulator and load generator share this process; the bot runs in another one.

    python -m benchmarks.fakediscord_click_rate --clickers 200 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from fakediscord import BotProcess, DiscordEmulator

from benchmarks.bots import REPO_ROOT

BUTTON_ROW = [
    {"type": 1, "components": [{"type": 2, "style": 1, "label": "Go", "custom_id": "go"}]}
]


@dataclass
class Tally:
    ok: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)


BOTS = {"floor": "fakediscord.floor_bot", "null": "benchmarks.fakediscord_null_bot"}


async def run(clickers: int, seconds: float, warmup: float, log_dir: Path, bot_module: str) -> None:
    async with DiscordEmulator() as emulator:
        d = emulator.driver
        guild = d.create_guild("Load")
        channel = d.create_text_channel(guild, "load")
        users = [d.add_member(guild, f"user{i}") for i in range(clickers)]
        panel = d.add_bot_message(channel, "click me", components=BUTTON_ROW)
        # From the repository root, where `python -m benchmarks.…` finds the null bot.
        bot = BotProcess.for_emulator(
            emulator, bot_module, log_path=log_dir / "bot.log", cwd=REPO_ROOT
        ).start()
        try:
            await bot.wait_until_ready(d, timeout=30)
            measuring = False
            tally = Tally()
            stop_at = time.monotonic() + warmup + seconds

            async def clicker(i: int) -> None:
                user = users[i]
                while time.monotonic() < stop_at:
                    ix = d.click_button(panel, "go", user=user)
                    try:
                        await ix.wait_response(timeout=10)
                    except TimeoutError:
                        if measuring:
                            tally.failed += 1
                        continue
                    if measuring:
                        tally.ok += 1
                        tally.latencies.append(ix.latency or 0.0)

            me, child = psutil.Process(), psutil.Process(bot.pid)
            tasks = [asyncio.create_task(clicker(i)) for i in range(clickers)]
            await asyncio.sleep(warmup)
            measuring = True
            cpu0 = (me.cpu_times(), child.cpu_times())
            t0 = time.monotonic()
            await asyncio.sleep(seconds)
            measuring = False
            elapsed = time.monotonic() - t0
            cpu1 = (me.cpu_times(), child.cpu_times())
            await asyncio.gather(*tasks)
        finally:
            await bot.stop()
        lat = sorted(tally.latencies) or [0.0]

        def pct(p: float) -> float:
            return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000

        def cpu_seconds(i: int) -> float:
            before, after = cpu0[i], cpu1[i]
            return (after.user - before.user) + (after.system - before.system)

        ok = max(tally.ok, 1)
        emu_us, bot_us = (cpu_seconds(i) / ok * 1e6 for i in (0, 1))
        print(f"bot={bot_module} clickers={clickers} measured={elapsed:.1f}s")
        print(f"clicks/s={tally.ok / elapsed:.0f} ok={tally.ok} failed={tally.failed}")
        print(
            f"latency ms: p50={pct(0.5):.1f} p95={pct(0.95):.1f} p99={pct(0.99):.1f} "
            f"mean={statistics.fmean(lat) * 1000:.1f}"
        )
        print(
            f"cpu%: emulator+loadgen={100 * cpu_seconds(0) / elapsed:.0f} "
            f"bot={100 * cpu_seconds(1) / elapsed:.0f}"
        )
        # Per-click CPU is what survives a noisy machine: each process alone on a free core
        # could not go faster than 1 / (its CPU per click).
        print(
            f"cpu per click: emulator+loadgen={emu_us:.0f}us bot={bot_us:.0f}us "
            f"-> ceiling on two free cores ~{1e6 / max(emu_us, bot_us):.0f} clicks/s"
        )
        print(f"late callbacks={d.late_callbacks} unknown routes={len(emulator.unknown_routes)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clickers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--bot", choices=sorted(BOTS), default="floor", help="null = raw client, emulator cost only"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fakediscord-bench-") as tmp:
        asyncio.run(run(args.clickers, args.seconds, args.warmup, Path(tmp), BOTS[args.bot]))


if __name__ == "__main__":
    main()
