"""Running a bot as a subprocess against the emulator, and stopping it reliably."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .driver import Driver
    from .server import DiscordEmulator


class BotProcess:
    """A bot started as `python -m <module>` (or `python <script>`); its stdout and stderr go
    to `log_path`."""

    def __init__(
        self,
        module: str,
        *,
        env: Mapping[str, str],
        log_path: Path,
        args: Sequence[str] = (),
        cwd: Path | None = None,
        script: Path | None = None,
    ) -> None:
        self.module = module if script is None else script.name
        target = ["-m", module] if script is None else [str(script)]
        self.argv = [sys.executable, *target, *args]
        self.env = dict(env)
        self.log_path = log_path
        self.cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None

    @classmethod
    def for_emulator(
        cls,
        emulator: DiscordEmulator,
        module: str = "fakediscord.floor_bot",
        *,
        log_path: Path,
        extra_env: Mapping[str, str] | None = None,
        args: Sequence[str] = (),
        cwd: Path | None = None,
        python_path: Sequence[Path] = (),
        script: Path | None = None,
    ) -> BotProcess:
        """The bot's environment: ours, pointed at `emulator`, plus `extra_env`.

        `python_path` goes in front of PYTHONPATH, e.g. another source tree whose `bot` should
        be imported instead of the installed one. `cwd` defaults to ours; note that
        `python -m` also puts the working directory first on the child's sys.path.
        """
        env = dict(os.environ)
        env.update(emulator.bot_env())
        paths = [str(p) for p in python_path]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [*paths, env.get("PYTHONPATH")]))
        env["PYTHONUNBUFFERED"] = "1"
        env.update(extra_env or {})
        return cls(module, env=env, log_path=log_path, args=args, cwd=cwd, script=script)

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def start(self) -> BotProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            # The child keeps its own copy of the descriptor; ours can close right away.
            self._proc = subprocess.Popen(
                self.argv, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        return self

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "<no log>"
        return "\n".join(text.splitlines()[-lines:])

    async def wait_until_ready(self, driver: Driver, timeout: float = 20.0) -> None:  # noqa: ASYNC109
        """driver.wait_for_ready(), but fail at once (with the log) if the process dies."""
        ready = asyncio.ensure_future(driver.wait_for_ready(timeout))
        try:
            while not ready.done():
                if self.returncode is not None:
                    raise RuntimeError(
                        f"{self.module} exited with {self.returncode} before READY:\n"
                        f"{self.log_tail()}"
                    )
                await asyncio.wait({ready}, timeout=0.05)
            try:
                ready.result()
            except TimeoutError as exc:
                raise TimeoutError(f"{exc}\n--- {self.module} log ---\n{self.log_tail()}") from None
        finally:
            ready.cancel()

    async def stop(self, grace: float = 5.0) -> int | None:
        """SIGTERM, then SIGKILL after `grace` seconds. Returns the exit code."""
        proc = self._proc
        if proc is None:
            return None
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            if not await _wait_exit(proc, grace):
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await _wait_exit(proc, grace)
        return proc.poll()


async def _wait_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:  # noqa: ASYNC109
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while proc.poll() is None:
        if loop.time() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True
