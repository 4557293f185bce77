"""A simulated group (issue 31): 200 members with known abilities meet 30 tasks with known
difficulties (a Rasch model, with a misconception and guesses), one task miskeyed; the
analysis must find what was planted, and nothing else that looks miskeyed."""

from __future__ import annotations

import math
import random

from bot.reports.items import FirstTry, Flag, analyse
from tests.factories import choice

MEMBERS = 200
TASKS = 30
PER_MEMBER = 30  # every task: 6,000 first tries
MISKEYED = "t15"  # a task of middling difficulty


def simulate(seed: int = 31) -> tuple[list[FirstTry], dict[str, float]]:
    rng = random.Random(seed)
    ability = [rng.gauss(0, 1) for _ in range(MEMBERS)]
    difficulty = {f"t{k:02d}": -3.5 + 7 * k / (TASKS - 1) for k in range(TASKS)}
    rows: list[FirstTry] = []
    for user, theta in enumerate(ability):
        for task_id in rng.sample(sorted(difficulty), PER_MEMBER):
            knows = rng.random() < 1 / (1 + math.exp(difficulty[task_id] - theta))
            # A is truly right; who does not know it mostly falls for the task's misconception
            # (C), else guesses among all four.
            pick = "A" if knows else "C" if rng.random() < 0.6 else rng.choice("ABCD")
            key = "B" if task_id == MISKEYED else "A"  # the bank's key
            rows.append(FirstTry(user, task_id, pick == key, (pick,)))
    return rows, difficulty


def test_the_miskeyed_easiest_and_hardest_tasks_are_flagged() -> None:
    rows, difficulty = simulate()
    tasks = {
        t: choice(t, texts=("a", "b", "c", "d"), answer="B" if t == MISKEYED else "A")
        for t in difficulty
    }
    items = {i.task_id: i for i in analyse(rows, tasks)}
    easiest = min(difficulty, key=difficulty.__getitem__)
    hardest = max(difficulty, key=difficulty.__getitem__)
    assert Flag.WRONG_KEY in dict(items[MISKEYED].flags)
    assert Flag.TOO_EASY in dict(items[easiest].flags)
    assert Flag.TOO_HARD in dict(items[hardest].flags)
    # Nothing else looks miskeyed: the flag means something.
    assert [t for t, i in items.items() if Flag.WRONG_KEY in dict(i.flags)] == [MISKEYED]
    # And it sorts first.
    assert analyse(rows, tasks)[0].task_id == MISKEYED
