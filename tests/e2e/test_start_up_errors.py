"""A token Discord refuses ends `quizbot run` and `quizbot sync` with one line, exit 1.

fakediscord answers 401 to a wrong `Authorization: Bot ...` header, as Discord does.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fakediscord import DiscordEmulator
from fakediscord.process import BotProcess

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
