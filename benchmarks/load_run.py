"""One load benchmark run: the bots in turn under one emulator, each measured the same way.

Every quiz bot source, then the floor, then the durable floor, `rounds` times in alternation;
a variant's rounds are pooled. Every phase is bounded in time; every subprocess is stopped
(SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from fakediscord import BotProcess, DiscordEmulator, Driver

from benchmarks.bots import BotSource, durable_floor_process, floor_process, quiz_bot_process
from benchmarks.lag_log import LagLine, parse_lag_lines, parse_writer_lines
from benchmarks.load_phases import ClickLoad, PhaseResult
from benchmarks.load_setup import ANSWERS, REVIEWS, SourceSetup, posts_needed
from benchmarks.machine import Pids, RssSampler, WithServer, loadavg

FLOOR = "floor"
DURABLE_FLOOR = "durable floor"
"""The floor bot that commits each answer to SQLite before it replies (durable_floor.py)."""
FLOORS = (FLOOR, DURABLE_FLOOR)


@dataclass
class Variant:
    name: str
    source: BotSource | None
    """The quiz bot's source tree; None for a floor (FLOOR or DURABLE_FLOOR, by name)."""


@dataclass
class Options:
    scenario: str = ANSWERS
    """ANSWERS (posts' answer buttons) or REVIEWS (/review sittings: load_setup, review_load)."""
    members: int = 200
    closed_seconds: float = 10.0
    warmup: float = 2.0
    rate: float = 300.0
    open_seconds: float = 10.0
    posts: int = 0
    seed: int = 1
    rounds: int = 1
    skip_floor: bool = False
    """No floor at all, plain or durable."""
    durable_floor: bool = True
    """The durable floor too (unless skip_floor)."""
    bot_src: list[Path] = field(default_factory=list)
    gc_log: str = ""
    """"pauses" or "types": the bots' collector pauses (see bot_process.py)."""
    profile: Path | None = None
    py_spy: Path | None = None
    workdir: Path = Path()
    databases: list[str] = field(default_factory=lambda: ["sqlite"])
    """Each quiz bot runs on each of these engines ("sqlite", "postgresql"), as a variant."""
    processes: int = 1
    """More than 1: that many processes, one shard each, on one PostgreSQL database
    (benchmarks/load_shards.py)."""
    new_database: Callable[[], str] | None = None
    """An empty PostgreSQL database's URL, for each bot on "postgresql" (load.py starts the
    server)."""
    db_server_pid: int | None = None
    """The PostgreSQL server's postmaster: its CPU is noted apart for the bots on it."""

    def measured(self, pids: int | Sequence[int], database: str) -> Pids:
        """What a phase measures the CPU of: the bot's processes, with the database server
        noted apart when the bot runs on PostgreSQL."""
        if database == "postgresql" and self.db_server_pid is not None:
            return WithServer(pids, self.db_server_pid)
        return pids

    def sources(self) -> list[BotSource]:
        return [
            *(BotSource.current(db) for db in self.databases),
            *(BotSource.other(p, db) for p in self.bot_src for db in self.databases),
        ]

    def database_url(self, source: BotSource) -> str | None:
        """A fresh database for a bot on PostgreSQL; None: a fresh SQLite file."""
        if source.database == "sqlite":
            return None
        if self.new_database is None:
            raise RuntimeError(f"{source.name}: no PostgreSQL server to run it on")
        return self.new_database()

    def variants(self) -> list[Variant]:
        found = [Variant(source.name, source) for source in self.sources()]
        found += [Variant(name, None) for name in self.floors()]
        return found

    def floors(self) -> list[str]:
        # The floors' constant reply has no task buttons to go on with: answers only.
        if self.skip_floor or self.scenario != ANSWERS:
            return []
        return list(FLOORS) if self.durable_floor else [FLOOR]

    def posts_for(self, source_index: int) -> int:
        if self.scenario == REVIEWS:
            return 0
        if self.posts:
            return self.posts
        shares = 1 + (len(self.floors()) if source_index == 0 else 0)  # floors click these too
        return posts_needed(
            runs=self.rounds * shares,
            members=self.members,
            closed_seconds=self.closed_seconds,
            warmup=self.warmup,
            rate=self.rate,
            open_seconds=self.open_seconds,
        )


