"""Elo ratings (Pelánek 2017) on a simulated group: 200 members with known abilities, 30 tasks
with known difficulties. The ratings must rank the tasks as the truth does after 3,000 first
tries, and adaptive practice must serve tasks members solve about three times in four."""

from __future__ import annotations

import math
import random

import pytest

from bot.quiz.ratings import Rating, adaptive_pick, chance, group_label, step, update
from bot.quiz.tasks import Difficulty

MEMBERS, TASKS, ANSWERS = 200, 30, 3000


def truth(seed: int = 31) -> tuple[random.Random, list[float], dict[str, float]]:
    rng = random.Random(seed)
    ability = [rng.gauss(0, 1) for _ in range(MEMBERS)]
    difficulty = {f"t{k:02d}": -2.5 + 5 * k / (TASKS - 1) for k in range(TASKS)}
    return rng, ability, difficulty


def solves(rng: random.Random, theta: float, b: float) -> bool:
    return rng.random() < 1 / (1 + math.exp(b - theta))


def ranks(values: list[float]) -> list[int]:
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0] * len(values)
    for rank, i in enumerate(order):
        out[i] = rank
    return out


def spearman(xs: list[float], ys: list[float]) -> float:
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    return 1 - 6 * sum((a - b) ** 2 for a, b in zip(rx, ry, strict=True)) / (n * (n * n - 1))


def learn(
    rng: random.Random, ability: list[float], difficulty: dict[str, float]
) -> tuple[list[Rating], dict[str, Rating], list[set[str]]]:
    """3,000 first tries on random member–task pairs (none twice), rated as they come."""
    members = [Rating() for _ in ability]
    tasks = {t: Rating() for t in difficulty}
    seen: list[set[str]] = [set() for _ in ability]
    solved: list[set[str]] = [set() for _ in ability]
    done = 0
    while done < ANSWERS:
        user, task = rng.randrange(MEMBERS), rng.choice(sorted(difficulty))
        if task in seen[user]:
            continue
        seen[user].add(task)
        right = solves(rng, ability[user], difficulty[task])
        members[user], tasks[task] = update(members[user], tasks[task], right)
        if right:
            solved[user].add(task)
        done += 1
    return members, tasks, solved


def test_the_step_shrinks_as_a_rating_learns_and_a_surprise_moves_both() -> None:
    assert step(0) == 1.0 and step(20) == pytest.approx(0.5)
    member, task = update(Rating(), Rating(), correct=True)
    assert member == Rating(0.5, 1) and task == Rating(-0.5, 1)
    assert chance(member, task) == pytest.approx(1 / (1 + math.exp(-1)))


def test_ratings_rank_the_tasks_as_the_truth_after_3000_first_tries() -> None:
    rng, ability, difficulty = truth()
    _, tasks, _ = learn(rng, ability, difficulty)
    ids = sorted(difficulty)
    rho = spearman([tasks[t].value for t in ids], [difficulty[t] for t in ids])
    assert rho >= 0.8
    assert group_label(tasks["t00"]) is Difficulty.EASY
    assert group_label(tasks[f"t{TASKS - 1}"]) is Difficulty.HARD
    assert group_label(Rating(3.0, 9)) is None  # not settled yet


def test_adaptive_practice_serves_tasks_solved_about_three_times_in_four() -> None:
    rng, ability, difficulty = truth()
    members, tasks, solved = learn(rng, ability, difficulty)
    served = right = 0
    for user, theta in enumerate(ability):
        for _ in range(5):  # a short /practice session each
            unsolved = [t for t in sorted(difficulty) if t not in solved[user]]
            task = adaptive_pick(members[user], tasks, unsolved)
            assert task is not None
            ok = solves(rng, theta, difficulty[task])
            members[user], tasks[task] = update(members[user], tasks[task], ok)
            served += 1
            right += ok
            if ok:
                solved[user].add(task)
    assert 0.65 <= right / served <= 0.85


def test_without_ratings_practice_keeps_todays_order() -> None:
    assert adaptive_pick(Rating(), {}, ["a", "b"]) is None
    assert adaptive_pick(Rating(), {"a": Rating()}, ["a"]) is None  # never answered
