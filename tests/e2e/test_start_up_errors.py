"""Start-ups the host must fix end with one line and exit 1, before the gateway:

- a token Discord refuses, for `quizbot run` and `quizbot sync` (fakediscord answers 401 to a
  wrong `Authorization: Bot ...` header, as Discord does);
- a second `quizbot run` beside a running bot that serves the same servers: on the same
  SQLite file, or with a shard it runs on the same PostgreSQL database.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakediscord import DiscordEmulator
from fakediscord.process import BotProcess

from tests.pg_server import PgServer

from .bot_helpers import QuizBotRunner

pytestmark = pytest.mark.e2e

CONTENT_DIR = Path(__file__).resolve().parents[2] / "content"
WRONG_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.wrong-token-value"


async def quizbot(emulator: DiscordEmulator, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    """`python -m bot ARGS` against the emulator, awaited so the emulator keeps serving."""
    proc = BotProcess.for_emulator(
        emulator,
        "bot",
        log_path=tmp_path / "unused.log",
        args=args,
        extra_env={
            "DISCORD_TOKEN": WRONG_TOKEN,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'quiz.db'}",
            "CONTENT_DIR": str(CONTENT_DIR),
            "CONTENT_CACHE": "",
            "LOG_LEVEL": "ERROR",
        },
    )
    child = await asyncio.create_subprocess_exec(
        *proc.argv,
        cwd=proc.cwd,
        env=proc.env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(child.communicate(), 30)
    assert child.returncode is not None
    return child.returncode, out.decode(errors="replace"), err.decode(errors="replace")


@pytest.mark.parametrize("command", [["run"], ["sync", "--guild", "1"]])
async def test_a_refused_token_is_one_line(
    emulator: DiscordEmulator, tmp_path: Path, command: list[str]
) -> None:
    code, out, err = await quizbot(emulator, tmp_path, *command)
    assert code == 1, err
    assert "Traceback" not in err
    assert WRONG_TOKEN not in out + err
    (line,) = err.splitlines()
    assert line.startswith("quizbot: Discord refused the bot token (DISCORD_TOKEN) — ")
    assert "Reset Token" in line
    assert emulator.gateway.sessions == {}  # it stopped at the login, never reached the gateway


async def second_run(
    emulator: DiscordEmulator, first: QuizBotRunner, **env: str
) -> tuple[int, str]:
    """`quizbot run` again, with the first bot's settings but `env`: its exit code and stderr."""
    proc = BotProcess.for_emulator(
        emulator,
        "bot",
        log_path=first.workdir / "unused.log",
        args=["run"],
        extra_env=first.env() | {"LOG_LEVEL": "WARNING"} | env,
    )
    child = await asyncio.create_subprocess_exec(
        *proc.argv, cwd=proc.cwd, env=proc.env, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(child.communicate(), 60)
    assert child.returncode is not None
    return child.returncode, err.decode(errors="replace")


async def assert_refused_beside(
    emulator: DiscordEmulator, first: QuizBotRunner, expected: str, **env: str
) -> None:
    """The second process stops with one line before logging in; the first runs on."""
    await first.start()
    identified = emulator.driver.identify_count
    code, err = await second_run(emulator, first, **env)
    assert code == 1, err
    assert "Traceback" not in err
    (line,) = err.splitlines()
    assert line.startswith("quizbot: ") and expected in line, line
    assert emulator.driver.identify_count == identified
    assert first.current.returncode is None


async def test_a_second_bot_on_one_sqlite_database_is_one_line(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    first = QuizBotRunner(emulator, tmp_path)
    try:
        await assert_refused_beside(emulator, first, "another quizbot process (process ")
    finally:
        await first.stop()
    assert first.error_lines() == []


@pytest.mark.postgresql
async def test_a_shard_already_running_on_postgresql_is_one_line(
    emulator: DiscordEmulator, tmp_path: Path, pg_server: PgServer
) -> None:
    url = pg_server.new_database()
    first = QuizBotRunner(
        emulator, tmp_path, env={"SHARD_COUNT": "4", "SHARD_IDS": "0"}, database_url=url
    )
    try:
        await assert_refused_beside(
            emulator,
            first,
            "shard 0 is already running in another quizbot process on this database (SHARD_IDS)",
            SHARD_IDS="0-1",
        )
    finally:
        await first.stop()
        pg_server.drop_database(url)
    assert first.error_lines() == []
