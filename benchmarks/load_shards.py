"""Several quiz bot processes, one shard each, on one PostgreSQL database (`load.py --processes N`).

The members are split over N servers, one on each shard (`bot.sharding.shard_of`), each server
with its own channel and posts; a member answers only its own server's posts. The same load
(benchmarks/load_phases.py) runs on:

- `quizbot ×N processes`: N processes, SHARD_COUNT=N and SHARD_IDS=i, sharing one database;
- `quizbot ×1 process`: one unsharded process serving every server, on a database of its own;
- the floor (unless --skip-floor): one process, answering the first variant's posts.

Each variant's posts are made with /quiz in every server once its processes run (each server's
/quiz reaches the process of its shard). A variant's CPU is the sum over its processes, its
peak RSS the largest process's, its loop lag the worst of them. The variants alternate over
`rounds`, pooled, as in load_run.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakediscord import (
    BotProcess,
    DiscordEmulator,
    Driver,
    Guild,
    InteractionRecord,
    Member,
    Message,
)

from benchmarks.bots import (
    BotSource,
    floor_process,
    prepare_db,
    quiz_bot_env,
    quiz_bot_process,
    sync_commands,
)
from benchmarks.load_phases import Load, MemberState, post_id_of
from benchmarks.load_run import BotRun, GcWatch, Options, run_phases
from benchmarks.load_setup import ANSWERS, create_posts, posts_needed, slug
from benchmarks.machine import RssSampler, loadavg
from bot.sharding import shard_of


@dataclass
class Server:
    guild: Guild
    poster: Member
    members: list[Member]


def servers_on_each_shard(d: Driver, count: int, members: int) -> list[Server]:
    """A server on each of `count` shards (ids carry the millisecond, which picks the shard),
    with a poster and the members dealt out in turn."""
    found: dict[int, Guild] = {}
    while len(found) < count:
        guild = d.create_guild(f"Load {len(found)}")
        found.setdefault(shard_of(guild.id, count), guild)
        time.sleep(0.002)
    servers = [Server(found[n], d.add_member(found[n], "poster"), []) for n in range(count)]
    for i in range(members):
        server = servers[i % count]
        server.members.append(d.add_member(server.guild, f"member{i}"))
    return servers


class ShardedLoad(Load):
    """The load over several servers: each member clicks through its own server's posts."""

    def __init__(self, driver: Driver, posts: dict[int, list[Message]], servers: list[Server]):
        super().__init__(
            driver,
            [p for s in servers for p in posts[s.guild.id]],
            [m for s in servers for m in s.members],
        )
        self.total_posts = len(self.posts)
        by_member = {state.member.id: state for state in self.members}
        self._own: dict[int, tuple[list[Message], list[int]]] = {}
        for server in servers:
            own = posts[server.guild.id]
            ids = [post_id_of(p) for p in own]
            for i, member in enumerate(server.members):
                self._own[member.id] = (own, ids)
                by_member[member.id].post = i % len(own)

    def click(self, state: MemberState) -> InteractionRecord:
        # The base class walks `posts`: give it this member's server's, then let it click.
        self.posts, self.post_ids = self._own[state.member.id]
        return super().click(state)


@dataclass
class Variant:
    name: str
    processes: int
    """Shard processes; 0: one unsharded process (the ×1 variant, or the floor)."""
    floor: bool = False
    env: dict[str, str] = field(default_factory=dict)
    load: ShardedLoad | None = None
    posting_seconds: float = 0.0

    def launch(self, emulator: DiscordEmulator, logs: Path, round_no: int) -> list[BotProcess]:
        stem = f"{slug(self.name).replace(' ', '')}-{round_no}"
        if self.floor:
            return [floor_process(emulator, logs / f"{stem}.log")]
        source = BotSource.current("postgresql")
        if not self.processes:
            return [quiz_bot_process(emulator, source, self.env, logs / f"{stem}.log")]
        return [
            quiz_bot_process(
                emulator,
                source,
                {**self.env, "SHARD_COUNT": str(self.processes), "SHARD_IDS": str(n)},
                logs / f"{stem}-shard{n}.log",
            )
            for n in range(self.processes)
        ]


async def start_all(emulator: DiscordEmulator, procs: list[BotProcess]) -> None:
    """Start the processes one after another; return once every one has its gateway session
    ready (a process that dies first fails at once, with its log)."""
    d = emulator.driver
    for proc in procs:
        before = d.identify_count
        proc.start()
        waiter = asyncio.ensure_future(d.wait_for_identify(before + 1, 60))
        try:
            while not waiter.done():
                if proc.returncode is not None:
                    raise RuntimeError(f"bot exited with {proc.returncode}:\n{proc.log_tail()}")
                await asyncio.wait({waiter}, timeout=0.05)
            waiter.result()
        finally:
            waiter.cancel()

    def ready() -> bool:
        live = [s for s in emulator.gateway.active if s.ready and s.conn is not None]
        return len(live) >= len(procs)

    await d.world.changed.wait_for(ready, 60, f"{len(procs)} ready sessions")


