"""Load benchmark: the real bot answering button clicks, against the floor bot, same emulator.

    python -m benchmarks.load                      # defaults: 200 members, 10 s each phase
    python -m benchmarks.load --members 200 --closed-seconds 10 --rate 300 --open-seconds 10
    python -m benchmarks.load --markdown results.md   # also write the results table there

What one run does:

1. Starts fakediscord in this process, with a guild, a channel and N members.
2. Starts the bot (`python -m bot run`, through a thin launcher, see `--child-bot` below) as a
   subprocess: a fresh SQLite file in a temp dir, the shipped content/, LOG_LEVEL=INFO and
   QUIZBOT_LOOP_LAG_PROBE=1. Registers the slash commands with `python -m bot sync --guild`,
   sets the channel's posting cooldown to 0 and posts `--posts` quizzes of task
   mlops-parallelism-mc-1 (answer A) with /quiz.
3. Closed loop: N members click concurrently; each clicks again as soon as its previous
   answer came back. A member answers B, C, then A on a post (3 graded attempts: wrong,
   wrong, right) and moves on to the next post. Measured after a warm-up.
4. Open loop: Poisson arrivals at `--rate` answers/s for `--open-seconds`, spread over the
   members (a member with an answer in flight is skipped), same click sequence.
5. Stops the bot (SIGTERM), starts benchmarks/floor_bot.py (bare discord.py, a constant
   ephemeral reply) under the same emulator, and repeats 3 and 4 on the same posts.

Reported per bot and phase: answers/s, latency p50/p95/p99 (INTERACTION_CREATE dispatched ->
callback received, as fakediscord's InteractionRecord.latency), CPU per answer of the bot
process, the bot's peak RSS (psutil, sampled every 50 ms), and for the quiz bot the maximum
event-loop lag (parsed from bot.discord_ui.loop_lag's log lines) and how the answers were
graded. Then the ratios to the floor. Each phase is bounded; every subprocess is stopped at
the end (SIGTERM, then SIGKILL).

`--child-bot` is the launcher the benchmark runs the bot with: `bot.cli.main(["run"])`, plus
the loop-lag probe started from setup_hook when QUIZBOT_LOOP_LAG_PROBE is set (a no-op if the
bot already starts it) and, with QUIZBOT_BENCH_PROFILE=<file>, cProfile around the whole run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import psutil

from tests.e2e.fakediscord import FakeDiscord
from tests.e2e.fakediscord.driver import Driver
from tests.e2e.fakediscord.interactions import InteractionRecord
from tests.e2e.fakediscord.process import REPO_ROOT, BotProcess
from tests.e2e.fakediscord.state import Channel, Member, Message

TASK_ID = "mlops-parallelism-mc-1"
CLICKS = ("B", "C", "A")  # wrong, wrong, right: three graded attempts per post
QUIZ_BOT = "bot"

# The launcher both bots run under: `python -c LAUNCHER` with QUIZBOT_BENCH_CHILD=bot|floor.
# A -c snippet rather than a module of this package, so the bot process imports nothing of the
# benchmark (its RSS is the bot's own). For the quiz bot it is `quizbot run` plus the loop-lag
# probe started from setup_hook (a no-op when the bot already starts it itself) and, with
# QUIZBOT_BENCH_PROFILE=<file>, cProfile around the run; for the floor it is
# benchmarks/floor_bot.py with the same probe.
LAUNCHER = """
import asyncio, logging, os, sys
from bot.discord_ui import loop_lag

def with_probe(cls):
    setup_hook, close = cls.setup_hook, cls.close
    async def setup_with_probe(self):
        await setup_hook(self)
        loop_lag.start_loop_lag_probe()
        if os.environ.get("QUIZBOT_BENCH_GC_FREEZE") and os.environ["QUIZBOT_BENCH_CHILD"] == "bot":
            import gc
            gc.freeze()
            if threshold := os.environ["QUIZBOT_BENCH_GC_FREEZE"].partition(":")[2]:
                gc.set_threshold(*map(int, threshold.split(",")))
    async def close_with_probe(self):
        await loop_lag.stop_loop_lag_probe()
        await close(self)
    cls.setup_hook, cls.close = setup_with_probe, close_with_probe