@dataclass
class BotRun:
    name: str
    phases: dict[str, PhaseResult] = field(default_factory=dict)
    peak_rss: int = 0
    lag_final: LagLine | None = None
    db_server_cpu: dict[str, float] = field(default_factory=dict)
    """The PostgreSQL server's CPU seconds per phase (bots on PostgreSQL only)."""

    def merge(self, other: BotRun) -> None:
        """Pool another round of the same variant into this one."""
        self.peak_rss = max(self.peak_rss, other.peak_rss)
        if other.lag_final is not None and (
            self.lag_final is None or other.lag_final.max_ms > self.lag_final.max_ms
        ):
            self.lag_final = other.lag_final
        for key, seconds in other.db_server_cpu.items():
            self.db_server_cpu[key] = self.db_server_cpu.get(key, 0.0) + seconds
        for key, ph in other.phases.items():
            mine = self.phases.get(key)
            if mine is None:
                self.phases[key] = ph
                continue
            mine.seconds += ph.seconds
            mine.ok += ph.ok
            mine.failed += ph.failed
            mine.skipped += ph.skipped
            mine.latencies += ph.latencies
            for kind, values in ph.kinds.items():
                mine.kinds.setdefault(kind, []).extend(values)
            mine.replies.update(ph.replies)
            mine.bot_cpu += ph.bot_cpu
            mine.loadgen_cpu += ph.loadgen_cpu
            mine.lag_max_ms = _max_opt(mine.lag_max_ms, ph.lag_max_ms)
            mine.lag_typical_ms = _max_opt(mine.lag_typical_ms, ph.lag_typical_ms)
            mine.writer_busy_pct += ph.writer_busy_pct
            mine.writer_wait_max_ms = _max_opt(mine.writer_wait_max_ms, ph.writer_wait_max_ms)
            if mine.io_stall_s is not None and ph.io_stall_s is not None:
                mine.io_stall_s += ph.io_stall_s
            if mine.steal_s is not None and ph.steal_s is not None:
                mine.steal_s += ph.steal_s
            mine.dispatch_late_ms = max(mine.dispatch_late_ms, ph.dispatch_late_ms)
            mine.load_before += " · " + ph.load_before
            mine.rounds += 1

    def note_server_cpu(self, phase: str, pids: Pids) -> None:
        if isinstance(pids, WithServer):
            self.db_server_cpu[phase] = pids.server_seconds()

    def read_lag(self, log_text: str) -> None:
        """The bot's loop-lag lines: per phase, the lines logged while it ran."""
        lines = parse_lag_lines(log_text)
        writer = parse_writer_lines(log_text)
        finals = [line for line in lines if line.final]
        self.lag_final = finals[-1] if finals else None
        for phase in self.phases.values():
            start = datetime.fromtimestamp(phase.started_wall)
            end = datetime.fromtimestamp(phase.ended_wall + 1.1)
            window = [line for line in lines if not line.final and start < line.at <= end]
            if window:
                phase.lag_max_ms = max(line.max_ms for line in window)
                phase.lag_typical_ms = statistics.median(line.max_ms for line in window)
            seconds = [line for line in writer if start < line.at <= end]
            if seconds:
                phase.writer_busy_pct = [line.busy_pct for line in seconds]
                phase.writer_wait_max_ms = max(line.wait_max_ms for line in seconds)


