"""`quizbot health`: is the bot serving? The running bot keeps a small status file (the gateway's
state and when it was last seen); this module writes and reads it, and checks the database, so
a health check needs neither Discord nor the bot's process."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from bot.host_errors import HostError
from bot.store.db import sqlite_file
from bot.store.preflight import check_readable

HEARTBEAT_SECONDS: Final = 20.0
"""How often the running bot rewrites its status, connected or not."""
STALE_AFTER_SECONDS: Final = 90.0
"""A status older than this is a bot that stopped writing it (killed, or hung): not healthy."""


def default_status_path(database_url: str, shard_ids: str | None) -> Path:
    """In the temp folder, named after the database and the shards, so two bots on one host
    (or two shard processes) never share one, and `run` and `health` agree without a setting."""
    file = sqlite_file(database_url)
    database = str(file.resolve()) if file is not None else database_url
    key = hashlib.sha256(f"{database}\0{shard_ids or ''}".encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"quizbot-health-{key}.json"


@dataclass(frozen=True)
class GatewayStatus:
    connected: bool
    at: datetime
    state: str  # "starting", "connected", "disconnected", "closed": said back by `health`

    def to_json(self) -> str:
        return json.dumps(
            {"connected": self.connected, "at": self.at.isoformat(), "state": self.state}
        )


def write_status(path: Path, status: GatewayStatus) -> None:
    """Replace the file whole (a reader never sees half of it); a failure is the caller's to
    log: the bot serves on without it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(status.to_json())
        Path(temp).replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            Path(temp).unlink()
        raise


def gateway_problem(path: Path, now: datetime) -> str | None:
    """Why the status file does not show a connected bot, or None if it does."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        at = datetime.fromisoformat(data["at"])
        connected, state = bool(data["connected"]), str(data["state"])
    except FileNotFoundError:
        return f"no status at {path}: the bot is not running (or HEALTH_FILE differs)"
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"cannot read the status at {path} ({exc})"
    age = (now - at).total_seconds()
    if age > STALE_AFTER_SECONDS:
        return f"the bot's status is {age:.0f} s old: it stopped or hangs"
    if not connected:
        return f"the gateway is not connected ({state} {age:.0f} s ago)"
    return None


def check_health(database_url: str, status_path: Path, now: datetime | None = None) -> str | None:
    """One line saying what is wrong, or None when the database answers and the gateway is
    connected."""
    try:
        check_readable(database_url)
    except HostError as exc:
        return f"the database does not answer: {exc.problem}"
    return gateway_problem(status_path, now or datetime.now(UTC))
