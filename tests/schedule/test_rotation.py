from collections import Counter
from datetime import UTC, datetime, timedelta

from bot.schedule.rotation import choose
from bot.store.schedules import TaskPosts

BANK = [f"t{n}" for n in range(7)]


def simulate(days: int, count: int, seed: str = "guild-1") -> list[list[str]]:
    history: dict[str, TaskPosts] = {}
    now = datetime(2025, 1, 1, tzinfo=UTC)
    sets = []
    for _ in range(days):
        picked = choose(BANK, history, count, seed=seed)
        for task_id in picked:
            seen = history.get(task_id)
            history[task_id] = TaskPosts((seen.times if seen else 0) + 1, now)
        sets.append(picked)
        now += timedelta(days=1)
    return sets


def test_whole_bank_before_any_repeat() -> None:
    posted = [t for day in simulate(days=21, count=1) for t in day]
    for cycle in range(3):
        assert sorted(posted[cycle * 7 : cycle * 7 + 7]) == BANK


def test_counts_stay_level_with_sets_of_several() -> None:
    for days in range(1, 20):
        counts = Counter(t for day in simulate(days=days, count=3) for t in day)
        spread = [counts.get(t, 0) for t in BANK]
        assert max(spread) - min(spread) <= 1


def test_a_set_never_repeats_a_task_even_when_bigger_than_the_bank() -> None:
    picked = choose(BANK[:2], {}, 5)
    assert sorted(picked) == BANK[:2]


def test_tasks_posted_by_hand_count_too() -> None:
    history = {t: TaskPosts(1, datetime(2025, 1, 1, tzinfo=UTC)) for t in BANK if t != "t4"}
    assert choose(BANK, history, 1) == ["t4"]


def test_least_recently_posted_first_among_equals() -> None:
    last = datetime(2025, 1, 10, tzinfo=UTC)
    history = {t: TaskPosts(1, last - timedelta(days=n)) for n, t in enumerate(BANK)}
    assert choose(BANK, history, 2) == ["t6", "t5"]


def test_deterministic_per_seed_and_shuffled_between_servers() -> None:
    assert simulate(7, 1, "a") == simulate(7, 1, "a")
    orders = {tuple(t for day in simulate(7, 1, seed) for t in day) for seed in "abcdefgh"}
    assert len(orders) > 1
