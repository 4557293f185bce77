"""The durable floor: the floor bot, plus each answer committed to SQLite before its reply.

The least any bot must do to acknowledge an answer durably: write it to a file that survives
a power cut (WAL, `synchronous=FULL`: the commit returns after the fsync) and only then reply.
Everything quizbot does above this (grading, scores, the leaderboard, its layers) is its own
cost; the disk's is not. So `benchmarks.load` reports quizbot against this bot as well as
against the plain floor (fakediscord.floor_bot, no database).

One writer thread owns the connection. It has no window: when free, it takes whatever answers
have queued meanwhile (at least one; it sleeps on an empty queue), inserts them in one
transaction, commits, and then wakes their handlers, which send the replies. Under load the
batches grow by themselves while a commit is in flight, so one fsync serves many answers, and
a lone answer waits for nothing but its own commit.

Run by benchmarks/bot_process.py (`durable-floor --db FILE`), or:
    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10 \\
        python -m benchmarks.durable_floor --db /tmp/answers.db
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import queue
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import discord
from fakediscord.floor_bot import FloorBot

from bot.discord_ui.api_base import point_discord_at

log = logging.getLogger("benchmarks.durable_floor")

SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    interaction_id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL,
    custom_id TEXT NOT NULL,
    answered_at REAL NOT NULL
)
"""
INSERT = "INSERT INTO answers VALUES (?, ?, ?, ?)"

_TRUE = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Answer:
    interaction_id: int
    user_id: int
    custom_id: str
    answered_at: float


_Pending = tuple[Answer, "asyncio.Future[None]"]


class AnswerLog:
    """Answers made durable by one writer thread; `record` returns once its answer's
    transaction has committed (and raises if the commit failed: then there is no reply)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.answers = 0
        self.commits = 0
        self._queue: queue.SimpleQueue[_Pending | None] = queue.SimpleQueue()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Opened here so that a bad path fails at start; used only by the writer thread after.
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute(SCHEMA)
        self._thread = threading.Thread(target=self._write, name="durable-floor-writer")

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread.start()

    async def record(self, answer: Answer) -> None:
        future = asyncio.get_running_loop().create_future()
        self._queue.put((answer, future))
        await future

    def close(self) -> None:
        """Commit what is queued, then stop the writer and close the file."""
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join()
        self._conn.close()

    def _write(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                return
            batch = [first]
            while True:  # whatever queued while the last commit ran: no waiting for more
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            error: Exception | None = None
            try:
                self._conn.execute("BEGIN")
                self._conn.executemany(
                    INSERT,
                    [(a.interaction_id, a.user_id, a.custom_id, a.answered_at) for a, _ in batch],
                )
                self._conn.execute("COMMIT")
                self.answers += len(batch)
                self.commits += 1
            except sqlite3.Error as exc:
                error = exc
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
            assert self._loop is not None
            self._loop.call_soon_threadsafe(_settle, [f for _, f in batch], error)


def _settle(futures: list[asyncio.Future[None]], error: Exception | None) -> None:
    """On the event loop: wake the handlers of one committed (or failed) batch."""
    for future in futures:
        if future.done():  # its handler was cancelled (the bot is closing)
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


class DurableFloorBot(FloorBot):
    """FloorBot's reply, sent only after the answer's commit."""

    def __init__(self, answers: AnswerLog, *, loop_lag_probe: bool = False) -> None:
        super().__init__(loop_lag_probe=loop_lag_probe)
        self.answers = answers

    async def setup_hook(self) -> None:
        self.answers.start(asyncio.get_running_loop())
        await super().setup_hook()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if interaction.type is not discord.InteractionType.component:
            return
        custom_id = str(interaction.data.get("custom_id", "")) if interaction.data else ""
        await self.answers.record(
            Answer(interaction.id, interaction.user.id, custom_id, time.time())
        )
        await interaction.response.send_message("ok", ephemeral=True)


async def main(db_path: Path) -> None:
    api_base = os.environ.get("DISCORD_API_BASE")
    if api_base:
        point_discord_at(api_base)
    probe = os.environ.get("QUIZBOT_LOOP_LAG_PROBE", "").strip().lower() in _TRUE
    answers = AnswerLog(db_path)
    bot = DurableFloorBot(answers, loop_lag_probe=probe)
    loop = asyncio.get_running_loop()
    # SIGTERM closes the gateway cleanly (code 1000) so the emulator ends the session.
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    try:
        async with bot:
            await bot.start(os.environ["DISCORD_TOKEN"])
    finally:
        answers.close()
        log.info(
            "durable-floor: %d answers in %d commits (%.1f per commit)",
            answers.answers,
            answers.commits,
            answers.answers / max(answers.commits, 1),
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.durable_floor")
    parser.add_argument("--db", type=Path, required=True, help="the SQLite file (made if absent)")
    return parser.parse_args(argv)


if __name__ == "__main__":
    discord.utils.setup_logging(level=logging.INFO)
    asyncio.run(main(parse_args().db))
