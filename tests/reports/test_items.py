"""Item analysis on hand-computed data; the discrimination against Moodle's formula, written
out here on its own (question/classes/statistics/questions/calculator.php)."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from bot.quiz.ratings import Rating
from bot.quiz.tasks import Difficulty
from bot.reports.items import (
    FirstTry,
    Flag,
    Thresholds,
    analyse,
    difficulty_text,
    page_of,
    wilson,
)
from tests.factories import choice


def tries(task_id: str, scores: list[int], picks: list[str] | None = None) -> list[FirstTry]:
    picks = picks or ["A" if s else "B" for s in scores]
    return [
        FirstTry(u, task_id, bool(s), (p,))
        for u, (s, p) in enumerate(zip(scores, picks, strict=True))
    ]


def moodle_discrimination(scores: dict[str, list[int]], question: str) -> float:
    """Moodle's discrimination index: 100 · cov(x, X − x) / √(var x · var(X − x)), with the
    sample (n − 1) covariance and variances over the quiz attempts."""
    n = len(scores[question])
    x = scores[question]
    rest = [sum(scores[q][i] for q in scores) - x[i] for i in range(n)]
    mx, mr = sum(x) / n, sum(rest) / n
    cov = sum((x[i] - mx) * (rest[i] - mr) for i in range(n)) / (n - 1)
    var_x = sum((v - mx) ** 2 for v in x) / (n - 1)
    var_r = sum((v - mr) ** 2 for v in rest) / (n - 1)
    return 100 * cov / math.sqrt(var_x * var_r)


def test_wilson_interval_matches_the_published_values() -> None:
    eight = wilson(8, 10)
    assert (round(eight.low, 4), round(eight.high, 4)) == (0.4902, 0.9433)
    none = wilson(0, 10)
    assert (none.low, round(none.high, 4)) == (0.0, 0.2775)
    every = wilson(10, 10)
    assert (round(every.low, 4), every.high) == (0.7225, 1.0)


def test_facility_counts_each_members_first_try_only() -> None:
    rows = [
        FirstTry(1, "q", True, ("A",)),
        FirstTry(1, "q", False, ("B",)),  # a later post of the same task: not a first try
        FirstTry(2, "q", False, ("B",)),
    ]
    (item,) = analyse(rows)
    assert (item.answered, item.first_try, item.facility) == (2, 1, 0.5)


def test_discrimination_by_hand() -> None:
    # q: 1 1 1 0, r: 1 1 0 0 → rest of q is r: r = 0.5 / √0.75 = 1/√3.
    rows = tries("q", [1, 1, 1, 0]) + tries("r", [1, 1, 0, 0])
    th = Thresholds(min_members=4, min_tasks=2)
    q = next(i for i in analyse(rows, thresholds=th) if i.task_id == "q")
    assert q.discrimination == pytest.approx(1 / math.sqrt(3))
    assert q.discriminated == 4


def test_discrimination_is_moodles_item_rest_correlation() -> None:
    rng = random.Random(31)
    ability = [rng.gauss(0, 1) for _ in range(25)]
    scores = {
        f"q{k}": [int(rng.random() < 1 / (1 + math.exp(k - 3 - a))) for a in ability]
        for k in range(6)
    }
    rows = [row for q, s in scores.items() for row in tries(q, s)]
    for item in analyse(rows):
        assert item.discrimination is not None
        assert 100 * item.discrimination == pytest.approx(
            moodle_discrimination(scores, item.task_id)
        )


def test_discrimination_waits_for_twenty_members_with_five_tasks() -> None:
    rng = random.Random(1)
    scores = {f"q{k}": [rng.randint(0, 1) for _ in range(20)] for k in range(5)}
    rows = [row for q, s in scores.items() for row in tries(q, s)]
    # Member 0 tried only four tasks: 19 members count, one short.
    rows = [r for r in rows if not (r.user_id == 0 and r.task_id == "q4")]
    item = next(i for i in analyse(rows) if i.task_id == "q0")
    assert (item.discrimination, item.discriminated) == (None, 19)
    assert item.discrimination_text() == "not enough answers yet"
    assert not any(f is Flag.NO_SEPARATION or f is Flag.WRONG_KEY for f, _ in item.flags)


def test_options_are_counted_overall_and_by_thirds() -> None:
    task = choice("q", texts=("right", "wrong", "also wrong", "never"))
    # Six members; on r (the other task) members 0-1 are strong, 4-5 weak.
    rest = tries("r", [1, 1, 1, 1, 0, 0])
    picks = ["A", "A", "B", "A", "C", "B"]
    rows = tries("q", [p == "A" for p in picks], picks) + rest
    th = Thresholds(min_members=6, min_tasks=2, min_answers=6)
    item = next(i for i in analyse(rows, {"q": task}, th) if i.task_id == "q")
    assert item.third == 2
    got = {c.label: (c.right, c.picked, c.top, c.bottom) for c in item.choices}
    assert got == {
        "A": (True, 3, 2, 0),
        "B": (False, 2, 0, 1),
        "C": (False, 1, 0, 1),
        "D": (False, 0, 0, 0),
    }
    assert (Flag.UNUSED_DISTRACTOR, "D: 0/6 picked") in item.flags


def test_a_wrong_option_the_top_third_prefers_flags_a_wrong_key() -> None:
    task = choice("q", texts=("keyed", "truly right", "wrong"))
    n = 30
    strong = list(range(10))  # right on every other task
    rows: list[FirstTry] = []
    for other in ("r", "s", "t", "u"):
        rows += tries(other, [1 if u in strong else u % 2 for u in range(n)])
    # The strong members pick B (truly right), the others the key A or C: the key goes to
    # the weak, so the discrimination is negative.
    picks = ["B" if u in strong else "AC"[u % 2] for u in range(n)]
    rows += tries("q", [p == "A" for p in picks], picks)
    item = next(i for i in analyse(rows, {"q": task}) if i.task_id == "q")
    flags = dict(item.flags)
    assert Flag.WRONG_KEY in flags
    assert item.discrimination is not None and item.discrimination < 0
    assert flags[Flag.WRONG_KEY].startswith("discrimination -")


def test_top_third_beating_the_key_flags_even_with_positive_discrimination() -> None:
    task = choice("q", texts=("keyed", "tempting", "wrong"))
    n = 30
    rows: list[FirstTry] = []
    for other in ("r", "s", "t", "u"):
        rows += tries(other, [int(u < 15) for u in range(n)])
    # Top third (0-9): one picks the key, nine pick B; the middle the key; the bottom C.
    picks = ["A"] + ["B"] * 9 + ["A"] * 10 + ["C"] * 10
    rows += tries("q", [p == "A" for p in picks], picks)
    item = next(i for i in analyse(rows, {"q": task}) if i.task_id == "q")
    assert item.discrimination is not None and item.discrimination > 0
    flags = dict(item.flags)
    assert flags[Flag.WRONG_KEY].startswith("top third picked B 9/10, the key A 1/10; B discr")


def test_a_misconception_of_the_weak_is_not_a_wrong_key() -> None:
    task = choice("q", texts=("keyed", "tempting", "wrong"))
    n = 30
    rows: list[FirstTry] = []
    for other in ("r", "s", "t", "u"):
        rows += tries(other, [int(u < 15) for u in range(n)])
    # A hard task: B tempts the top third more than the key does, and everyone else more.
    picks = ["A"] + ["B"] * 29
    rows += tries("q", [p == "A" for p in picks], picks)
    item = next(i for i in analyse(rows, {"q": task}) if i.task_id == "q")
    assert Flag.WRONG_KEY not in dict(item.flags)
    assert Flag.TOO_HARD in dict(item.flags)


def test_facility_flags_state_their_figure_and_wait_for_answers() -> None:
    easy = tries("easy", [1] * 19 + [0])
    hard = tries("hard", [1] + [0] * 9)
    few = tries("few", [1] * 9)
    items = {i.task_id: i for i in analyse(easy + hard + few)}
    assert items["easy"].flags == ((Flag.TOO_EASY, "facility 0.95 (19/20)"),)
    assert items["hard"].flags == ((Flag.TOO_HARD, "facility 0.10 (1/10)"),)
    assert items["few"].flags == ()  # 9 first tries: below min_answers
    assert [i.task_id for i in analyse(easy + hard + few)] == ["hard", "easy", "few"]


def test_thresholds_are_configurable_and_bad_ones_are_named() -> None:
    th = Thresholds().with_overrides({"too_easy": "0.97", "min_members": "10"})
    assert (th.too_easy, th.min_members) == (0.97, 10)
    (item,) = analyse(tries("easy", [1] * 19 + [0]), thresholds=th)
    assert item.flags == ()
    with pytest.raises(ValueError, match="unknown threshold 'too_eas'"):
        Thresholds().with_overrides({"too_eas": "1"})
    with pytest.raises(ValueError, match="min_tasks must be a number"):
        Thresholds().with_overrides({"min_tasks": "five"})


def test_a_page_names_the_bank_and_each_flags_figure() -> None:
    task = replace(choice("easy", texts=("right", "wrong")), bank="python.yaml")
    rows = tries("easy", [1] * 19 + [0]) + tries("other", [1] * 5 + [0] * 5)
    items = analyse(rows, {"easy": task}, rated={"easy": Rating(-2.0, 20)})
    page = page_of(items)
    assert (page.page, page.pages, page.total) == (1, 1, 2)
    assert page.entries[0].split("\n") == [
        "**Multiple choice · Testing** (`easy`) · bank `python.yaml` · author: easy · "
        "this group: easy",
        "first try 95% of 20 members (95%: 76%–99%) · discrimination not enough answers yet",
        "⚠ too easy: facility 0.95 (19/20)",
    ]
    assert page_of(items, flag=Flag.TOO_HARD).total == 0
    assert page_of(items, topic="testing").total == 1  # `other` has no task: no topic
    assert page_of(items, 5, per_page=1).page == 2  # past the last: the last


def test_the_group_label_shows_once_the_stored_rating_has_settled() -> None:
    assert difficulty_text(Difficulty.EASY, None) == "author: easy"
    assert difficulty_text(Difficulty.EASY, Rating(3.0, 9)) == "author: easy"  # 9 first tries
    assert difficulty_text(Difficulty.EASY, Rating(2.0, 30)) == "author: easy · this group: hard"
    assert difficulty_text(Difficulty.HARD, Rating(0.0, 30)) == "author: hard · this group: medium"
