"""Calibrated difficulty, pure: an online Elo rating per member and per task of a server, and
the adaptive choice of a practice task (issue 31). The store keeps them (`store/ratings.py`)
and moves them in the answer's write unit, by this module's `update`.

The model is Pelánek's for adaptive practice (Pelánek 2017, "Applications of the Elo rating
system in adaptive educational systems"): the chance that a member solves a task at the first
try is the logistic of skill − difficulty; a first try moves both by the surprise, each step
damped by how much that rating has already seen (`step`), so new ratings move fast and settled
ones slowly. Points still follow the author's label; a rating only informs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.quiz.tasks import Difficulty

ALPHA = 1.0
BETA = 0.05
"""The uncertainty function's constants, U(n) = ALPHA / (1 + BETA·n): Pelánek's values."""
TARGET = 0.75
"""The chance of success adaptive practice aims at: likely, but not certain."""
SETTLED = 10
"""First tries a task's rating needs before it is shown beside the author's label."""
EASY_ABOVE, HARD_BELOW = 0.7, 0.4
"""An average member's chance on a task that reads as easy, or as hard, for this group."""


@dataclass(frozen=True, slots=True)
class Rating:
    value: float = 0.0  # skill (member) or difficulty (task), in logits
    answers: int = 0  # first tries it has learnt from


def step(answers: int) -> float:
    """How far a rating moves on its next first try: less the more it has seen."""
    return ALPHA / (1 + BETA * answers)


def chance(skill: Rating, difficulty: Rating) -> float:
    """The expected chance that the member solves the task at the first try."""
    return 1 / (1 + math.exp(difficulty.value - skill.value))


def update(skill: Rating, difficulty: Rating, correct: bool) -> tuple[Rating, Rating]:
    """Both ratings after one first try."""
    surprise = float(correct) - chance(skill, difficulty)
    return (
        Rating(skill.value + step(skill.answers) * surprise, skill.answers + 1),
        Rating(difficulty.value - step(difficulty.answers) * surprise, difficulty.answers + 1),
    )


def group_label(difficulty: Rating) -> Difficulty | None:
    """What the group's answers say of a task ("this group: hard"); None until settled."""
    if difficulty.answers < SETTLED:
        return None
    average = chance(Rating(), difficulty)
    if average > EASY_ABOVE:
        return Difficulty.EASY
    if average < HARD_BELOW:
        return Difficulty.HARD
    return Difficulty.MEDIUM


def adaptive_pick(
    skill: Rating, tasks: Mapping[str, Rating], unsolved: Iterable[str], target: float = TARGET
) -> str | None:
    """Among the member's unsolved tasks with a rating, the one whose chance is nearest
    `target` (ties: the task id); None when none has one, and practice keeps today's order."""
    rated = [t for t in unsolved if t in tasks and tasks[t].answers > 0]
    if not rated:
        return None
    return min(rated, key=lambda t: (abs(chance(skill, tasks[t]) - target), t))


def replay(tries: Iterable[tuple[int, str, bool]]) -> tuple[dict[int, Rating], dict[str, Rating]]:
    """Members' and tasks' ratings after (member, task, right) first tries, in the order
    they were made: what the online update would have reached."""
    members: dict[int, Rating] = {}
    tasks: dict[str, Rating] = {}
    for user_id, task_id, correct in tries:
        members[user_id], tasks[task_id] = update(
            members.get(user_id, Rating()), tasks.get(task_id, Rating()), correct
        )
    return members, tasks