if os.environ.get("QUIZBOT_BENCH_GC_LOG"):
    import gc, time
    gc_log, gc_started = logging.getLogger("benchmarks.gc"), [0.0]
    def on_gc(phase, info):
        if phase == "start":
            gc_started[0] = time.perf_counter()
        elif (ms := (time.perf_counter() - gc_started[0]) * 1000) >= 5:
            gc_log.warning("gc-pause gen=%d ms=%.1f collected=%d", info["generation"], ms,
                           info["collected"])
    gc.callbacks.append(on_gc)
    if os.environ.get("QUIZBOT_BENCH_GC_LOG") == "types":
        # Keep what the collector frees, and name the commonest types at exit: what makes the
        # cyclic garbage. Memory grows for the whole run: for short diagnostic runs only.
        import atexit, collections
        gc.set_debug(gc.DEBUG_SAVEALL)
        def garbage_types():
            gc.collect()
            counts = collections.Counter(type(o).__qualname__ for o in gc.garbage)
            print("gc-garbage", len(gc.garbage), counts.most_common(40), file=sys.stderr)
        atexit.register(garbage_types)

if os.environ["QUIZBOT_BENCH_CHILD"] == "floor":
    import discord
    from benchmarks import floor_bot
    with_probe(floor_bot.FloorBot)
    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(floor_bot.main())
    sys.exit(0)

from bot.cli import main
from bot.discord_ui.client import QuizBot
from bot.settings import Settings
if window := os.environ.get("QUIZBOT_BENCH_BATCH_WINDOW"):
    from bot.service import QuizService
    QuizService.__init__.__kwdefaults__["batch_window"] = float(window)
if Settings().loop_lag_probe:
    with_probe(QuizBot)
profile_to = os.environ.get("QUIZBOT_BENCH_PROFILE")
if not profile_to:
    sys.exit(main(["run"]))
import cProfile
profiler = cProfile.Profile()
try:
    code = profiler.runcall(main, ["run"])
finally:
    profiler.dump_stats(profile_to)
