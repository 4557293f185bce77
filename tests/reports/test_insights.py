"""The rules of /insights: the period, the hardest tasks, the misconceptions over a period."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.quiz.ratings import Rating
from bot.reports import insights
from bot.reports.insights import MIN_ANSWERERS, InsightsPeriod, sparkline
from bot.store.insights import DayActivity, TaskActivity, WindowActivity, WrongPick
from bot.store.posts import PostInfo
from tests.factories import choice, choice_task, fill_task, note

TODAY = date(2024, 5, 8)


def post(post_id: int, task_id: str, day: int = 6) -> PostInfo:
    return PostInfo(
        id=post_id,
        guild_id=1,
        channel_id=10,
        message_id=None,
        task_id=task_id,
        posted_by=None,
        posted_at=datetime(2024, 5, day, 9, 0, tzinfo=UTC),
        schedule_id=None,
        closes_at=None,
        closed_at=None,
        task_version_id=None,
        task=None,
    )


def activity(
    tasks: list[TaskActivity],
    picks: list[WrongPick] = (),  # type: ignore[assignment]
    posts: list[PostInfo] = (),  # type: ignore[assignment]
) -> WindowActivity:
    days = tuple(DayActivity(TODAY - timedelta(days=6 - n), n % 3, 2 * n) for n in range(7))
    return WindowActivity(
        TODAY - timedelta(days=6), TODAY, tuple(tasks), tuple(picks),
        {p.id: p for p in posts}, days, members=5,
    )


@pytest.mark.parametrize(
    ("period", "first"), [("week", date(2024, 5, 2)), ("month", date(2024, 4, 9))]
)
def test_the_period_is_the_last_days_up_to_today(period: str, first: date) -> None:
    assert insights.window(period, TODAY) == (first, TODAY)
    assert (TODAY - first).days + 1 == InsightsPeriod(period).days


def test_hardest_is_the_lowest_first_try_rate_among_tasks_answered_enough() -> None:
    tasks = [
        TaskActivity("easy", 10, 10, 9),
        TaskActivity("hard-few", 6, 3, 2),  # 33%, fewer answerers: after hard-many
        TaskActivity("hard-many", 9, 4, 3),  # 33%
        TaskActivity("hardest", 4, 1, 0),
        TaskActivity("too-few", MIN_ANSWERERS - 1, 0, 0),  # 0%, but says nothing yet
    ]
    found = insights.hardest(tasks, {"hardest": "The hardest one"})
    assert [t.task_id for t in found] == ["hardest", "hard-many", "hard-few", "easy"]
    assert found[0].line() == (
        "**The hardest one** (`hardest`): 0% first try · 0/4 first try · 1 solved"
    )
    assert insights.hardest(tasks, {}, shown=1)[0].title == "hardest"


def test_a_hard_task_shows_the_authors_label_beside_the_groups() -> None:
    """From the stored ratings (issue 31): the group's label once the rating has settled."""
    easy_said = choice("t", texts=("right", "wrong"))  # the author says easy
    window = replace(
        activity([TaskActivity("t", 10, 4, 2), TaskActivity("u", 4, 1, 1)], [], [post(1, "t")]),
        ratings={"t": Rating(1.5, 40), "u": Rating(3.0, 4)},
    )
    report = insights.build("week", window, {1: easy_said})
    lines = {t.task_id: t.line() for t in report.hardest}
    assert lines["t"].endswith("· 4 solved · author: easy · this group: hard")
    assert lines["u"].endswith("· 1 solved")  # no post's task: no labels


def test_misconceptions_use_the_summary_rule_with_each_posts_task() -> None:
    old = choice("t", texts=("right", "wrong", "off"), mistakes=(note("Old note on B.", "B"),))
    new = replace(old, mistakes=(note("B confuses split and batch.", "B"),))
    posts = [post(1, "t", day=3), post(2, "t", day=6)]
    # 10 answered: member 1 picked B on both posts (one member), 2 on the new post: 2/10 = 20%
    # (the bar, included); C by one member: 10%, left out.
    picks = [
        WrongPick(1, 1, ("B",)),
        WrongPick(2, 1, ("B",)),
        WrongPick(2, 2, ("B",)),
        WrongPick(2, 3, ("C",)),
    ]
    report = insights.build(
        "week", activity([TaskActivity("t", 10, 8, 6)], picks, posts), {1: old, 2: new}
    )
    (task,) = report.misconceptions
    assert [(m.label, m.members, m.percent) for m in task.found] == [("B", 2, 20)]
    assert task.found[0].line() == "20% picked B — B confuses split and batch."  # latest note
    assert "B confuses split and batch." in report.misconceptions_text()


def test_fill_misconceptions_are_per_blank_and_judged_against_the_posts_task() -> None:
    task = fill_task()  # answers A, C, C
    picks = [WrongPick(1, u, ("D", "C", "B")) for u in (1, 2)] + [
        WrongPick(1, 3, ("A", "C", "A"))
    ]
    report = insights.build(
        "week", activity([TaskActivity("t-fill", 5, 3, 1)], picks, [post(1, "t-fill")]), {1: task}
    )
    (found,) = report.misconceptions
    assert [m.line() for m in found.found] == [
        "[1] 40% picked D — '/' gives a float.",
        "[3] 40% picked B — 'devices' is not defined here.",
        "[3] 20% picked A — (//)",
    ]


def test_a_post_whose_task_is_gone_adds_nothing_but_its_counts_stay() -> None:
    report = insights.build(
        "month",
        activity([TaskActivity("gone", 3, 0, 0)], [WrongPick(1, 1, ("B",))], [post(1, "gone")]),
        {},
    )
    assert report.misconceptions == ()
    assert [(t.task_id, t.title) for t in report.hardest] == [("gone", "gone")]
    assert report.period.label == "the last 30 days"


def test_participation_text_and_sparkline() -> None:
    report = insights.build("week", activity([], [], []), {1: choice_task()})
    assert report.attempts == sum(2 * n for n in range(7))
    text = report.participation_text()
    assert text.startswith("`▁▅█▁▅█▁` members per day, Thu 02 May → Wed 08 May")
    assert "**5** members · **42** attempts · busiest Tue 07 May (2 members, 10 attempts)" in text
    assert report.day_table().splitlines()[0] == "`Thu 02 May` 0 members · 0 attempts"
    assert sparkline([0, 0]) == "▁▁" and sparkline([]) == ""
    assert sparkline([1, 7]) == "▂█"


def test_a_quiet_period_says_so() -> None:
    quiet = WindowActivity(
        TODAY, TODAY, (), (), {}, (DayActivity(TODAY, 0, 0),), members=0
    )
    report = insights.build("week", quiet, {})
    assert report.participation_text() == "Nobody answered in this period."
    assert "No task had 3 or more" in report.hardest_text()
    assert "No wrong option" in report.misconceptions_text()


def test_one_member_and_one_attempt_are_singular() -> None:
    days = (DayActivity(TODAY - timedelta(days=1), 0, 0), DayActivity(TODAY, 1, 1))
    lone = WindowActivity(TODAY - timedelta(days=1), TODAY, (), (), {}, days, members=1)
    report = insights.build("week", lone, {})
    assert "**1** member · **1** attempt · busiest Wed 08 May (1 member, 1 attempt)" in (
        report.participation_text()
    )
    assert report.day_table().splitlines() == [
        "`Tue 07 May` 0 members · 0 attempts",
        "`Wed 08 May` 1 member · 1 attempt",
    ]
