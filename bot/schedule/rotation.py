"""Which tasks a schedule posts next: the whole matching bank before anything repeats.

Pure. The store supplies how often, and when last, each task was posted in the server (any
post, scheduled or not, counts: members have seen it either way).
"""

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
    """Up to `count` distinct task ids from `candidates`.

    Least-often posted first, so every task is posted n times before any is posted n + 1
    times; among equals the least recently posted, then a seeded shuffle. Asking for more
    than the bank holds returns the whole bank once, never a task twice in one set.
    """
    never = datetime.min.replace(tzinfo=UTC)

    def key(task_id: str) -> tuple[int, datetime, bytes]:
        seen = history.get(task_id)
        if seen is None:
            return (0, never, _shuffle_key(seed, task_id))
        return (seen.times, seen.last_at, _shuffle_key(seed, task_id))

    unique = list(dict.fromkeys(candidates))
    return sorted(unique, key=key)[: max(count, 0)]