sys.exit(code)
"""
ANSI = re.compile(r"\x1b\[[0-9;]*m")
"""discord.utils.setup_logging (the floor bot's) colours its output whenever it can."""
LAG_LINE = re.compile(
    r"^\[?(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)(?:,(?P<ms>\d{3}))? .*loop-lag (?P<final>final )?"
    r"max_ms=(?P<max>[0-9.]+) p99_ms=(?P<p99>[0-9.]+) samples=(?P<n>\d+)"
)


# ---------------------------------------------------------------------------------------------
# Shared pieces (startup.py uses them too)
# ---------------------------------------------------------------------------------------------


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


def quiz_bot_env(db_path: Path, content_dir: Path, *, probe: bool = True) -> dict[str, str]:
    env = {
        "DATABASE_URL": f"sqlite:///{db_path}",
        "CONTENT_DIR": str(content_dir),
        "LOG_LEVEL": "INFO",
    }
    if probe:
        env["QUIZBOT_LOOP_LAG_PROBE"] = "1"
    return env


def quiz_bot_process(
    emulator: FakeDiscord, env: dict[str, str], log_path: Path, *, plain: bool = False
) -> BotProcess:
    """The quiz bot: through LAUNCHER (the default), or plainly as `python -m bot run`."""
    if plain:
        return BotProcess.for_emulator(
            emulator, QUIZ_BOT, log_path=log_path, extra_env=env, args=["run"]
        )
    return launched(emulator, "bot", env, log_path)


def launched(
    emulator: FakeDiscord, which: str, env: dict[str, str], log_path: Path
) -> BotProcess:
    proc = BotProcess.for_emulator(
        emulator, which, log_path=log_path, extra_env={**env, "QUIZBOT_BENCH_CHILD": which}
    )
    proc.argv = [sys.executable, "-c", LAUNCHER]
    return proc


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


def cpu_seconds(pid: int) -> float:
    with contextlib.suppress(psutil.Error):
        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    return 0.0


def pct(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return math.nan
    return sorted_values[min(len(sorted_values) - 1, math.ceil(p * len(sorted_values)) - 1)]


@dataclass
class LagLine:
    at: datetime
    final: bool
    max_ms: float
    p99_ms: float
    samples: int


def parse_lag_lines(log_text: str) -> list[LagLine]:
    lines = []
    for raw in ANSI.sub("", log_text).splitlines():
        m = LAG_LINE.search(raw)
        if m:
            at = datetime.strptime(m["ts"], "%Y-%m-%d %H:%M:%S")
            # Without milliseconds (the floor's log format), take the middle of the second.
            at = at.replace(microsecond=int(m["ms"]) * 1000 if m["ms"] else 500_000)
            lines.append(
                LagLine(at, bool(m["final"]), float(m["max"]), float(m["p99"]), int(m["n"]))
            )
    return lines


# ---------------------------------------------------------------------------------------------
# The load
# ---------------------------------------------------------------------------------------------


@dataclass
class MemberState:
    member: Member
    post: int  # index into the posts list
    attempt: int = 0
    busy: bool = False
    visited: int = 1


@dataclass
class PhaseResult:
    bot: str
    phase: str
    seconds: float = 0.0
    ok: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)
    replies: Counter[str] = field(default_factory=Counter)
    bot_cpu: float = 0.0
    loadgen_cpu: float = 0.0
    lag_max_ms: float | None = None
    lag_typical_ms: float | None = None
    """The median of the per-second maxima over the phase."""
    offered_rate: float | None = None
    dispatch_late_ms: float = 0.0
    load_before: str = ""
    load_after: str = ""
    started_wall: float = 0.0
    ended_wall: float = 0.0

    @property
    def rate(self) -> float:
        return self.ok / self.seconds if self.seconds else 0.0

    def latency_ms(self, p: float) -> float:
        return pct(sorted(self.latencies), p) * 1000

    @property
    def cpu_per_answer_us(self) -> float:
        return self.bot_cpu / max(self.ok, 1) * 1e6

    @property
    def loadgen_cpu_per_answer_us(self) -> float:
        return self.loadgen_cpu / max(self.ok, 1) * 1e6


def classify(body: dict[str, Any]) -> str:
    content = (body.get("data") or {}).get("content") or ""
    if content == "ok":
        return "floor ok"
    if content.startswith("✅ Right"):
        return "correct"
    if content.startswith("Not quite") and "last attempt" in content:
        return "failed"
    if content.startswith("Not quite"):
        return "wrong"
    if content.startswith("You already finished"):
        return "already finished"
    return "other: " + content[:60]


class Load:
    def __init__(self, driver: Driver, posts: list[Message], members: list[Member]) -> None:
        self.d = driver
        self.posts = posts
        self.post_ids = [post_id_of(p) for p in posts]
        self.members = [MemberState(m, post=i % len(posts)) for i, m in enumerate(members)]
        self.wrapped = 0
        """Members that came back to their first post: their answers there are not graded."""

    def click(self, state: MemberState) -> InteractionRecord:
        """The member's next answer; it moves to the next post after three."""
        if state.attempt == len(CLICKS):
            state.attempt = 0
            state.post = (state.post + 1) % len(self.posts)
            state.visited += 1
            if state.visited == len(self.posts) + 1:
                self.wrapped += 1
        index = state.post
        option = CLICKS[state.attempt]
        state.attempt += 1
        custom_id = f"quiz:ans:{self.post_ids[index]}:{option}"
        return self.d.click_button(self.posts[index], custom_id, user=state.member)

    async def closed(
        self, result: PhaseResult, bot_pid: int, seconds: float, warmup: float
    ) -> PhaseResult:
        measuring = False
        stop_at = time.monotonic() + warmup + seconds + 0.5

        async def member(state: MemberState) -> None:
            while time.monotonic() < stop_at:
                ix = self.click(state)
                try:
                    body = await ix.wait_response(timeout=10)
                except TimeoutError:
                    if measuring:
                        result.failed += 1
                    continue
                if measuring:
                    result.ok += 1
                    result.latencies.append(ix.latency or 0.0)
                    result.replies[classify(body)] += 1

        me = psutil.Process()
        tasks = [asyncio.create_task(member(s)) for s in self.members]
        try:
            await asyncio.sleep(warmup)
            result.load_before = loadavg()
            measuring = True
            cpu0 = cpu_seconds(bot_pid), _own_cpu(me)
            result.started_wall = time.time()
            t0 = time.monotonic()
            await asyncio.sleep(seconds)
            measuring = False
            result.seconds = time.monotonic() - t0
            result.ended_wall = time.time()
            result.bot_cpu = cpu_seconds(bot_pid) - cpu0[0]
            result.loadgen_cpu = _own_cpu(me) - cpu0[1]
            result.load_after = loadavg()
        finally:
            await asyncio.gather(*tasks, return_exceptions=True)
        return result

    async def open(
        self, result: PhaseResult, bot_pid: int, rate: float, seconds: float, seed: int
    ) -> PhaseResult:
        rng = random.Random(seed)
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()
        cursor = 0
        late_max = 0.0
        result.offered_rate = rate

        async def answer(state: MemberState) -> None:
            ix = self.click(state)
            try:
                body = await ix.wait_response(timeout=10)
            except TimeoutError:
                result.failed += 1
                return
            finally:
                state.busy = False
            result.ok += 1
            result.latencies.append(ix.latency or 0.0)
            result.replies[classify(body)] += 1

        me = psutil.Process()
        result.load_before = loadavg()
        cpu0 = cpu_seconds(bot_pid), _own_cpu(me)
        result.started_wall = time.time()
        start = loop.time()
        due = start
        end = start + seconds
        while True:
            due += rng.expovariate(rate)
            if due >= end:
                break
            delay = due - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            late_max = max(late_max, loop.time() - due)
            for _ in range(len(self.members)):
                state = self.members[cursor]
                cursor = (cursor + 1) % len(self.members)
                if not state.busy:
                    break
            state.busy = True
            task = asyncio.create_task(answer(state))
            pending.add(task)
            task.add_done_callback(pending.discard)
        result.seconds = loop.time() - start
        await asyncio.gather(*pending, return_exceptions=True)
        result.ended_wall = time.time()
        result.bot_cpu = cpu_seconds(bot_pid) - cpu0[0]
        result.loadgen_cpu = _own_cpu(me) - cpu0[1]
        result.dispatch_late_ms = late_max * 1000
        result.load_after = loadavg()
        return result


def _own_cpu(me: psutil.Process) -> float:
    t = me.cpu_times()
    return t.user + t.system


def post_id_of(message: Message) -> int:
    for row in message.get("components") or []:
        for comp in row.get("components") or []:
            m = re.match(r"quiz:ans:(\d+):", comp.get("custom_id") or "")
            if m:
                return int(m[1])
    raise ValueError(f"message {message['id']} has no answer buttons")


# ---------------------------------------------------------------------------------------------
# One benchmark run
# ---------------------------------------------------------------------------------------------


@dataclass
class BotRun:
    name: str
    phases: list[PhaseResult] = field(default_factory=list)
    peak_rss: int = 0
    lag_final: LagLine | None = None
    log_path: Path | None = None


@dataclass
class Options:
    members: int
    closed_seconds: float
    warmup: float
    rate: float
    open_seconds: float
    posts: int
    seed: int
    skip_floor: bool
    plain_bot: bool
    profile: Path | None
    py_spy: Path | None
    gc_log: str
    gc_freeze: str
    workdir: Path


def posts_needed(opts: Options) -> int:
    if opts.posts:
        return opts.posts
    # Enough for 2,500 answers/s in the closed loop plus the open loop: members should always
    # have attempts left. Members that run out anyway wrap around (counted in the report).
    clicks = 2500 * (opts.closed_seconds + opts.warmup + 1) + opts.rate * opts.open_seconds
    return max(10, math.ceil(clicks / opts.members / len(CLICKS)) + 2)


async def sync_commands(emulator: FakeDiscord, env: dict[str, str], guild_id: int, log: Path) -> None:
    proc = BotProcess.for_emulator(
        emulator, QUIZ_BOT, log_path=log, extra_env=env, args=["sync", "--guild", str(guild_id)]
    ).start()
    try:
        deadline = time.monotonic() + 60
        while proc.returncode is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if proc.returncode != 0:
            raise RuntimeError(f"quizbot sync failed ({proc.returncode}):\n{proc.log_tail()}")
    finally:
        await proc.stop()


def prepare_db(db_path: Path, guild_id: int) -> None:
    """A fresh database whose guild posts without a cooldown (as a moderator would set)."""
    from bot.store import Store, make_engine

    engine = make_engine(f"sqlite:///{db_path}")
    try:
        Store(engine).update_guild_config(guild_id, cooldown_seconds=0)
    finally:
        engine.dispose()


async def create_posts(
    d: Driver, channel: Channel, poster: Member, count: int, batch: int = 8
) -> list[Message]:
    async def one() -> None:
        ix = d.slash("quiz", user=poster, channel=channel, options={"task": TASK_ID})
        await ix.wait_followups(1, timeout=30)
        text = ix.followups[0].get("content") or ""
        if not text.startswith("Posted"):
            raise RuntimeError(f"/quiz did not post: {text!r}")

    for start in range(0, count, batch):
        await asyncio.gather(*(one() for _ in range(min(batch, count - start))))
    posts = [
        m
        for m in d.channel_messages(channel)
        if any("quiz:ans:" in (c.get("custom_id") or "") for r in m.get("components") or [] for c in r.get("components") or [])
    ]
    if len(posts) != count:
        raise RuntimeError(f"expected {count} posts, found {len(posts)}")
    return sorted(posts, key=post_id_of)


async def measure_bot(
    name: str,
    proc: BotProcess,
    d: Driver,
    load: Load,
    opts: Options,
    *,
    before_load: Any = None,
) -> BotRun:
    run = BotRun(name, log_path=proc.log_path)
    proc.start()
    assert proc.pid is not None
    rss = RssSampler(proc.pid).start()
    spy = None
    if opts.py_spy is not None and name == "quizbot":
        # Sampling stops the process briefly (ptrace): figures are slower while it runs.
        spy = subprocess.Popen(
            ["py-spy", "record", "--pid", str(proc.pid), "--rate", "100", "--format", "raw",
             "--output", str(opts.py_spy), "--nonblocking", "--threads"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
    try:
        await proc.wait_until_ready(d, timeout=60)
        if before_load is not None:
            await before_load()
        if opts.closed_seconds > 0:
            run.phases.append(
                await load.closed(
                    PhaseResult(name, "closed"), proc.pid, opts.closed_seconds, opts.warmup
                )
            )
            await asyncio.sleep(1.2)  # drain (live counts); a loop-lag report after the phase
        if opts.open_seconds > 0:
            run.phases.append(
                await load.open(
                    PhaseResult(name, "open"), proc.pid, opts.rate, opts.open_seconds, opts.seed
                )
            )
            await asyncio.sleep(1.2)
    finally:
        rss.sample()
        await rss.stop()
        run.peak_rss = rss.peak
        code = await proc.stop(grace=10)
        if code not in (0, -15, None):
            print(f"warning: {name} exited with {code}:\n{proc.log_tail()}", file=sys.stderr)
        if spy is not None:
            try:
                spy.wait(timeout=30)
            except subprocess.TimeoutExpired:
                spy.kill()
                spy.wait()
    lines = parse_lag_lines(proc.log_path.read_text(errors="replace"))
    finals = [line for line in lines if line.final]
    run.lag_final = finals[-1] if finals else None
    for phase in run.phases:
        start = datetime.fromtimestamp(phase.started_wall)
        end = datetime.fromtimestamp(phase.ended_wall + 1.1)
        window = [line for line in lines if not line.final and start < line.at <= end]
        if window:
            phase.lag_max_ms = max(line.max_ms for line in window)
            phase.lag_typical_ms = statistics.median(line.max_ms for line in window)
    return run


async def run_benchmark(opts: Options) -> tuple[BotRun, BotRun | None, dict[str, Any]]:
    info: dict[str, Any] = {"load_start": loadavg()}
    async with FakeDiscord() as emulator:
        d = emulator.driver
        guild = d.create_guild("Load")
        channel = d.create_text_channel(guild, "quiz")
        poster = d.add_member(guild, "poster")
        members = [d.add_member(guild, f"member{i}") for i in range(opts.members)]

        db_path = opts.workdir / "quizbot.db"
        prepare_db(db_path, guild.id)
        env = quiz_bot_env(db_path, REPO_ROOT / "content")
        if opts.profile is not None:
            env["QUIZBOT_BENCH_PROFILE"] = str(opts.profile)
        if opts.gc_log:
            env["QUIZBOT_BENCH_GC_LOG"] = opts.gc_log
        if opts.gc_freeze:
            env["QUIZBOT_BENCH_GC_FREEZE"] = opts.gc_freeze
        await sync_commands(emulator, env, guild.id, opts.workdir / "sync.log")

        n_posts = posts_needed(opts)
        holder: dict[str, Load] = {}

        async def post_quizzes() -> None:
            t0 = time.monotonic()
            posts = await create_posts(d, channel, poster, n_posts)
            info["posts"] = len(posts)
            info["posting_seconds"] = time.monotonic() - t0
            holder["load"] = Load(d, posts, members)

        quiz_proc = quiz_bot_process(emulator, env, opts.workdir / "quizbot.log", plain=opts.plain_bot)
        # The Load object exists only after posting; measure_bot takes it lazily.
        lazy = _LazyLoad(holder)
        ours = await measure_bot("quizbot", quiz_proc, d, lazy, opts, before_load=post_quizzes)  # type: ignore[arg-type]
        info["wrapped"] = holder["load"].wrapped
        floor = None
        if not opts.skip_floor:
            floor_env = {k: v for k, v in env.items() if k.startswith("QUIZBOT_BENCH_GC")}
            floor_proc = launched(emulator, "floor", floor_env, opts.workdir / "floor.log")
            floor = await measure_bot("floor", floor_proc, d, holder["load"], opts)
        info["late_callbacks"] = d.late_callbacks
        info["unknown_routes"] = [str(r) for r in emulator.unknown_routes]
        info["db_bytes"] = db_path.stat().st_size if db_path.exists() else 0
    info["load_end"] = loadavg()
    return ours, floor, info


class _LazyLoad:
    def __init__(self, holder: dict[str, Load]) -> None:
        self._holder = holder

    def __getattr__(self, name: str) -> Any:
        return getattr(self._holder["load"], name)


# ---------------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str = ".1f") -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def phase_table(ours: BotRun, floor: BotRun | None) -> list[str]:
    rows = [
        "| bot | phase | answers/s | p50 ms | p95 ms | p99 ms | failed | bot CPU/answer µs "
        "| emulator CPU/answer µs | loop lag ms: max (median of 1-s maxima) | peak RSS MB | load avg 1/5/15 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in (ours, floor):
        if run is None:
            continue
        for ph in run.phases:
            label = "closed loop" if ph.phase == "closed" else f"open loop {ph.offered_rate:.0f}/s"
            rows.append(
                f"| {run.name} | {label} | {ph.rate:.0f} | {ph.latency_ms(0.5):.1f} "
                f"| {ph.latency_ms(0.95):.1f} | {ph.latency_ms(0.99):.1f} | {ph.failed} "
                f"| {ph.cpu_per_answer_us:.0f} | {ph.loadgen_cpu_per_answer_us:.0f} "
                f"| {_fmt(ph.lag_max_ms)} ({_fmt(ph.lag_typical_ms)}) "
                f"| {run.peak_rss / 2**20:.0f} | {ph.load_before} |"
            )
    return rows


def ratio_lines(ours: BotRun, floor: BotRun | None) -> list[str]:
    if floor is None or len(ours.phases) != 2 or len(floor.phases) != 2:
        return []
    oc, oo = ours.phases
    fc, fo = floor.phases
    thr = oc.rate / fc.rate if fc.rate else math.nan
    p99 = oo.latency_ms(0.99) / fo.latency_ms(0.99) if fo.latencies else math.nan
    cpu = oc.cpu_per_answer_us / fc.cpu_per_answer_us if fc.ok else math.nan
    lag = max((p.lag_max_ms or 0.0) for p in ours.phases)
    return [
        f"- closed-loop throughput vs floor: **{thr:.2f}×** (target ≥ 0.8×, defect < 0.5×)",
        f"- open-loop {oo.offered_rate:.0f}/s p99 vs floor: **{p99:.2f}×** "
        f"({oo.latency_ms(0.99):.1f} ms vs {fo.latency_ms(0.99):.1f} ms; target ≤ 1.5× and < 50 ms)",
        f"- bot CPU per answer vs floor (closed loop): {cpu:.2f}× "
        f"({oc.cpu_per_answer_us:.0f} µs vs {fc.cpu_per_answer_us:.0f} µs)",
        f"- max event-loop lag in the bot: **{lag:.1f} ms** (target < 50 ms)",
    ]


def report(ours: BotRun, floor: BotRun | None, info: dict[str, Any], opts: Options) -> str:
    lines = phase_table(ours, floor)
    lines.append("")
    lines += ratio_lines(ours, floor)
    replies = Counter[str]()
    for ph in ours.phases:
        replies.update(ph.replies)
    lines.append(
        "- quiz bot replies (measured): "
        + ", ".join(f"{k} {v}" for k, v in replies.most_common())
        + f"; members that ran out of posts and wrapped: {info.get('wrapped', 0)}"
    )
    if ours.lag_final is not None:
        f = ours.lag_final
        lines.append(
            f"- loop-lag over the whole bot run: max {f.max_ms:.1f} ms, p99 {f.p99_ms:.1f} ms, "
            f"{f.samples} samples"
        )
    lines.append(
        f"- {info.get('posts')} posts created with /quiz in {info.get('posting_seconds', 0):.1f} s; "
        f"late callbacks {info.get('late_callbacks')}, unknown routes {len(info.get('unknown_routes', []))}; "
        f"load average at start {info['load_start']}, at end {info['load_end']}"
    )
    for ph in [*ours.phases, *(floor.phases if floor else [])]:
        if ph.phase == "open" and ph.dispatch_late_ms > 20:
            lines.append(
                f"- note: the load generator dispatched up to {ph.dispatch_late_ms:.0f} ms late "
                f"in {ph.bot}'s open loop (a busy machine)"
            )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="Closed- and open-loop answer load on the quiz bot and the floor bot.",
    )
    parser.add_argument("--members", type=int, default=200, help="simulated members (closed loop N)")
    parser.add_argument("--closed-seconds", type=float, default=10.0, help="measured closed-loop time")
    parser.add_argument("--warmup", type=float, default=2.0, help="closed-loop warm-up, not measured")
    parser.add_argument("--rate", type=float, default=300.0, help="open-loop answers/s (Poisson)")
    parser.add_argument("--open-seconds", type=float, default=10.0, help="open-loop duration")
    parser.add_argument("--posts", type=int, default=0, help="quizzes to post (default: enough)")
    parser.add_argument("--seed", type=int, default=1, help="open-loop arrival seed")
    parser.add_argument("--skip-floor", action="store_true", help="only the quiz bot")
    parser.add_argument(
        "--plain-bot", action="store_true", help="run `python -m bot run` without the launcher"
    )
    parser.add_argument("--profile", type=Path, help="cProfile the quiz bot into this file")
    parser.add_argument(
        "--py-spy", type=Path, help="py-spy (pip install py-spy) the quiz bot into this raw file"
    )
    parser.add_argument(
        "--gc-log",
        nargs="?",
        const="1",
        default="",
        help="log the bots' garbage-collector pauses >= 5 ms (=types: also what the cyclic "
        "garbage is made of, at exit; memory grows, short runs only)",
    )
    parser.add_argument(
        "--gc-freeze",
        nargs="?",
        const="1",
        default="",
        help="experiment: gc.freeze() in the quiz bot after setup_hook (=1:G0,G1,G2 also sets "
        "gc.set_threshold(G0, G1, G2))",
    )
    parser.add_argument("--markdown", type=Path, help="also write the report to this file")
    parser.add_argument("--keep", type=Path, help="keep the DB and logs in this directory")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            args.keep.mkdir(parents=True, exist_ok=True)
            workdir = args.keep
        else:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="quizbot-load-")))
        opts = Options(
            members=args.members,
            closed_seconds=args.closed_seconds,
            warmup=args.warmup,
            rate=args.rate,
            open_seconds=args.open_seconds,
            posts=args.posts,
            seed=args.seed,
            skip_floor=args.skip_floor,
            plain_bot=args.plain_bot,
            profile=args.profile.resolve() if args.profile else None,
            py_spy=args.py_spy.resolve() if args.py_spy else None,
            gc_log=args.gc_log,
            gc_freeze=args.gc_freeze,
            workdir=workdir,
        )
        ours, floor, info = asyncio.run(run_benchmark(opts))
        text = report(ours, floor, info, opts)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
