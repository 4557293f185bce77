"""What the Elo rating update adds to an answer click's CPU (issue 31: under 10%).

    python -m benchmarks.rating_cost [--rounds 20] [--clicks 200] [--tasks 300] [--members 200]
                                     [--batch 1 [--one-post]]

One process, one SQLite file (WAL, `synchronous=FULL`, as the bot runs it). Each click is a
member's first try at a channel post (`--members` members meet `--tasks` tasks, each pair once,
in a shuffled order: most clicks update both ratings' rows rather than add them), written as
the service writes a lone answer (`Store.commit_group`; `--batch N`: N answers a transaction,
as in a burst; `--one-post`: a batch's answers are N members' on one post, a burst after a
quiz is posted). Two modes, interleaved round by round (the first alternating), so the
machine's load falls on both alike: `with` is the code as it is; `without` skips the rating
(`answers._rates` answers False: the progress read without the rating rows and no first try
rated, the unit as before issue 31, plus a call an answer). CPU is
the writer thread's (`time.thread_time`: SQLite runs in it, and the commit's writes are its
system time; waiting for the disk is not CPU). Also times `answers.rate_first_tries` alone
(the update and its two upserts, before the commit; the read is part of the progress read).
Prints each mode's median µs
per click over the rounds, the ratio, and the rounds' spread.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection

from benchmarks.machine import loadavg, machine_info
from bot.store import AnswerRequest, Store, answers, make_engine
from tests.factories import choice
from tests.store_calls import create_post

GUILD, CHANNEL = 1, 10
NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--clicks", type=int, default=200, help="clicks per mode and round")
    parser.add_argument("--tasks", type=int, default=300)
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--batch", type=int, default=1, help="answers per transaction")
    parser.add_argument("--one-post", action="store_true", help="a batch's answers are on one post")
    args = parser.parse_args()
    print(machine_info())
    real = answers._rates
    rate = answers.rate_first_tries
    in_rate = [0.0, 0]  # seconds in `rate_first_tries`, clicks it rated (the `with` rounds)

    def timed_rate(
        conn: Connection, tries: Sequence[answers.FirstTry], known: answers.KnownRatings
    ) -> None:
        t0 = time.thread_time()
        rate(conn, tries, known)
        in_rate[0] += time.thread_time() - t0
        in_rate[1] += len(tries)

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'quizbot.db'}")
        store = Store(engine)
        posts = [
            create_post(store, GUILD, CHANNEL, choice(f"t{n}", texts=("a", "b")), now=NOW).id
            for n in range(args.tasks)
        ]
        pairs = [(user, post) for user in range(1, args.members + 1) for post in posts]
        random.Random(31).shuffle(pairs)
        needed = (2 * args.rounds + 1) * args.clicks
        if needed > len(pairs):
            parser.error(f"{needed:,} clicks need more than {args.members} × {args.tasks} pairs")
        if args.one_post:
            # Each post's members in bursts of `--batch`, the bursts shuffled.
            bursts: list[list[tuple[int, int]]] = []
            for post in posts:
                users = list(range(1, args.members + 1))
                random.Random(post).shuffle(users)
                bursts += [
                    [(user, post) for user in users[start : start + args.batch]]
                    for start in range(0, len(users) - args.batch + 1, args.batch)
                ]
            random.Random(31).shuffle(bursts)
            pairs = [pair for burst in bursts for pair in burst]
        fresh = iter(pairs)

        def clicks(count: int) -> float:
            """µs of the writer thread's CPU per click, over `count` first tries."""
            spent = 0.0
            for _ in range(0, count, args.batch):
                batch = []
                for _each in range(args.batch):
                    user, post = next(fresh)
                    pick = ("A",) if (user + post) % 3 else ("B",)
                    batch.append(AnswerRequest(post, GUILD, user, f"m{user}", pick))
                t0 = time.thread_time()
                store.commit_group(batch, NOW, [])
                spent += time.thread_time() - t0
            return spent / (count // args.batch * args.batch) * 1e6

        clicks(args.clicks)  # warm-up: statements built, caches filled
        answers.rate_first_tries = timed_rate  # type: ignore[assignment]
        per_mode: dict[str, list[float]] = {"with": [], "without": []}
        for round_no in range(args.rounds):
            order = ("with", "without") if round_no % 2 == 0 else ("without", "with")
            for mode in order:
                answers._rates = real if mode == "with" else (lambda _: False)  # type: ignore[assignment]
                try:
                    per_mode[mode].append(clicks(args.clicks))
                finally:
                    answers._rates = real  # type: ignore[assignment]
        answers.rate_first_tries = rate  # type: ignore[assignment]
        engine.dispose()
    base = statistics.median(per_mode["without"])
    rated = statistics.median(per_mode["with"])
    print(
        f"load {loadavg()}; {args.rounds} rounds × {args.clicks} clicks per mode,"
        f" {args.batch} per transaction{' (one post)' if args.one_post else ''}"
    )
    for mode, values in per_mode.items():
        print(
            f"{mode:>8}: median {statistics.median(values):,.0f} µs per click"
            f" (rounds: {min(values):,.0f}–{max(values):,.0f})"
        )
    ratios = [w / wo for w, wo in zip(per_mode["with"], per_mode["without"], strict=True)]
    spread = f"{min(ratios):.3f}–{max(ratios):.3f}, median {statistics.median(ratios):.3f}"
    print(
        f"rating added {rated - base:+,.0f} µs per click: {rated / base:.3f}× the unit's CPU"
        f" (round ratios {spread})"
    )
    print(
        f"   of it in answers.rate_first_tries (update, two upserts; before the commit):"
        f" {in_rate[0] / max(in_rate[1], 1) * 1e6:,.0f} µs per rated click"
    )


if __name__ == "__main__":
    main()
