"""Which task a private practice session serves next: pure, with the randomness injected.

The store says what the member solved and what the session served; the service asks here.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable


def next_task(
    candidates: Iterable[str],
    solved: Collection[str],
    served: Collection[str],
    rng: random.Random,
) -> str | None:
    """The next task of a session: never one it served already; among the rest, one the
    member has not solved (anywhere in the server, public or private) before one they have;
    random among equals. None when every candidate was served: the session is over."""
    fresh = sorted(set(candidates) - set(served))
    if not fresh:
        return None
    unsolved = [task_id for task_id in fresh if task_id not in solved]
    return rng.choice(unsolved or fresh)
