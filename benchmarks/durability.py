"""What `PRAGMA synchronous = FULL` costs the answer path, with and without the group commit.

    python -m benchmarks.durability [--members 200] [--rounds 5] [--dir PATH] [--markdown FILE]

FULL (the default, SQLITE_SYNCHRONOUS) fsyncs the WAL on every commit, so an acknowledged
answer survives a power loss; NORMAL in WAL mode fsyncs only at checkpoints. The group commit
(`QuizService`, a 2 ms window) shares one commit, and so one fsync, among the answers that
arrive together; "batch size 1" commits each answer alone (max_batch=1, no window).

Each of the four configurations (FULL/NORMAL x group commit/batch size 1) has its own SQLite
file in `--dir` and its own QuizService. A round: `--members` fresh members answer one new
post concurrently, each three times in a row (wrong, wrong, right: three graded, recorded
attempts), each answer sent when the previous one is acknowledged. After a warm-up round, the
configurations take turns for `--rounds` rounds (in a rotating order), so a busy neighbour on
a shared machine hurts them alike. Reported per configuration: answers/s over the rounds, p50
and p99 of the answer latency (from `QuizService.answer` to its acknowledgement, which comes
after the commit), p50/p99 of the write transaction alone (`Store.commit_group`, commit and
fsync included), and the mean batch size.

The database must be on the disk the bot would use: `--dir` defaults to a temporary folder in
the working directory, because /tmp is often a tmpfs, where an fsync costs nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.machine import loadavg, machine_info, pct
from bot.content import load_banks
from bot.quiz.tasks import Catalog, Kind, Task
from bot.service import QuizService
from bot.store import AnswerRequest, Group, Store, Unit, make_engine

REPO_ROOT = Path(__file__).resolve().parent.parent
GUILD, CHANNEL = 1, 10


class TimedStore(Store):
    """The real store, timing each answer transaction (commit and fsync included)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.transactions: list[float] = []
        self.batches: list[int] = []

    def commit_group(
        self, requests: Sequence[AnswerRequest], now: datetime, units: Sequence[Unit[Any]]
    ) -> Group:
        start = time.perf_counter()
        try:
            return super().commit_group(requests, now, units)
        finally:
            self.transactions.append(time.perf_counter() - start)
            self.batches.append(len(requests))


@dataclass
class Config:
    synchronous: str
    batching: str
    window: float
    max_batch: int
    service: QuizService | None = None
    store: TimedStore | None = None
    latencies: list[float] = field(default_factory=list)
    answers: int = 0
    elapsed: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.synchronous} · {self.batching}"


def choice_task(catalog: Catalog) -> Task:
    return next(t for t in catalog if t.kind is Kind.CHOICE and len(t.options) >= 3)


def picks(task: Task) -> list[tuple[str, ...]]:
    """Wrong, wrong, right: three recorded attempts."""
    wrong = [label for label in task.labels if label not in task.answers]
    return [(wrong[0],), (wrong[1],), tuple(task.answers)]


async def one_round(config: Config, task: Task, first_member: int, members: int) -> None:
    service = config.service
    assert service is not None
    posted = await service.create_post(GUILD, CHANNEL, task, None)
    post_id = posted.post.id
    sequence = picks(task)

    async def member(user: int) -> list[float]:
        taken = []
        for pick in sequence:
            start = time.perf_counter()
            await service.answer(post_id, GUILD, user, f"member{user}", pick)
            taken.append(time.perf_counter() - start)
        return taken

    start = time.perf_counter()
    results = await asyncio.gather(*(member(first_member + n) for n in range(members)))
    config.elapsed += time.perf_counter() - start
    for taken in results:
        config.latencies.extend(taken)
    config.answers += members * len(sequence)


def filesystem_of(path: Path) -> str:
    """The file system type and device `path` lies on (from /proc/mounts), if known."""
    best = ("", "unknown", "unknown")
    with contextlib.suppress(OSError):
        resolved = str(path.resolve())
        for line in Path("/proc/mounts").read_text().splitlines():
            device, mount, kind = line.split()[:3]
            inside = resolved == mount or resolved.startswith(mount.rstrip("/") + "/")
            if inside and len(mount) > len(best[0]):
                best = (mount, kind, device)
    return f"{best[1]} on {best[2]}"


async def run(args: argparse.Namespace, folder: Path) -> str:
    catalog = load_banks(REPO_ROOT / "content")
    task = choice_task(catalog)
    configs = [
        Config(sync, batching, window, max_batch)
        for sync in ("FULL", "NORMAL")
        for batching, window, max_batch in (
            ("group commit (2 ms window)", 0.002, 256),
            ("batch size 1", 0.0, 1),
        )
    ]
    for n, config in enumerate(configs):
        url = f"sqlite:///{folder / f'durability-{n}.db'}"
        engine = make_engine(url, synchronous=config.synchronous)
        config.store = TimedStore(engine)
        config.service = QuizService(
            Catalog.of([task]), config.store, batch_window=config.window, max_batch=config.max_batch
        )
        await config.service.start()
    try:
        next_member = 1
        for config in configs:  # warm-up: connections, statement caches, the first pages
            await one_round(config, task, next_member, args.members)
            next_member += args.members
        for config in configs:
            assert config.store is not None
            config.latencies.clear()
            config.store.transactions.clear()
            config.store.batches.clear()
            config.answers, config.elapsed = 0, 0.0
        load_before = loadavg()
        for r in range(args.rounds):
            for config in configs[r % len(configs) :] + configs[: r % len(configs)]:
                await one_round(config, task, next_member, args.members)
                next_member += args.members
    finally:
        for config in configs:
            if config.service is not None:
                await config.service.close()
            if config.store is not None:
                config.store.engine.dispose()
    return report(args, configs, folder, load_before, loadavg())


def report(
    args: argparse.Namespace, configs: list[Config], folder: Path, before: str, after: str
) -> str:
    info = machine_info()
    lines = [
        f"machine: {info['cores']} cores, {info['cpu']}, Python {info['python']}, "
        f"{info['date']}; database folder on {filesystem_of(folder)}; "
        f"load avg 1/5/15 {before} (start) · {after} (end)",
        f"{args.members} concurrent fresh members x 3 answers per round, {args.rounds} rounds "
        "per configuration (after a warm-up round)",
        "",
        "| synchronous · batching | answers/s | answer p50 ms | answer p99 ms "
        "| transaction p50 ms | transaction p99 ms | mean batch |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for config in configs:
        assert config.store is not None
        answers = sorted(config.latencies)
        transactions = sorted(config.store.transactions)
        lines.append(
            f"| {config.name} | {config.answers / config.elapsed:.0f} "
            f"| {pct(answers, 0.5) * 1000:.1f} | {pct(answers, 0.99) * 1000:.1f} "
            f"| {pct(transactions, 0.5) * 1000:.2f} | {pct(transactions, 0.99) * 1000:.2f} "
            f"| {statistics.fmean(config.store.batches):.1f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=None, help="where the SQLite files go")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the table here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix=".durability-", dir=args.dir or Path.cwd()) as folder:
        table = asyncio.run(run(args, Path(folder)))
    print(table)
    if args.markdown is not None:
        args.markdown.write_text(table + "\n")


if __name__ == "__main__":
    main()
