"""The hint ladder's rules: no hint, nothing to see or pay; each hint seen halves the points
still open; a hint seen again (here or on another post of the task) is free."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import NoHintError
from bot.quiz.tasks import MAX_HINTS, Difficulty
from tests.factories import choice

LADDER = choice(hints=("Look at A.", "Really, A.", "It is A."), difficulty=Difficulty.HARD)


def ask(task, progress, times: int) -> tuple[Progress, list[engine.HintAccess]]:
    seen = []
    for _ in range(times):
        access = engine.see_hint(task, progress)
        seen.append(access)
        progress = access.progress
    return progress, seen


def solve(task, progress: Progress) -> int:
    outcome = engine.grade(task, progress, (task.answers[0],))
    assert outcome.status is Status.CORRECT
    return outcome.points


def test_a_task_without_a_hint_has_none_to_see_and_charges_nothing() -> None:
    task = choice(hints=())
    with pytest.raises(NoHintError, match="no hint"):
        engine.see_hint(task, Progress())
    assert solve(task, Progress()) == 10


def test_each_hint_shows_the_next_with_those_before_and_halves_what_is_left() -> None:
    progress, seen = ask(LADDER, Progress(), 4)
    assert [a.shown for a in seen] == [1, 2, 3, 3]
    assert [a.charged for a in seen] == [True, True, True, False]  # the fourth: all seen
    assert [a.progress.hints_seen for a in seen] == [1, 2, 3, 3]
    points = [solve(LADDER, a.progress) for a in seen]
    assert points == [15, 8, 4, 4]  # 30 / 2, / 4, / 8, rounded half up
    assert progress.hints_seen == 3


def test_hints_after_a_miss_halve_the_points_still_open() -> None:
    miss = engine.grade(LADDER, Progress(), ("B",))
    after, _ = ask(LADDER, miss.progress, 2)
    assert solve(LADDER, after) == 5  # 30 × 2/3 = 20, then ÷ 4


def test_hints_seen_on_another_post_are_free_here_and_the_next_one_is_not() -> None:
    elsewhere = Progress(hints_elsewhere=2)
    assert solve(LADDER, elsewhere) == 8  # the two seen there count here
    access = engine.see_hint(LADDER, elsewhere)
    assert (access.shown, access.charged) == (3, True)
    assert solve(LADDER, access.progress) == 4
    all_seen = engine.see_hint(LADDER, Progress(hints_elsewhere=3))
    assert (all_seen.shown, all_seen.charged) == (3, False)
    assert all_seen.progress.hints_seen == 3  # recorded on this post too, at no cost
    assert solve(LADDER, all_seen.progress) == 4


@pytest.mark.parametrize("closed", [True, False], ids=["closed", "finished"])
def test_a_free_look_shows_the_whole_ladder_and_changes_nothing(closed: bool) -> None:
    progress = Progress() if closed else Progress(solved=True, points=30)
    access = engine.see_hint(LADDER, progress, closed=closed)
    assert (access.shown, access.free, access.charged) == (3, True, False)
    assert access.progress == progress


def test_the_most_hints_seen_on_any_other_post_count_once() -> None:
    here = Progress(hints_seen=1)
    read = here.with_other_posts([Progress(hints_seen=2), Progress(hints_seen=1)])
    assert (read.hints_elsewhere, read.task_hints_seen) == (2, 2)
    assert solve(LADDER, read) == 8


@settings(max_examples=200, deadline=None)
@given(
    count=st.integers(1, MAX_HINTS),
    asks=st.integers(0, MAX_HINTS + 2),
    misses=st.integers(0, 2),
    difficulty=st.sampled_from(list(Difficulty)),
)
def test_points_are_halved_once_per_hint_seen_whatever_the_asking(
    count: int, asks: int, misses: int, difficulty: Difficulty
) -> None:
    task = choice(
        texts=("right", "wrong", "also wrong", "far off"),
        hints=tuple(f"Hint {n}." for n in range(1, count + 1)),
        difficulty=difficulty,
    )
    progress = Progress()
    for label in ("B", "C")[:misses]:
        progress = engine.grade(task, progress, (label,)).progress
    before = solve(task, progress)
    progress, seen = ask(task, progress, asks)
    hints = min(asks, count)
    assert progress.hints_seen == hints
    assert sum(a.charged for a in seen) == hints  # charged once per hint, never again
    base = Fraction(difficulty.points * (3 - misses), 3)
    assert solve(task, progress) == int(base / 2**hints + Fraction(1, 2))
    assert solve(task, progress) <= before
