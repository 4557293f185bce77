"""Which tasks a schedule posts next: the whole matching bank before anything repeats (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.store.schedules import TaskPosts


def _shuffle_key(seed: str, task_id: str) -> bytes:
    # A stable per-server shuffle: bank order would post every server the same sequence, and
    # `random` would make the choice impossible to reproduce (or test) after the fact.
    return hashlib.sha256(f"{seed}\x00{task_id}".encode()).digest()


def choose(
    candidates: Sequence[str],
    history: Mapping[str, TaskPosts],
    count: int,
    *,
    seed: str = "",
) -> list[str]:
    """Up to `count` distinct task ids: least-often posted first (every task n times before any
    n + 1), then least recently, then a seeded shuffle; never a task twice in one set."""
    never = datetime.min.replace(tzinfo=UTC)

    def key(task_id: str) -> tuple[int, datetime, bytes]:
        seen = history.get(task_id)
        if seen is None:
            return (0, never, _shuffle_key(seed, task_id))
        return (seen.times, seen.last_at, _shuffle_key(seed, task_id))

    unique = list(dict.fromkeys(candidates))
    return sorted(unique, key=key)[: max(count, 0)]
