"""The README's quick start, run as a newcomer runs it: its own commands, read from README.md,
in a fresh copy of the checkout, with a token for the emulated Discord in `.env`. The bot must
register its slash commands itself, log the invite URL, and a member must play /quiz; a
restart with no change registers nothing.

The venv the quick start creates is seeded with this environment's installed packages (a .pth
line), so `pip install -e .` finds every dependency installed and fetches only the build backend
(setuptools, from pip's configured index, as any install of the project does).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import sysconfig
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from fakediscord import DiscordEmulator, Driver

from .bot_helpers import ANSWERS, COMMANDS, STEP, is_ephemeral, reply_of, text_of

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SETTINGS = ("DATABASE_URL", "CONTENT_DIR", "CONTENT_CACHE", "HEALTH_FILE", "SHARD_COUNT")
INSTALL_TIMEOUT = 240.0
# What the bot's invite asks for: post a task (View Channel, Send Messages, Embed Links, Read
# Message History) and open a daily quiz's thread (Create Public Threads, Send Messages in Threads).
INVITE_PERMISSIONS = (1 << 10) | (1 << 11) | (1 << 14) | (1 << 16) | (1 << 35) | (1 << 38)


def quick_start(name: str) -> str:
    found = re.search(rf"<!-- quickstart:{name} -->\s*```bash\n(.+?)\n```", README.read_text())
    assert found, f"README.md has no quickstart:{name} block"
    return found.group(1)


def fresh_copy(target: Path) -> Path:
    """The checkout's files as a clone (plus uncommitted work), without its venv or data."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a deleted file still listed as cached
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def seed_venv(checkout: Path) -> None:
    """The venv the quick start will make, made first with this environment's packages on its
    path: `python3 -m venv .venv` keeps it, and `pip install -e .` then finds every dependency
    installed (pip leaves packages outside its own environment alone)."""
    subprocess.run([sys.executable, "-m", "venv", str(checkout / ".venv")], check=True)
    (site,) = (checkout / ".venv" / "lib").glob("python*/site-packages")
    (site / "zz_seeded_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")


class Shell:
    """A quick-start line run by bash in the copy, in a session of its own (so SIGTERM reaches
    the bot under it), its output in a log."""

    def __init__(self, line: str, cwd: Path, env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("wb") as out:
            self.proc = subprocess.Popen(
                ["bash", "-c", line],
                cwd=cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    async def wait_for_line(self, pattern: str, timeout: float) -> re.Match[str]:  # noqa: ASYNC109
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while (found := re.search(pattern, self.text())) is None:
            if self.proc.poll() is not None:
                raise AssertionError(f"exited with {self.proc.returncode}:\n{self.text()[-4000:]}")
            if loop.time() > deadline:
                raise TimeoutError(f"no line matching {pattern!r}:\n{self.text()[-4000:]}")
            await asyncio.sleep(0.1)
        return found

    async def stop(self) -> int | None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            for _ in range(150):
                if self.proc.poll() is not None:
                    break
                await asyncio.sleep(0.1)
            else:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture
def checkout(tmp_path: Path, emulator: DiscordEmulator) -> Path:
    copy = fresh_copy(tmp_path / "quizbot")
    seed_venv(copy)
    # The newcomer's two steps: the env block as written, then the token after DISCORD_TOKEN=.
    subprocess.run(["bash", "-c", quick_start("env")], cwd=copy, check=True)
    env_file = copy / ".env"
    text = env_file.read_text()
    assert "\nDISCORD_TOKEN=\n" in text
    env_file.write_text(text.replace("\nDISCORD_TOKEN=\n", f"\nDISCORD_TOKEN={emulator.token}\n"))
    return copy


def newcomer_env(emulator: DiscordEmulator) -> dict[str, str]:
    """A shell without quizbot's settings, but for the emulated Discord's address (the token
    comes from .env)."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS and k != "DISCORD_TOKEN"}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    return env | {
        "DISCORD_API_BASE": emulator.api_base,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PYTHONUNBUFFERED": "1",
    }


async def health(checkout: Path, env: dict[str, str]) -> tuple[int, str]:
    """`quizbot health`'s exit status and its one line of output."""
    child = await asyncio.create_subprocess_exec(
        ".venv/bin/quizbot",
        "health",
        cwd=checkout,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(child.communicate(), STEP)
    assert child.returncode is not None
    return child.returncode, out.decode().strip()


async def test_the_readme_quick_start_registers_the_commands_and_a_member_plays_quiz(
    checkout: Path, emulator: DiscordEmulator, driver: Driver, tmp_path: Path
) -> None:
    env = newcomer_env(emulator)
    first = Shell(quick_start("run"), checkout, env, tmp_path / "first.log")
    try:
        await first.wait_for_line(r"Successfully installed", INSTALL_TIMEOUT)
        await first.wait_for_line(r"slash commands: registered \d+", 60)
        commands = await driver.wait_for_commands(names=COMMANDS, timeout=STEP)
        assert {c["name"] for c in commands} >= COMMANDS
        invite = await first.wait_for_line(r"invite the bot to a server: (\S+)", 60)
        query = parse_qs(urlsplit(invite.group(1)).query)
        assert query["client_id"] == [str(driver.application_id)]
        assert query["scope"] == ["bot applications.commands"]
        assert int(query["permissions"][0]) == INVITE_PERMISSIONS

        # The newcomer adds the bot to a server with the invite's permissions; a member plays.
        guild = driver.create_guild("Study Group", with_bot=False)
        channel = driver.create_text_channel(guild, "quiz")
        member = driver.add_member(guild, "alice")
        driver.add_bot(guild, permissions=INVITE_PERMISSIONS)
        task = "mlops-parallelism-mc-1"
        confirm = await reply_of(
            driver.slash("quiz", user=member, channel=channel, options={"task": task})
        )
        assert is_ephemeral(confirm) and "Posted" in confirm["content"], confirm
        post = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
        answer = next(
            cid
            for row in post["components"]
            for button in row["components"]
            if (cid := button.get("custom_id", "")).endswith(f":{ANSWERS[task][0]}")
        )
        reply = await reply_of(driver.click_button(post, answer, user=member))
        assert "You earned **10** points" in text_of(reply), text_of(reply)
        assert await first.stop() == 0, first.text()[-3000:]
    finally:
        await first.stop()
    puts = driver.server.commands.put_count
    assert puts == 1, first.text()[-3000:]

    # Stop and start again, as the README says: nothing changed, so nothing is registered.
    again = Shell(".venv/bin/quizbot run", checkout, env, tmp_path / "again.log")
    try:
        await again.wait_for_line(
            r"slash commands: the \d+ registered with Discord are current", 60
        )
        await again.wait_for_line(r"invite the bot to a server", 60)
        # The health check compose runs, from the same folder and .env: healthy while it serves.
        code, out = await health(checkout, env)
        assert (code, out) == (0, "healthy: the database answers and the gateway is connected")
    finally:
        assert await again.stop() == 0, again.text()[-3000:]
    assert driver.server.commands.put_count == puts
    code, out = await health(checkout, env)
    assert code == 1
    assert re.fullmatch(
        r"quizbot: unhealthy: the gateway is not connected \(closed \d+ s ago\)", out
    )
    for log in (first.text(), again.text()):
        assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