async def measure(
    emulator: DiscordEmulator,
    variant: Variant,
    procs: list[BotProcess],
    opts: Options,
    load_for: Any,
) -> BotRun:
    run = BotRun(variant.name)
    samplers: list[RssSampler] = []
    try:
        await start_all(emulator, procs)
        pids = [p.pid for p in procs if p.pid is not None]
        samplers = [RssSampler(pid).start() for pid in pids]
        load: Load = await load_for()
        measured = opts.measured(pids, "sqlite" if variant.floor else "postgresql")
        await run_phases(run, load, measured, opts)
    finally:
        for sampler in samplers:
            sampler.sample()
            await sampler.stop()
        run.peak_rss = max((s.peak for s in samplers), default=0)
        for proc in procs:
            code = await proc.stop(grace=10)
            if code not in (0, -15, None):
                print(
                    f"warning: {variant.name} exited with {code}:\n{proc.log_tail()}",
                    file=sys.stderr,
                )
    logs = "\n".join(p.log_path.read_text(errors="replace") for p in procs if p.log_path.exists())
    run.read_lag(logs)
    return run


async def run_sharded(opts: Options) -> tuple[list[BotRun], dict[str, Any]]:
    """The variants above in turn under one emulator; the runs and what load_report needs."""
    if opts.bot_src or opts.scenario != ANSWERS:
        raise SystemExit("--processes: this checkout's bot, answers scenario only")
    info: dict[str, Any] = {"load_start": loadavg()}
    count = opts.processes
    emulator = DiscordEmulator(max_retained_interactions=20_000, ephemeral_per_user=20)
    gc_watch = GcWatch()
    gc.callbacks.append(gc_watch)
    async with emulator:
        d = emulator.driver
        servers = servers_on_each_shard(d, count, opts.members)
        variants = [
            Variant(f"quizbot[postgresql] ×{count} processes", count),
            Variant("quizbot[postgresql] ×1 process", 0),
        ]
        source = BotSource.current("postgresql")
        per_server = -(-opts.members // count)
        posts = posts_needed(
            runs=opts.rounds * 2,  # the floor clicks the first variant's posts too
            members=per_server,
            closed_seconds=opts.closed_seconds,
            warmup=opts.warmup,
            rate=opts.rate / count,
            open_seconds=opts.open_seconds,
        )
        posts = opts.posts or posts
        for variant in variants:
            url = opts.database_url(source)
            db_path = opts.workdir / f"{slug(variant.name).replace(' ', '')}.db"
            variant.env = quiz_bot_env(db_path, source.content_dir, database_url=url)
            for server in servers:
                log = opts.workdir / f"{slug(variant.name)}-prepare-{server.guild.id}.log"
                await prepare_db(emulator, source, variant.env, server.guild.id, log)
        channels = {
            (variant.name, server.guild.id): d.create_text_channel(
                server.guild, "quiz-" + slug(variant.name).replace(" ", "")
            )
            for variant in variants
            for server in servers
        }
        if not opts.skip_floor:
            variants.append(Variant("floor", 0, floor=True))

        async def load_for(variant: Variant) -> ShardedLoad:
            if variant.floor:
                variant = variants[0]
                assert variant.load is not None, "the floor runs after the first variant"
            if variant.load is None:
                t0 = time.monotonic()
                made: dict[int, list[Message]] = {}
                for server in servers:
                    log = opts.workdir / f"{slug(variant.name)}-sync-{server.guild.id}.log"
                    await sync_commands(emulator, source, variant.env, server.guild.id, log)

                async def make(server: Server) -> None:
                    channel = channels[(variant.name, server.guild.id)]
                    made[server.guild.id] = await create_posts(d, channel, server.poster, posts)

                await asyncio.gather(*(make(s) for s in servers))
                variant.posting_seconds = time.monotonic() - t0
                variant.load = ShardedLoad(d, made, servers)
            return variant.load

        gc.collect()
        gc.freeze()
        runs: dict[str, BotRun] = {}
        for round_no in range(opts.rounds):
            for variant in variants:
                procs = variant.launch(emulator, opts.workdir, round_no)
                print(f"round {round_no + 1}: {variant.name} (load {loadavg()})", flush=True)

                async def ready(variant: Variant = variant) -> ShardedLoad:
                    return await load_for(variant)

                run = await measure(emulator, variant, procs, opts, ready)
                if variant.name in runs:
                    runs[variant.name].merge(run)
                else:
                    runs[variant.name] = run
        info["posts"] = {v.name: v.load and v.load.total_posts for v in variants if not v.floor}
        info["posting_seconds"] = sum(v.posting_seconds for v in variants)
        info["wrapped"] = sum(v.load.wrapped for v in variants if v.load and not v.floor)
        info["late_callbacks"] = d.late_callbacks
        info["unknown_routes"] = [str(r) for r in emulator.unknown_routes]
        info["servers"] = [(s.guild.id, shard_of(s.guild.id, count)) for s in servers]
    gc.callbacks.remove(gc_watch)
    info["harness_gc"] = gc_watch
    info["load_end"] = loadavg()
    return list(runs.values()), info
