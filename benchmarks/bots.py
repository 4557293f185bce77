"""Starting the bots a benchmark measures, each as a subprocess pointed at the emulator.

A quiz bot comes from a `BotSource`: this checkout, or another source tree (`--bot-src`, e.g.
a git worktree of an older commit) whose `bot` package is put first on PYTHONPATH. Every
process runs under benchmarks/bot_process.py, run as a script so that it is the source's
`bot` that gets imported, not this checkout's.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fakediscord import BotProcess, DiscordEmulator

REPO_ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = Path(__file__).resolve().with_name("bot_process.py")


@dataclass(frozen=True)
class BotSource:
    """A source tree holding a `bot` package (and its `content/`), and the database engine
    its bot runs on in this benchmark ("sqlite" or "postgresql")."""

    root: Path
    name: str
    database: str = "sqlite"

    @classmethod
    def current(cls, database: str = "sqlite") -> BotSource:
        return cls(REPO_ROOT, _named("quizbot", database), database)

    @classmethod
    def other(cls, root: Path, database: str = "sqlite") -> BotSource:
        root = root.resolve()
        if not (root / "bot" / "cli.py").is_file():
            raise SystemExit(f"--bot-src {root}: no bot/cli.py there (a quizbot source tree?)")
        return cls(root, _named(f"quizbot@{root.name}", database), database)

    @property
    def content_dir(self) -> Path:
        return self.root / "content"


def _named(name: str, database: str) -> str:
    """SQLite, the default, goes unnamed (as in earlier reports)."""
    return name if database == "sqlite" else f"{name}[{database}]"


def quiz_bot_env(
    db_path: Path, content_dir: Path, *, probe: bool = True, database_url: str | None = None
) -> dict[str, str]:
    """`database_url` (e.g. a PostgreSQL database) instead of the SQLite file `db_path`
    (whose name the content cache borrows either way)."""
    env = {
        "DATABASE_URL": database_url or f"sqlite:///{db_path}",
        "CONTENT_DIR": str(content_dir),
        "CONTENT_CACHE": str(db_path.with_name(db_path.stem + "-content-cache.pickle")),
        "LOG_LEVEL": "INFO",
    }
    if probe:
        env["QUIZBOT_LOOP_LAG_PROBE"] = "1"
    return env


def launched(
    emulator: DiscordEmulator,
    source: BotSource,
    args: Sequence[str],
    env: dict[str, str],
    log_path: Path,
) -> BotProcess:
    """`python benchmarks/bot_process.py ARGS` with `source`'s `bot` first on the path. The
    working directory is the source tree, as an operator's would be."""
    return BotProcess.for_emulator(
        emulator,
        log_path=log_path,
        extra_env=env,
        args=args,
        cwd=source.root,
        python_path=[source.root],
        script=LAUNCHER,
    )


def quiz_bot_process(
    emulator: DiscordEmulator,
    source: BotSource,
    env: dict[str, str],
    log_path: Path,
    *,
    diagnostics: Sequence[str] = (),
) -> BotProcess:
    return launched(emulator, source, ["bot", *diagnostics], env, log_path)


def floor_process(
    emulator: DiscordEmulator, log_path: Path, *, diagnostics: Sequence[str] = ()
) -> BotProcess:
    env = {"QUIZBOT_LOOP_LAG_PROBE": "1"}
    return launched(emulator, BotSource.current(), ["floor", *diagnostics], env, log_path)


def durable_floor_process(
    emulator: DiscordEmulator, log_path: Path, db_path: Path, *, diagnostics: Sequence[str] = ()
) -> BotProcess:
    """The floor that commits each answer to `db_path` before replying (durable_floor.py)."""
    env = {"QUIZBOT_LOOP_LAG_PROBE": "1"}
    args = ["durable-floor", "--db", str(db_path), *diagnostics]
    return launched(emulator, BotSource.current(), args, env, log_path)


async def run_to_end(proc: BotProcess, timeout: float, what: str) -> None:  # noqa: ASYNC109
    """Run a short-lived process to its end, awaited: the emulator it talks to lives in this
    event loop. Fails with the process's output on a non-zero exit."""
    with proc.log_path.open("wb") as out:
        child = await asyncio.create_subprocess_exec(
            *proc.argv, cwd=proc.cwd, env=proc.env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        code = await asyncio.wait_for(child.wait(), timeout)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    if code != 0:
        raise RuntimeError(f"{what} failed ({code}):\n{proc.log_tail()}")


async def prepare_db(
    emulator: DiscordEmulator,
    source: BotSource,
    env: dict[str, str],
    guild_id: int,
    log: Path,
    review_cards: Path | None = None,
) -> None:
    """A fresh database, made by `source`'s own store, whose guild posts without a cooldown
    (and, with `review_cards`, the due review cards that file lists)."""
    args = ["prepare-db", "--guild", str(guild_id)]
    if review_cards is not None:
        args += ["--review-cards", str(review_cards)]
    proc = launched(emulator, source, args, env, log)
    await run_to_end(proc, 60, f"{source.name}: prepare-db")


async def sync_commands(
    emulator: DiscordEmulator, source: BotSource, env: dict[str, str], guild_id: int, log: Path
) -> None:
    """`quizbot sync --guild` against the emulator, as an operator would run it."""
    proc = BotProcess.for_emulator(
        emulator,
        "bot",
        log_path=log,
        extra_env=env,
        args=["sync", "--guild", str(guild_id)],
        cwd=source.root,
        python_path=[source.root],
    )
    await run_to_end(proc, 60, f"{source.name}: quizbot sync")
