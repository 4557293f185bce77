"""Which task a practice or review session serves next: pure, the randomness injected.
Withheld tasks are open public posts the member can still score on: their solution seen in
private would give the public answer away.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Container, Iterable, Sequence
from datetime import datetime


def next_task(
    candidates: Iterable[str],
    solved: Collection[str],
    served: Collection[str],
    rng: random.Random,
    *,
    withheld: Collection[str] = frozenset(),
) -> str | None:
    """The next task, never served nor withheld, unsolved first; None when none is left."""
    fresh = sorted(set(candidates) - set(served) - set(withheld))
    if not fresh:
        return None
    unsolved = [task_id for task_id in fresh if task_id not in solved]
    return rng.choice(unsolved or fresh)


def due_reviews(
    due: Sequence[str],
    available: Container[str],
    withheld: Collection[str],
    served: Collection[str] = (),
) -> list[str]:
    """The due reviews a session can serve, most overdue first (also what a reminder counts)."""
    return [
        task_id
        for task_id in due
        if task_id in available and task_id not in withheld and task_id not in served
    ]


def held_reviews(due: Sequence[str], available: Container[str], withheld: Collection[str]) -> int:
    """Due reviews held back (`withheld`): /review says so rather than "none is due"."""
    return sum(1 for task_id in due if task_id in available and task_id in withheld)


def next_due(
    upcoming: Iterable[tuple[str, datetime]], available: Container[str]
) -> datetime | None:
    """When the first card not due yet whose task the server still has falls due."""
    return next((due for task_id, due in upcoming if task_id in available), None)