def _max_opt(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


class GcWatch:
    """The harness's own garbage-collector pauses (they delay dispatches and callbacks)."""

    def __init__(self) -> None:
        self.max_ms = 0.0
        self.total_ms = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        ms = (time.perf_counter() - self._started) * 1000
        self.max_ms = max(self.max_ms, ms)
        self.total_ms += ms


@contextlib.contextmanager
def harness_gc_paused() -> Iterator[None]:
    """No garbage collection in the harness while a phase is measured: its pauses (hundreds
    of ms on the emulator's heap) would otherwise show up as the bot's latency. The garbage
    is collected right after the phase (a few hundred MB at most)."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


async def start_py_spy(pid: int, out: Path) -> asyncio.subprocess.Process:
    """Samples of the thread holding the GIL (the bot's bottleneck). Sampling stops the
    process briefly (ptrace): figures are worse while it runs."""
    return await asyncio.create_subprocess_exec(
        *("py-spy", "record", "--pid", str(pid), "--rate", "100", "--format", "raw"),
        *("--output", str(out), "--nonblocking", "--threads", "--gil"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


async def run_phases(run: BotRun, load: ClickLoad, pids: Any, opts: Options) -> None:
    """The closed loop, then the open loop, as `opts` asks, into `run.phases`; `pids` are the
    processes whose CPU is measured (the bots, and a database server apart)."""
    if opts.closed_seconds > 0:
        result = PhaseResult(run.name, "closed")
        with harness_gc_paused():
            await load.closed(result, pids, opts.closed_seconds, opts.warmup)
        run.phases["closed"] = result
        run.note_server_cpu("closed", pids)
        await asyncio.sleep(1.2)  # drain (live counts); a loop-lag report after the phase
    if opts.open_seconds > 0:
        result = PhaseResult(run.name, "open")
        with harness_gc_paused():
            await load.open(result, pids, opts.rate, opts.open_seconds, opts.seed)
        run.phases["open"] = result
        run.note_server_cpu("open", pids)
        await asyncio.sleep(1.2)


async def measure_bot(
    variant: Variant,
    proc: BotProcess,
    d: Driver,
    opts: Options,
    load_ready: Callable[[], Awaitable[ClickLoad]],
) -> BotRun:
    """Start the bot, run the phases on the load `load_ready()` returns, stop it."""
    run = BotRun(variant.name)
    proc.start()
    assert proc.pid is not None
    rss = RssSampler(proc.pid).start()
    spy = None
    if opts.py_spy is not None and variant.source is not None:
        slug = variant.name.replace(" ", "").replace("@", "-")
        spy = await start_py_spy(proc.pid, opts.py_spy.with_name(f"{opts.py_spy.name}.{slug}.txt"))
    try:
        await proc.wait_until_ready(d, timeout=60)
        load = await load_ready()
        database = variant.source.database if variant.source else "sqlite"
        await run_phases(run, load, opts.measured(proc.pid, database), opts)
    finally:
        rss.sample()
        await rss.stop()
        run.peak_rss = rss.peak
        code = await proc.stop(grace=10)
        if code not in (0, -15, None):
            tail = proc.log_tail()
            print(f"warning: {variant.name} exited with {code}:\n{tail}", file=sys.stderr)
        if spy is not None:  # it ends by itself with the process it samples
            try:
                await asyncio.wait_for(spy.wait(), 30)
            except TimeoutError:
                spy.kill()
                await spy.wait()
    run.read_lag(proc.log_path.read_text(errors="replace"))
    return run


def diagnostics(opts: Options, variant: Variant, round_no: int) -> list[str]:
    args = ["--gc-log", opts.gc_log] if opts.gc_log else []
    first_quiz_bot = variant.source is not None and variant.source == opts.sources()[0]
    if opts.profile is not None and first_quiz_bot and round_no == 0:
        args += ["--profile", str(opts.profile)]
    return args


async def run_benchmark(opts: Options) -> tuple[list[BotRun], dict[str, Any]]:
    info: dict[str, Any] = {"load_start": loadavg()}
    # Bounded retention keeps the harness's heap (and its GC pauses) small over a long run.
    emulator = DiscordEmulator(max_retained_interactions=20_000, ephemeral_per_user=20)
    gc_watch = GcWatch()
    gc.callbacks.append(gc_watch)
    async with emulator:
        d = emulator.driver
        guild = d.create_guild("Load")
        poster = d.add_member(guild, "poster")
        members = [d.add_member(guild, f"member{i}") for i in range(opts.members)]
        setups = [
            await SourceSetup.prepare(
                emulator,
                source,
                guild,
                opts.workdir,
                opts.posts_for(i),
                scenario=opts.scenario,
                members=members,
                database_url=opts.database_url(source),
            )
            for i, source in enumerate(opts.sources())
        ]
        by_source = {setup.source: setup for setup in setups}
        gc.collect()
        gc.freeze()  # the harness's own long-lived objects: out of every later collection

        runs: dict[str, BotRun] = {}
        for round_no in range(opts.rounds):
            for variant in opts.variants():
                log = opts.workdir / f"{variant.name.replace(' ', '')}-{round_no}.log"
                extra = diagnostics(opts, variant, round_no)
                if variant.source is not None:
                    setup = by_source[variant.source]
                    proc = quiz_bot_process(
                        emulator, variant.source, setup.env, log, diagnostics=extra
                    )
                elif variant.name == FLOOR:
                    setup = setups[0]  # a floor answers any click: the first source's posts
                    proc = floor_process(emulator, log, diagnostics=extra)
                else:
                    setup = setups[0]
                    db = opts.workdir / f"durable-floor-{round_no}.db"
                    proc = durable_floor_process(emulator, log, db, diagnostics=extra)

                async def load_ready(setup: SourceSetup = setup) -> ClickLoad:
                    return await setup.ensure_load(emulator, guild, poster, members)

                print(f"round {round_no + 1}: {variant.name} (load {loadavg()})", flush=True)
                run = await measure_bot(variant, proc, d, opts, load_ready)
                if variant.name in runs:
                    runs[variant.name].merge(run)
                else:
                    runs[variant.name] = run
        info["posts"] = {s.source.name: len(getattr(s.load, "posts", ())) for s in setups}
        info["posting_seconds"] = sum(s.posting_seconds for s in setups)
        info["wrapped"] = sum(s.load.wrapped for s in setups if s.load)
        info["late_callbacks"] = d.late_callbacks
        info["unknown_routes"] = [str(r) for r in emulator.unknown_routes]
    gc.callbacks.remove(gc_watch)
    info["harness_gc"] = gc_watch
    info["load_end"] = loadavg()
    return list(runs.values()), info
