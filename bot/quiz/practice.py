"""Which task a private practice or review session serves next: pure, with the randomness
injected.

The store says what the member solved, what the session served, which cards are due and which
tasks are withheld (open public posts the member can still score on: seen in private, their
solution would give the public answer away); the service asks here.
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
    """The next practice task: never one the session served already, nor a withheld one;
    among the rest, one the member has not solved (anywhere in the server, public or private)
    before one they have; random among equals. None when none is left: the session is over."""
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
    """The reviews a session can serve, in the order given (the most overdue first): due
    cards whose task the server still has (`available`), not withheld, not served yet. What
    /review says is due and what a reminder counts are these, so neither promises a review
    that /review would not serve."""
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
