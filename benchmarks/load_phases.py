"""The click loads on one bot: members clicking in a closed loop and an open loop.

`ClickLoad` runs the loops; what a member does next is its subclass's: `Load` here (answers),
`ReviewLoad` in benchmarks/review_load.py (/review sittings). In the answer load a member
answers B, C, then A on a post (three graded attempts: wrong, wrong, right on task
mlops-parallelism-mc-1) and moves on to the next post.

- Closed loop: every member clicks again as soon as its previous answer came back; measured
  after a warm-up.
- Open loop: Poisson arrivals at a fixed rate, spread over the members (one with an answer in
  flight is skipped).

Latency is from dispatching INTERACTION_CREATE to receiving the callback (the emulator's
InteractionRecord.latency); CPU is the bot process's and this process's (emulator and load
generator) over the measured time.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psutil
from fakediscord import Driver, InteractionRecord, Member, Message

from benchmarks.machine import (
    Pids,
    cpu_seconds,
    cpu_steal_seconds,
    io_stall_seconds,
    loadavg,
    pct,
)

TASK_ID = "mlops-parallelism-mc-1"
CLICKS = ("B", "C", "A")  # wrong, wrong, right: three graded attempts per post


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
    kinds: dict[str, list[float]] = field(default_factory=dict)
    """The latencies again, by kind of interaction (answer, /review, Next, ...)."""
    replies: Counter[str] = field(default_factory=Counter)
    bot_cpu: float = 0.0
    loadgen_cpu: float = 0.0
    lag_max_ms: float | None = None
    lag_typical_ms: float | None = None
    """The median of the per-second maxima over the phase."""
    writer_busy_pct: list[float] = field(default_factory=list)
    """The quiz bot's writer thread: its busy share of each second of the phase."""
    writer_wait_max_ms: float | None = None
    """The longest a write unit queued for the writer thread during the phase."""
    io_stall_s: float | None = None
    """Seconds of the phase some task of the machine waited for the disk
    (`machine.io_stall_seconds`); None where the kernel does not say."""
    steal_s: float | None = None
    """CPU seconds (all cores) the hypervisor took from the machine during the phase
    (`machine.cpu_steal_seconds`)."""
    offered_rate: float | None = None
    dispatch_late_ms: float = 0.0
    skipped: int = 0
    """Open loop: arrivals dropped because every member was still waiting for a reply."""
    load_before: str = ""
    load_after: str = ""
    started_wall: float = 0.0
    ended_wall: float = 0.0
    rounds: int = 1

    def record(self, kind: str, ix: InteractionRecord, reply: str | None) -> None:
        """One interaction of the phase: its latency, or (`reply` None) a failure."""
        if reply is None:
            self.failed += 1
            return
        self.ok += 1
        latency = ix.latency or 0.0
        self.latencies.append(latency)
        self.kinds.setdefault(kind, []).append(latency)
        self.replies[reply] += 1

    def kind_latency_ms(self, kind: str, p: float) -> float:
        return pct(sorted(self.kinds.get(kind, [])), p) * 1000

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
    if content.startswith("You already tried"):
        return "repeated"
    if content.startswith("You already finished"):
        return "already finished"
    return "other: " + content[:60]


class ClickLoad:
    """The closed and open loops over members that each do one thing at a time: a subclass
    says what a member does next (`begin`) and what the reply makes of it (`settle`)."""

    members: list[Any]
    """Per-member states, each with a `busy` flag (the open loop skips busy members)."""
    wrapped: int = 0
    """Members that ran out of fresh work (reported: their clicks measure something else)."""

    def begin(self, state: Any) -> tuple[str, InteractionRecord]:
        """The member's next interaction, dispatched, and its kind (for per-kind latency)."""
        raise NotImplementedError

    async def settle(
        self, state: Any, kind: str, ix: InteractionRecord, body: dict[str, Any]
    ) -> str:
        """The member's state after the bot's callback `body`; the reply's class."""
        return classify(body)

    def lost(self, state: Any, kind: str) -> None:
        """The bot sent no callback in time: the member's state after that."""

    async def _one(self, state: Any) -> tuple[str, InteractionRecord, str | None]:
        kind, ix = self.begin(state)
        try:
            body = await ix.wait_response(timeout=10)
        except TimeoutError:
            self.lost(state, kind)
            return kind, ix, None
        return kind, ix, await self.settle(state, kind, ix, body)

    async def closed(
        self, result: PhaseResult, bot_pid: Pids, seconds: float, warmup: float
    ) -> PhaseResult:
        measuring = False
        stop_at = time.monotonic() + warmup + seconds + 0.5

        async def member(state: Any) -> None:
            while time.monotonic() < stop_at:
                kind, ix, reply = await self._one(state)
                if measuring:
                    result.record(kind, ix, reply)

        me = psutil.Process()
        tasks = [asyncio.create_task(member(s)) for s in self.members]
        try:
            await asyncio.sleep(warmup)
            result.load_before = loadavg()
            measuring = True
            cpu0 = cpu_seconds(bot_pid), _own_cpu(me)
            io0 = _waits()
            result.started_wall = time.time()
            t0 = time.monotonic()
            await asyncio.sleep(seconds)
            measuring = False
            result.seconds = time.monotonic() - t0
            result.ended_wall = time.time()
            result.bot_cpu = cpu_seconds(bot_pid) - cpu0[0]
            result.loadgen_cpu = _own_cpu(me) - cpu0[1]
            result.io_stall_s, result.steal_s = _since(io0)
            result.load_after = loadavg()
        finally:
            await asyncio.gather(*tasks, return_exceptions=True)
        return result

    async def open(
        self, result: PhaseResult, bot_pid: Pids, rate: float, seconds: float, seed: int
    ) -> PhaseResult:
        rng = random.Random(seed)
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()
        cursor = 0
        late_max = 0.0
        result.offered_rate = rate

        async def act(state: Any) -> None:
            try:
                kind, ix, reply = await self._one(state)
            finally:
                state.busy = False
            result.record(kind, ix, reply)

        me = psutil.Process()
        result.load_before = loadavg()
        cpu0 = cpu_seconds(bot_pid), _own_cpu(me)
        io0 = _waits()
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
            else:
                # Every member is waiting for a reply (the bot is overloaded): a member does
                # one thing at a time, so this arrival is dropped, and counted.
                result.skipped += 1
                continue
            state.busy = True
            task = asyncio.create_task(act(state))
            pending.add(task)
            task.add_done_callback(pending.discard)
        result.seconds = loop.time() - start
        await asyncio.gather(*pending, return_exceptions=True)
        result.ended_wall = time.time()
        result.bot_cpu = cpu_seconds(bot_pid) - cpu0[0]
        result.loadgen_cpu = _own_cpu(me) - cpu0[1]
        result.io_stall_s, result.steal_s = _since(io0)
        result.dispatch_late_ms = late_max * 1000
        result.load_after = loadavg()
        return result


class Load(ClickLoad):
    """The answer load: B, C, then A on a post, then the next post."""

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

    def begin(self, state: MemberState) -> tuple[str, InteractionRecord]:
        return "answer", self.click(state)


def _waits() -> tuple[float | None, float | None]:
    """What the machine has waited for so far: the disk, and CPU taken by the hypervisor."""
    return io_stall_seconds(), cpu_steal_seconds()


def _since(before: tuple[float | None, float | None]) -> tuple[float | None, float | None]:
    """`_waits` over a phase that started with `before`."""
    now = _waits()
    return (
        None if now[0] is None or before[0] is None else now[0] - before[0],
        None if now[1] is None or before[1] is None else now[1] - before[1],
    )


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
