"""Load benchmark: the real bot answering button clicks, against the floor bot, same emulator.

    python -m benchmarks.load                       # 200 members, 10 s closed + 10 s open loop
    python -m benchmarks.load --members 200 --closed-seconds 10 --rate 300 --open-seconds 10
    python -m benchmarks.load --rounds 2 --markdown out.md   # alternate the bots twice, pooled

One run:

1. Starts fakediscord in this process: a guild, a channel, N members and a poster.
2. Starts the quiz bot as a subprocess (`quizbot run` through LAUNCHER below; `--plain-bot`
   for a bare `python -m bot run`): a fresh SQLite file in a temp dir, the shipped content/,
   LOG_LEVEL=INFO and QUIZBOT_LOOP_LAG_PROBE=1. The slash commands are registered with
   `python -m bot sync --guild`, the guild's posting cooldown is set to 0, and enough quizzes
   of task mlops-parallelism-mc-1 (answer A) are posted with /quiz that no member runs out.
3. Closed loop: the N members click concurrently, each again as soon as its previous answer
   came back. A member answers B, C, then A on a post (three graded attempts: wrong, wrong,
   right) and moves on to the next post. Measured after a warm-up.
4. Open loop: Poisson arrivals at `--rate` answers/s for `--open-seconds`, spread over the
   members (one with an answer in flight is skipped), the same click sequence.
5. Stops the bot (SIGTERM) and does 3 and 4 again with benchmarks/floor_bot.py (bare
   discord.py, a constant ephemeral reply) under the same emulator, on the same posts.

Reported per bot and phase: answers/s; latency p50/p95/p99 from dispatching INTERACTION_CREATE
to receiving the callback (fakediscord's InteractionRecord.latency); the bot process's CPU per
answer (a figure that survives a noisy machine) and the harness's; the maximum event-loop lag
inside the bot (parsed from bot.discord_ui.loop_lag's lines; the floor runs the same probe);
the bot's peak RSS (psutil, sampled every 50 ms). Then throughput and p99 as ratios to the
floor's. The harness's own garbage collector is off while a phase is measured.

Experiments (extra quiz bot variants in the same run): `--without-post-cache` (A/B of the
answer path's post cache), `--gc-freeze` (gc.freeze() after setup), `--fast-answers` (answer
buttons dispatched without discord.py rebuilding the View). Diagnostics: `--gc-log[=types]`,
`--profile FILE` (cProfile), `--py-spy PATH` (py-spy on the thread holding the GIL).

Every phase is bounded in time; every subprocess is stopped at the end (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
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
from collections.abc import Iterator
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
# benchmark (its RSS is the bot's own). For the quiz bot it is `quizbot run` (QuizBot starts
# the loop-lag probe itself; starting it again here is a no-op) plus the experiments and
# diagnostics switched on by QUIZBOT_BENCH_* variables; for the floor it is
# benchmarks/floor_bot.py with the same loop-lag probe.
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
if os.environ.get("QUIZBOT_BENCH_NO_POST_CACHE"):
    # A/B: the answer path without its post cache (a database read per click, as before).
    from bot.service import QuizService
    QuizService._remember_post = lambda self, posted: None
if os.environ.get("QUIZBOT_BENCH_FAST_ANSWERS"):
    # Experiment: answer buttons dispatched without discord.py rebuilding the message's View
    # (what a fast path in the Discord layer would save).
    from discord.ui.view import ViewStore
    from bot.discord_ui.components import AnswerButton
    dynamic_call = ViewStore.schedule_dynamic_item_call
    async def fast_dynamic_call(self, component_type, factory, interaction, custom_id, match):
        if factory is not AnswerButton or interaction.message is None:
            return await dynamic_call(self, component_type, factory, interaction, custom_id, match)
        await AnswerButton(int(match["post"]), match["opt"]).callback(interaction)
    ViewStore.schedule_dynamic_item_call = fast_dynamic_call
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
        "CONTENT_CACHE": str(db_path.with_name("content-cache.pickle")),
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


def launched(emulator: FakeDiscord, which: str, env: dict[str, str], log_path: Path) -> BotProcess:
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
    rounds: int = 1

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
class Variant:
    name: str
    child: str  # "bot" or "floor"
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class BotRun:
    name: str
    phases: dict[str, PhaseResult] = field(default_factory=dict)
    peak_rss: int = 0
    lag_final: LagLine | None = None

    def merge(self, other: BotRun) -> None:
        """Pool another round of the same variant into this one."""
        self.peak_rss = max(self.peak_rss, other.peak_rss)
        if other.lag_final is not None and (
            self.lag_final is None or other.lag_final.max_ms > self.lag_final.max_ms
        ):
            self.lag_final = other.lag_final
        for key, ph in other.phases.items():
            mine = self.phases.get(key)
            if mine is None:
                self.phases[key] = ph
                continue
            mine.seconds += ph.seconds
            mine.ok += ph.ok
            mine.failed += ph.failed
            mine.latencies += ph.latencies
            mine.replies.update(ph.replies)
            mine.bot_cpu += ph.bot_cpu
            mine.loadgen_cpu += ph.loadgen_cpu
            mine.lag_max_ms = _max_opt(mine.lag_max_ms, ph.lag_max_ms)
            mine.lag_typical_ms = _max_opt(mine.lag_typical_ms, ph.lag_typical_ms)
            mine.dispatch_late_ms = max(mine.dispatch_late_ms, ph.dispatch_late_ms)
            mine.load_before += " · " + ph.load_before
            mine.rounds += 1


def _max_opt(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else max(a, b)


@dataclass
class Options:
    members: int = 200
    closed_seconds: float = 10.0
    warmup: float = 2.0
    rate: float = 300.0
    open_seconds: float = 10.0
    posts: int = 0
    seed: int = 1
    rounds: int = 1
    skip_floor: bool = False
    plain_bot: bool = False
    gc_freeze: str = ""
    fast_answers: bool = False
    without_post_cache: bool = False
    gc_log: str = ""
    profile: Path | None = None
    py_spy: Path | None = None
    workdir: Path = Path()

    def variants(self) -> list[Variant]:
        found = [Variant("quizbot", "bot")]
        if self.without_post_cache:
            nocache = {"QUIZBOT_BENCH_NO_POST_CACHE": "1"}
            found.append(Variant("quizbot without post cache", "bot", nocache))
        freeze = {"QUIZBOT_BENCH_GC_FREEZE": self.gc_freeze or "1"}
        if self.gc_freeze:
            found.append(Variant("quizbot + gc.freeze", "bot", freeze))
        if self.fast_answers:
            fast = {**freeze, "QUIZBOT_BENCH_FAST_ANSWERS": "1"}
            found.append(Variant("quizbot + gc.freeze + fast answers", "bot", fast))
        if not self.skip_floor:
            found.append(Variant("floor", "floor"))
        return found


def posts_needed(opts: Options) -> int:
    if opts.posts:
        return opts.posts
    # Enough for 2,500 answers/s in every closed loop plus the open loops, so members always
    # have attempts left (the floor's clicks move members along too); one that runs out anyway
    # wraps around to posts it finished (counted in the report).
    runs = opts.rounds * len(opts.variants())
    per_run = 2500 * (opts.closed_seconds + opts.warmup + 1) + opts.rate * opts.open_seconds
    return max(10, math.ceil(runs * per_run / opts.members / len(CLICKS)) + 2)


async def sync_commands(
    emulator: FakeDiscord, env: dict[str, str], guild_id: int, log: Path
) -> None:
    """`quizbot sync --guild` against the emulator, as an operator would run it."""
    spec = BotProcess.for_emulator(
        emulator, QUIZ_BOT, log_path=log, extra_env=env, args=["sync", "--guild", str(guild_id)]
    )
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            *spec.argv, cwd=spec.cwd, env=spec.env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        code = await asyncio.wait_for(proc.wait(), 60)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    if code != 0:
        raise RuntimeError(f"quizbot sync failed ({code}):\n{spec.log_tail()}")


def prepare_db(db_path: Path, guild_id: int) -> None:
    """A fresh database whose guild posts without a cooldown (as a moderator would set)."""
    from bot.store import Store, make_engine

    engine = make_engine(f"sqlite:///{db_path}")
    try:
        Store(engine).update_guild_config(guild_id, cooldown_seconds=0)
    finally:
        engine.dispose()


def _is_post(message: Message) -> bool:
    return any(
        "quiz:ans:" in (c.get("custom_id") or "")
        for row in message.get("components") or []
        for c in row.get("components") or []
    )


async def create_posts(
    d: Driver, channel: Channel, poster: Member, count: int, batch: int = 8
) -> list[Message]:
    """`count` quizzes posted with /quiz (a few at a time); their messages, by post id."""

    async def one() -> None:
        ix = d.slash("quiz", user=poster, channel=channel, options={"task": TASK_ID})
        await ix.wait_followups(1, timeout=30)
        text = ix.followups[0].get("content") or ""
        if not text.startswith("Posted"):
            raise RuntimeError(f"/quiz did not post: {text!r}")

    for start in range(0, count, batch):
        await asyncio.gather(*(one() for _ in range(min(batch, count - start))))
    posts = [m for m in d.channel_messages(channel) if _is_post(m)]
    if len(posts) != count:
        raise RuntimeError(f"expected {count} posts, found {len(posts)}")
    return sorted(posts, key=post_id_of)


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


class _Setup:
    """What the first quiz bot run creates (the posts) and later runs reuse."""

    def __init__(self) -> None:
        self.load: Load | None = None
        self.posts = 0
        self.posting_seconds = 0.0


async def measure_bot(
    variant: Variant,
    proc: BotProcess,
    d: Driver,
    setup: _Setup,
    opts: Options,
    make_load: Any = None,
) -> BotRun:
    run = BotRun(variant.name)
    proc.start()
    assert proc.pid is not None
    rss = RssSampler(proc.pid).start()
    spy = None
    if opts.py_spy is not None and variant.child == "bot":
        # Samples of the thread holding the GIL (the bot's bottleneck), one file per variant.
        # Sampling stops the process briefly (ptrace): figures are worse while it runs.
        out = opts.py_spy.with_name(f"{opts.py_spy.name}.{variant.name.replace(' ', '')}.txt")
        spy = await asyncio.create_subprocess_exec(
            *("py-spy", "record", "--pid", str(proc.pid), "--rate", "100", "--format", "raw"),
            *("--output", str(out), "--nonblocking", "--threads", "--gil"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    try:
        await proc.wait_until_ready(d, timeout=60)
        if setup.load is None:
            await make_load()
        load = setup.load
        assert load is not None
        if opts.closed_seconds > 0:
            result = PhaseResult(variant.name, "closed")
            with harness_gc_paused():
                await load.closed(result, proc.pid, opts.closed_seconds, opts.warmup)
            run.phases["closed"] = result
            await asyncio.sleep(1.2)  # drain (live counts); a loop-lag report after the phase
        if opts.open_seconds > 0:
            result = PhaseResult(variant.name, "open")
            with harness_gc_paused():
                await load.open(result, proc.pid, opts.rate, opts.open_seconds, opts.seed)
            run.phases["open"] = result
            await asyncio.sleep(1.2)
    finally:
        rss.sample()
        await rss.stop()
        run.peak_rss = rss.peak
        code = await proc.stop(grace=10)
        if code not in (0, -15, None):
            print(
                f"warning: {variant.name} exited with {code}:\n{proc.log_tail()}", file=sys.stderr
            )
        if spy is not None:  # it ends by itself with the process it samples
            try:
                await asyncio.wait_for(spy.wait(), 30)
            except TimeoutError:
                spy.kill()
                await spy.wait()
    lines = parse_lag_lines(proc.log_path.read_text(errors="replace"))
    finals = [line for line in lines if line.final]
    run.lag_final = finals[-1] if finals else None
    for phase in run.phases.values():
        start = datetime.fromtimestamp(phase.started_wall)
        end = datetime.fromtimestamp(phase.ended_wall + 1.1)
        window = [line for line in lines if not line.final and start < line.at <= end]
        if window:
            phase.lag_max_ms = max(line.max_ms for line in window)
            phase.lag_typical_ms = statistics.median(line.max_ms for line in window)
    return run


async def run_benchmark(opts: Options) -> tuple[list[BotRun], dict[str, Any]]:
    info: dict[str, Any] = {"load_start": loadavg()}
    # Bounded retention keeps the harness's heap (and its GC pauses) small over a long run.
    emulator = FakeDiscord(max_retained_interactions=20_000, ephemeral_per_user=20)
    gc_watch = GcWatch()
    gc.callbacks.append(gc_watch)
    async with emulator:
        d = emulator.driver
        guild = d.create_guild("Load")
        channel = d.create_text_channel(guild, "quiz")
        poster = d.add_member(guild, "poster")
        members = [d.add_member(guild, f"member{i}") for i in range(opts.members)]

        db_path = opts.workdir / "quizbot.db"
        prepare_db(db_path, guild.id)
        base_env = quiz_bot_env(db_path, REPO_ROOT / "content")
        if opts.gc_log:
            base_env["QUIZBOT_BENCH_GC_LOG"] = opts.gc_log
        await sync_commands(emulator, base_env, guild.id, opts.workdir / "sync.log")

        setup = _Setup()
        gc.collect()
        gc.freeze()  # the harness's own long-lived objects: out of every later collection

        async def make_load() -> None:
            t0 = time.monotonic()
            posts = await create_posts(d, channel, poster, posts_needed(opts))
            setup.posting_seconds = time.monotonic() - t0
            setup.posts = len(posts)
            setup.load = Load(d, posts, members)

        runs: dict[str, BotRun] = {}
        for round_no in range(opts.rounds):
            for variant in opts.variants():
                log = opts.workdir / f"{variant.name.replace(' ', '')}-{round_no}.log"
                env = {**base_env, **variant.env}
                if variant.child == "bot":
                    if opts.profile is not None and variant.name == "quizbot" and round_no == 0:
                        env["QUIZBOT_BENCH_PROFILE"] = str(opts.profile)
                    proc = quiz_bot_process(emulator, env, log, plain=opts.plain_bot)
                else:
                    gc_env = {k: v for k, v in env.items() if k == "QUIZBOT_BENCH_GC_LOG"}
                    proc = launched(emulator, "floor", gc_env, log)
                print(f"round {round_no + 1}: {variant.name} (load {loadavg()})", flush=True)
                run = await measure_bot(variant, proc, d, setup, opts, make_load)
                if variant.name in runs:
                    runs[variant.name].merge(run)
                else:
                    runs[variant.name] = run
        info["posts"] = setup.posts
        info["posting_seconds"] = setup.posting_seconds
        info["wrapped"] = setup.load.wrapped if setup.load else 0
        info["late_callbacks"] = d.late_callbacks
        info["unknown_routes"] = [str(r) for r in emulator.unknown_routes]
    gc.callbacks.remove(gc_watch)
    info["harness_gc"] = gc_watch
    info["load_end"] = loadavg()
    return list(runs.values()), info


# ---------------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------------


def _fmt(value: float | None, spec: str = ".1f") -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return format(value, spec)


def phase_table(runs: list[BotRun]) -> list[str]:
    rows = [
        "| bot | phase | answers/s | p50 ms | p95 ms | p99 ms | failed | bot CPU µs/answer "
        "| emulator+loadgen CPU µs/answer | loop lag ms: max (median 1-s max) | peak RSS MB "
        "| load avg 1/5/15 at start |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        for ph in run.phases.values():
            label = "closed loop" if ph.phase == "closed" else f"open {ph.offered_rate:.0f}/s"
            rows.append(
                f"| {run.name} | {label} | {ph.rate:.0f} | {ph.latency_ms(0.5):.1f} "
                f"| {ph.latency_ms(0.95):.1f} | {ph.latency_ms(0.99):.1f} | {ph.failed} "
                f"| {ph.cpu_per_answer_us:.0f} | {ph.loadgen_cpu_per_answer_us:.0f} "
                f"| {_fmt(ph.lag_max_ms)} ({_fmt(ph.lag_typical_ms)}) "
                f"| {run.peak_rss / 2**20:.0f} | {ph.load_before} |"
            )
    return rows


def ratio_lines(ours: BotRun, floor: BotRun) -> list[str]:
    lines = []
    oc, fc = ours.phases.get("closed"), floor.phases.get("closed")
    if oc and fc and fc.rate:
        lines.append(
            f"- {ours.name}: closed-loop throughput **{oc.rate / fc.rate:.2f}× the floor** "
            f"({oc.rate:.0f} vs {fc.rate:.0f}/s; target ≥ 0.8×, defect < 0.5×); CPU per answer "
            f"{oc.cpu_per_answer_us / fc.cpu_per_answer_us:.2f}× the floor's "
            f"({oc.cpu_per_answer_us:.0f} vs {fc.cpu_per_answer_us:.0f} µs)"
        )
    oo, fo = ours.phases.get("open"), floor.phases.get("open")
    if oo and fo and fo.latencies:
        ours_p99, floor_p99 = oo.latency_ms(0.99), fo.latency_ms(0.99)
        lines.append(
            f"- {ours.name}: open-loop {oo.offered_rate:.0f}/s p99 **{ours_p99:.1f} ms = "
            f"{ours_p99 / floor_p99:.2f}× the floor's** {floor_p99:.1f} ms "
            "(target ≤ 1.5× and < 50 ms)"
        )
    return lines


def report(runs: list[BotRun], info: dict[str, Any], opts: Options) -> str:
    lines = phase_table(runs)
    lines.append("")
    floor = next((r for r in runs if r.name == "floor"), None)
    for run in runs:
        if run is floor:
            continue
        if floor is not None:
            lines += ratio_lines(run, floor)
        lag = max((p.lag_max_ms or 0.0) for p in run.phases.values()) if run.phases else 0.0
        lines.append(f"- {run.name}: max event-loop lag {lag:.1f} ms (target < 50 ms)")
        replies = Counter[str]()
        for ph in run.phases.values():
            replies.update(ph.replies)
        lines.append(
            f"- {run.name} replies (measured): "
            + ", ".join(f"{k} {v}" for k, v in replies.most_common())
        )
    if floor is not None and floor.lag_final is not None:
        lines.append(f"- floor: max event-loop lag over its runs {floor.lag_final.max_ms:.1f} ms")
    lines.append(
        f"- {info.get('posts')} posts created with /quiz in {info.get('posting_seconds', 0):.1f} s;"
        f" members that ran out of posts: {info.get('wrapped', 0)}; late callbacks "
        f"{info.get('late_callbacks')}; unknown routes {len(info.get('unknown_routes', []))}; "
        f"rounds {opts.rounds}; load average at start {info['load_start']}, at end "
        f"{info['load_end']}"
    )
    harness_gc = info.get("harness_gc")
    if harness_gc is not None:
        lines.append(
            "- harness (emulator + load generator) GC, off while measuring: longest pause "
            f"{harness_gc.max_ms:.0f} ms, {harness_gc.total_ms / 1000:.1f} s in all"
        )
    for run in runs:
        ph = run.phases.get("open")
        if ph is not None and ph.dispatch_late_ms > 20:
            lines.append(
                f"- note: the load generator dispatched up to {ph.dispatch_late_ms:.0f} ms late "
                f"in {run.name}'s open loop (a busy machine)"
            )
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> tuple[Options, argparse.Namespace]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="Closed- and open-loop answer load on the quiz bot and the floor bot.",
    )
    add = parser.add_argument
    add("--members", type=int, default=200, help="simulated members (the closed loop's N)")
    add("--closed-seconds", type=float, default=10.0, help="measured closed-loop time (0: skip)")
    add("--warmup", type=float, default=2.0, help="closed-loop warm-up, not measured")
    add("--rate", type=float, default=300.0, help="open-loop answers/s (Poisson arrivals)")
    add("--open-seconds", type=float, default=10.0, help="open-loop time (0: skip)")
    add("--posts", type=int, default=0, help="quizzes to post (default: enough for the run)")
    add("--seed", type=int, default=1, help="open-loop arrival seed")
    add("--rounds", type=int, default=1, help="repeat every bot this often, alternating; pooled")
    add("--skip-floor", action="store_true", help="only the quiz bot")
    add("--plain-bot", action="store_true", help="`python -m bot run` without the launcher")
    add(
        "--gc-freeze",
        nargs="?",
        const="1",
        default="",
        help="also run the quiz bot with gc.freeze() after setup_hook (=1:G0,G1,G2 also sets "
        "gc.set_threshold(G0, G1, G2))",
    )
    add(
        "--without-post-cache",
        action="store_true",
        help="also run the quiz bot without the answer path's post cache (an A/B of that change)",
    )
    add(
        "--fast-answers",
        action="store_true",
        help="also run the quiz bot with gc.freeze() and answer buttons dispatched without "
        "discord.py rebuilding the message's View (an experiment for the Discord layer)",
    )
    add(
        "--gc-log",
        nargs="?",
        const="1",
        default="",
        help="log the bots' garbage-collector pauses >= 5 ms (=types: also name what the "
        "cyclic garbage is made of, at exit; memory grows, short runs only)",
    )
    add("--profile", type=Path, help="cProfile the quiz bot (first round) into this file")
    add(
        "--py-spy",
        type=Path,
        help="py-spy (pip install py-spy) each quiz bot variant into PATH.<variant>.txt",
    )
    add("--markdown", type=Path, help="also write the report to this file")
    add("--keep", type=Path, help="keep the database and the bots' logs in this directory")
    args = parser.parse_args(argv)
    return Options(
        members=args.members,
        closed_seconds=args.closed_seconds,
        warmup=args.warmup,
        rate=args.rate,
        open_seconds=args.open_seconds,
        posts=args.posts,
        seed=args.seed,
        rounds=args.rounds,
        skip_floor=args.skip_floor,
        plain_bot=args.plain_bot,
        gc_freeze=args.gc_freeze,
        fast_answers=args.fast_answers,
        without_post_cache=args.without_post_cache,
        gc_log=args.gc_log,
        profile=args.profile.resolve() if args.profile else None,
        py_spy=args.py_spy.resolve() if args.py_spy else None,
        workdir=args.keep.resolve() if args.keep else Path(),
    ), args


def main(argv: list[str] | None = None) -> int:
    opts, args = parse_args(argv)
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            opts.workdir.mkdir(parents=True, exist_ok=True)
        else:
            opts.workdir = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="quizbot-load-"))
            )
        runs, info = asyncio.run(run_benchmark(opts))
    text = report(runs, info, opts)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
