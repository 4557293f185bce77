"""Load benchmark: the real bot answering button clicks, against the floor bots, same emulator.

    python -m benchmarks.load                       # 200 members, 10 s closed + 10 s open loop
    python -m benchmarks.load --members 200 --closed-seconds 10 --rate 300 --open-seconds 10
    python -m benchmarks.load --rounds 2 --markdown out.md   # alternate the bots twice, pooled
    python -m benchmarks.load --no-durable-floor    # the plain floor only (no database)
    python -m benchmarks.load --bot-src /tmp/quizbot-0.1.0   # before vs after, in one run
    python -m benchmarks.load --scenario review     # /review sittings (benchmarks/review_load.py)
    python -m benchmarks.load --database sqlite --database postgresql   # both engines
    python -m benchmarks.load --processes 2                  # 2 shard processes vs 1, PostgreSQL

One run:

1. Starts the emulator (fakediscord) in this process: a guild, N members and a poster.
2. Starts the quiz bot as a subprocess (`quizbot run` under benchmarks/bot_process.py): a fresh
   SQLite file in a temp dir, the source tree's content/, LOG_LEVEL=INFO and
   QUIZBOT_LOOP_LAG_PROBE=1. The guild's posting cooldown is set to 0 by the bot's own store,
   the slash commands are registered with `quizbot sync --guild`, and enough quizzes of task
   mlops-parallelism-mc-1 (answer A) are posted with /quiz that no member runs out.
3. Closed loop, then open loop (benchmarks/load_phases.py).
4. Stops the bot (SIGTERM). With `--bot-src DIR` (repeatable), does 2 and 3 for the bot of
   that source tree as well (e.g. a git worktree of an older commit), on its own database and
   posts. Then does 3 with fakediscord's floor bot (bare discord.py, a constant ephemeral
   reply) on the first bot's posts, and again with the durable floor
   (benchmarks/durable_floor.py: the floor bot that commits each answer to SQLite, WAL and
   `synchronous=FULL`, before replying; `--no-durable-floor` leaves it out).

Reported per bot and phase: answers/s; latency p50/p95/p99; the bot process's CPU per answer
(a figure that survives a noisy machine) and the harness's; the maximum event-loop lag inside
the bot (bot.discord_ui.loop_lag's lines; the floor runs the same probe); the bot's peak RSS
(psutil, every 50 ms). Then throughput and p99 as ratios to the floor's and to the durable
floor's (the least a bot that acknowledges answers durably must do), and with `--bot-src`
this checkout's bot against the other's. The harness's garbage collector is off while a phase
is measured.

PostgreSQL (issue 12): `--database postgresql` runs the bot on a throwaway PostgreSQL 15
server that the run starts (tests/pg_server.py), durable as in production (fsync,
synchronous_commit and full_page_writes on), each bot on an empty database its own store
migrates; repeat the option (`--database sqlite --database postgresql`) for both engines in one
run, as variants. `--processes 2` runs two bot processes, one shard each (SHARD_COUNT=2,
SHARD_IDS=0 / 1), on one PostgreSQL database against one process on another, with the members
split over two servers, one on each shard (benchmarks/load_shards.py).

Diagnostics, which only observe: `--gc-log[=types]`, `--profile FILE` (cProfile),
`--py-spy PATH` (py-spy on the thread holding the GIL).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import sys
import tempfile
from pathlib import Path

from benchmarks.load_report import report
from benchmarks.load_run import Options, run_benchmark
from benchmarks.load_setup import ANSWERS, SCENARIOS
from benchmarks.load_shards import run_sharded
from benchmarks.machine import loadavg, machine_info
from tests.pg_server import throwaway_server

PG_SETTINGS = {"shared_buffers": "128MB"}
"""PostgreSQL's own default (the tests' server has less)."""


def parse_args(argv: list[str] | None = None) -> tuple[Options, argparse.Namespace]:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.load",
        description="Closed- and open-loop answer load on the quiz bot and the floor bot.",
    )
    add = parser.add_argument
    add(
        "--scenario",
        choices=SCENARIOS,
        default=ANSWERS,
        help="answers: the posts' answer buttons (against the floor); review: /review sittings "
        "(/review, wrong, wrong, right and Next per due task; no floor)",
    )
    add("--members", type=int, default=200, help="simulated members (the closed loop's N)")
    add("--closed-seconds", type=float, default=10.0, help="measured closed-loop time (0: skip)")
    add("--warmup", type=float, default=2.0, help="closed-loop warm-up, not measured")
    add("--rate", type=float, default=300.0, help="open-loop answers/s (Poisson arrivals)")
    add("--open-seconds", type=float, default=10.0, help="open-loop time (0: skip)")
    add("--posts", type=int, default=0, help="quizzes to post per bot (default: enough)")
    add("--seed", type=int, default=1, help="open-loop arrival seed")
    add("--rounds", type=int, default=1, help="repeat every bot this often, alternating; pooled")
    add("--skip-floor", action="store_true", help="only the quiz bot(s): neither floor")
    add(
        "--no-durable-floor",
        dest="durable_floor",
        action="store_false",
        help="leave out the durable floor (the floor bot committing each answer to SQLite "
        "before it replies, benchmarks/durable_floor.py)",
    )
    add(
        "--bot-src",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also run the quiz bot of this source tree (e.g. `git worktree add /tmp/old "
        "COMMIT`), on its own database; repeatable",
    )
    add(
        "--gc-log",
        nargs="?",
        const="pauses",
        default="",
        choices=["pauses", "types"],
        help="log the bots' garbage-collector pauses >= 5 ms (=types: also name what the "
        "cyclic garbage is made of, at exit; memory grows, short runs only)",
    )
    add("--profile", type=Path, help="cProfile this checkout's bot (first round) into this file")
    add(
        "--py-spy",
        type=Path,
        help="py-spy (pip install py-spy) each quiz bot into PATH.<bot>.txt",
    )
    add(
        "--database",
        action="append",
        choices=["sqlite", "postgresql"],
        help="the engine each quiz bot runs on (default sqlite); repeat for both, as variants",
    )
    add(
        "--processes",
        type=int,
        default=1,
        help="2 or more: that many processes, one shard each, on one PostgreSQL database, "
        "against one process (implies --database postgresql)",
    )
    add("--markdown", type=Path, help="also write the report to this file")
    add("--keep", type=Path, help="keep the databases and the bots' logs in this directory")
    args = parser.parse_args(argv)
    return Options(
        scenario=args.scenario,
        members=args.members,
        closed_seconds=args.closed_seconds,
        warmup=args.warmup,
        rate=args.rate,
        open_seconds=args.open_seconds,
        posts=args.posts,
        seed=args.seed,
        rounds=args.rounds,
        skip_floor=args.skip_floor,
        durable_floor=args.durable_floor,
        bot_src=[p.resolve() for p in args.bot_src],
        gc_log=args.gc_log,
        profile=args.profile.resolve() if args.profile else None,
        py_spy=args.py_spy.resolve() if args.py_spy else None,
        workdir=args.keep.resolve() if args.keep else Path(),
        databases=["postgresql"] if args.processes > 1 else args.database or ["sqlite"],
        processes=args.processes,
    ), args


def main(argv: list[str] | None = None) -> int:
    opts, args = parse_args(argv)
    opts.sources()  # a wrong --bot-src fails here, before anything starts
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        if args.keep is not None:
            opts.workdir.mkdir(parents=True, exist_ok=True)
        else:
            opts.workdir = Path(
                stack.enter_context(tempfile.TemporaryDirectory(prefix="quizbot-load-"))
            )
        if "postgresql" in opts.databases:
            server = stack.enter_context(throwaway_server(durable=True, settings=PG_SETTINGS))
            opts.new_database = functools.partial(server.new_database, empty=True)
            opts.db_server_pid = server.postmaster_pid()
            print(f"PostgreSQL: durable throwaway server, {PG_SETTINGS}", flush=True)
        run = run_sharded if opts.processes > 1 else run_benchmark
        runs, info = asyncio.run(run(opts))
    text = report(runs, info, opts)
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
