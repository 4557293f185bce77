"""The process a benchmark runs a bot in: `python benchmarks/bot_process.py WHICH ...`.

Run as a script, not with `-m`: `python -m` would put the working directory first on sys.path,
and `bot` must come from PYTHONPATH, which may name another source tree (`--bot-src`, an older
checkout) than the one holding this file. So this module imports nothing from `benchmarks`
(except for the durable floor, which always runs from this checkout); of quizbot it uses only
`bot.cli.main` and `bot.store`, which every version has.

- `bot`: `quizbot run`, as an operator starts it. The loop-lag probe is the product's own
  (QUIZBOT_LOOP_LAG_PROBE), and so is gc.freeze() after setup.
- `floor`: fakediscord's floor bot (it starts the same probe under the same variable).
- `durable-floor --db FILE`: the floor bot that commits each answer to FILE before its reply
  (benchmarks/durable_floor.py).
- `prepare-db --guild ID`: a fresh database whose guild posts without a cooldown, as a
  moderator would set it; done by the bot version under test, whose schema it is. With
  `--review-cards FILE` (benchmarks/review_load.py writes it) every listed member also gets a
  due review card for every listed task: the card a miss at `missed_at` leaves
  (`bot.quiz.review.review`, AGAIN), saved by `save_cards` (`bot.store.answers`).

Diagnostics that only observe: `--gc-log` (collector pauses of 5 ms and more; `types` also
names what the cyclic garbage is made of, at exit) and `--profile FILE` (cProfile).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import cProfile
import gc
import json
import logging
import os
import sys
import time
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

GC_PAUSE_MS = 5.0

gc_log = logging.getLogger("benchmarks.gc")


def log_gc_pauses(*, types: bool) -> None:
    started = 0.0

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        nonlocal started
        if phase == "start":
            started = time.perf_counter()
        elif (ms := (time.perf_counter() - started) * 1000) >= GC_PAUSE_MS:
            gc_log.warning(
                "gc-pause gen=%d ms=%.1f collected=%d", info["generation"], ms, info["collected"]
            )

    gc.callbacks.append(on_gc)
    if types:
        # Keep what the collector frees and name the commonest types at exit: what makes the
        # cyclic garbage. Memory grows for the whole run: for short diagnostic runs only.
        gc.set_debug(gc.DEBUG_SAVEALL)
        atexit.register(_print_garbage_types)


def _print_garbage_types() -> None:
    gc.collect()
    counts = Counter(type(o).__qualname__ for o in gc.garbage)
    print("gc-garbage", len(gc.garbage), counts.most_common(40), file=sys.stderr)


def say_which_bot() -> None:
    """One line naming the source tree the bot was imported from (for `--bot-src` runs)."""
    import bot

    where = Path(bot.__file__).resolve().parent.parent
    version = getattr(bot, "__version__", "?")
    print(f"bot-process: quizbot {version} from {where}", file=sys.stderr, flush=True)


def run_quiz_bot(profile: Path | None) -> int:
    from bot.cli import main

    say_which_bot()
    if profile is None:
        return main(["run"])
    profiler = cProfile.Profile()
    try:
        return profiler.runcall(main, ["run"])
    finally:
        profiler.dump_stats(profile)


def run_floor_bot() -> int:
    import discord
    from fakediscord import floor_bot

    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(floor_bot.main())
    return 0


def run_durable_floor_bot(db_path: Path) -> int:
    import discord

    from benchmarks import durable_floor

    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(durable_floor.main(db_path))
    return 0


def prepare_db(guild_id: int, review_cards: Path | None = None) -> int:
    from bot.store import Store, make_engine

    say_which_bot()
    engine = make_engine(os.environ["DATABASE_URL"])
    try:
        store = Store(engine)
        if hasattr(store, "update_guild_config"):  # an older bot's (`--bot-src`) store
            store.update_guild_config(guild_id, cooldown_seconds=0)
        else:
            from tests.store_calls import configure

            configure(store, guild_id, cooldown_seconds=0)
        if review_cards is not None:
            seed_review_cards(store, guild_id, json.loads(review_cards.read_text()))
    finally:
        engine.dispose()
    return 0


def seed_review_cards(store: Any, guild_id: int, seeds: dict[str, Any]) -> None:
    """A due card per (user, task): the card a miss at `missed_at` left, a minute apart per
    task so that every member's queue has the same order."""
    from bot.quiz.review import ReviewRating

    try:
        from bot.quiz.review import review
    except ImportError:  # an older version under test (`--bot-src`)
        from bot.review_scheduler import review  # type: ignore[no-redef]

    try:
        from bot.store.answers import save_cards
    except ImportError:  # an older version under test (`--bot-src`)
        from bot.store.review_cards import save_cards

    missed = datetime.fromisoformat(seeds["missed_at"])
    cards = [
        review(
            None,
            ReviewRating.AGAIN,
            missed + timedelta(minutes=i),
            guild_id=guild_id,
            user_id=user_id,
            task_id=task_id,
        )
        for user_id in seeds["users"]
        for i, task_id in enumerate(seeds["tasks"])
    ]
    with store.write() as conn:
        save_cards(conn, cards)
    print(f"bot-process: seeded {len(cards)} due review cards", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bot_process.py", description=__doc__)
    sub = parser.add_subparsers(dest="which", required=True)
    for name in ("bot", "floor", "durable-floor"):
        child = sub.add_parser(name)
        child.add_argument("--gc-log", choices=["pauses", "types"])
    sub.choices["durable-floor"].add_argument("--db", type=Path, required=True)
    sub.choices["bot"].add_argument("--profile", type=Path, help="cProfile into this file")
    prepare = sub.add_parser("prepare-db")
    prepare.add_argument("--guild", type=int, required=True)
    prepare.add_argument("--review-cards", type=Path, help="JSON: users, tasks, missed_at")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.which == "prepare-db":
        return prepare_db(args.guild, args.review_cards)
    if args.gc_log:
        log_gc_pauses(types=args.gc_log == "types")
    if args.which == "floor":
        return run_floor_bot()
    if args.which == "durable-floor":
        return run_durable_floor_bot(args.db)
    return run_quiz_bot(args.profile)


if __name__ == "__main__":
    sys.exit(main())
