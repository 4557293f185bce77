"""Discord-style snowflake ids and timestamps."""

from __future__ import annotations

import time
from datetime import UTC, datetime

DISCORD_EPOCH_MS = 1_420_070_400_000


class SnowflakeGenerator:
    """Time-based, strictly increasing snowflakes.

    They must be time-based, not a plain counter: discord.py derives `created_at` and an
    interaction's 15-minute expiry from the id, so a counter would make every interaction
    look expired in 2015.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        candidate = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        # Many ids per millisecond are normal under load; bumping past the last id keeps
        # them unique and ordered without ever blocking for the clock to advance.
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


def iso_now() -> str:
    return datetime.now(UTC).isoformat()
