"""The reads behind /insights and the results export, on known data."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import text

from bot.store import Store, answers, posts
from bot.store.insights import InsightsStore, ResultRow, WrongPick
from tests import store_calls
from tests.factories import choice, fill_task
from tests.store.conftest import GUILD, new_post, request
from tests.store_calls import read, reveal_hint, reveal_solution, write

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = datetime(2024, 5, 6, 10, 0, tzinfo=UTC)
FIRST, LAST = date(2024, 5, 2), date(2024, 5, 8)
CHOICE = choice("t-choice", texts=("right", "wrong", "also wrong", "far off"))
FILL = fill_task()


def answer(store: Store, post_id: int, user: int, picks: tuple[str, ...], at: datetime) -> None:
    store_calls.answer(store, request(post_id, user, picks), at)


def seed(store: Store) -> tuple[int, int]:
    """A choice post on Monday and a fill post on Tuesday, answered by five members."""
    c = new_post(store, MONDAY, task=CHOICE).id
    f = new_post(store, MONDAY + timedelta(days=1), task=FILL).id
    answer(store, c, 1, ("B",), MONDAY)  # wrong, then right: solved, not first try
    answer(store, c, 1, ("A",), MONDAY)
    answer(store, c, 2, ("A",), MONDAY)  # first try
    for pick in ("B", "C", "D"):  # three misses
        answer(store, c, 3, (pick,), MONDAY + timedelta(hours=1))
    answer(store, f, 1, ("A", "B", "C"), MONDAY + timedelta(days=1))
    answer(store, f, 4, ("A", "C", "C"), MONDAY + timedelta(days=1))
    return c, f


def test_a_window_counts_members_per_task_and_keeps_the_wrong_picks(store: Store) -> None:
    c, f = seed(store)
    activity = InsightsStore(store).window(GUILD, FIRST, LAST, BERLIN)
    assert [(t.task_id, t.answered, t.solved, t.first_try) for t in activity.tasks] == [
        ("t-choice", 3, 2, 1),
        ("t-fill", 2, 1, 1),
    ]
    assert set(activity.wrong_picks) == {
        WrongPick(c, 1, ("B",)),
        WrongPick(c, 3, ("B",)),
        WrongPick(c, 3, ("C",)),
        WrongPick(c, 3, ("D",)),
        WrongPick(f, 1, ("A", "B", "C")),
    }
    assert sorted(activity.posts) == [c, f]
    assert activity.posts[f].task == FILL  # the version it was posted with
    assert activity.members == 4


def test_a_wrong_pick_repeated_before_repeats_were_refused_counts_once(store: Store) -> None:
    """A database from before repeats were refused (quizbot graded the same wrong answer
    twice) may hold it twice for one member on one post: it is one wrong pick."""
    c = new_post(store, MONDAY, task=CHOICE).id
    answer(store, c, 3, ("B",), MONDAY)
    with store.write() as conn:
        conn.execute(
            text(
                "INSERT INTO attempt"
                " (post_id, guild_id, user_id, attempt_no, picks, correct, created_at)"
                " VALUES (:post, :guild, 3, 2, 'B', FALSE, '2024-05-06 10:00:00.000000')"
            ),
            {"post": c, "guild": GUILD},
        )
    activity = InsightsStore(store).window(GUILD, FIRST, LAST, BERLIN)
    assert activity.wrong_picks == (WrongPick(c, 3, ("B",)),)
    assert read(store, answers.read_progress, c, 3).wrong_tries == 2  # each stored try still counts


def test_days_are_local_to_the_server_and_every_day_of_the_window_is_there(
    store: Store,
) -> None:
    c = new_post(store, MONDAY - timedelta(days=6), task=CHOICE).id
    # 23:30 in Berlin on 1 May: outside; 00:30 on 2 May: the window's first day.
    answer(store, c, 1, ("B",), datetime(2024, 5, 1, 21, 30, tzinfo=UTC))
    answer(store, c, 2, ("B",), datetime(2024, 5, 1, 22, 30, tzinfo=UTC))
    answer(store, c, 2, ("A",), datetime(2024, 5, 8, 21, 59, tzinfo=UTC))  # 23:59 on the 8th
    answer(store, c, 3, ("A",), datetime(2024, 5, 8, 22, 0, tzinfo=UTC))  # the 9th: outside
    activity = InsightsStore(store).window(GUILD, FIRST, LAST, BERLIN)
    days = {d.day: (d.members, d.attempts) for d in activity.days}
    assert list(days) == [FIRST + timedelta(days=n) for n in range(7)]
    assert days[FIRST] == (1, 1)
    assert days[LAST] == (1, 1)
    assert sum(a for _, a in days.values()) == 2
    assert activity.members == 1
    (task,) = activity.tasks
    assert (task.answered, task.solved, task.first_try) == (1, 1, 0)


def test_another_servers_activity_stays_out(store: Store) -> None:
    post = new_post(store, MONDAY, guild_id=GUILD + 1, task=CHOICE)
    store_calls.answer(store, request(post, 1, ("A",)), MONDAY)
    activity = InsightsStore(store).window(GUILD, FIRST, LAST, BERLIN)
    assert activity.tasks == () and activity.posts == {} and activity.members == 0


def test_results_one_row_per_member_and_task_over_their_posts(store: Store) -> None:
    _, f = seed(store)
    again = new_post(store, MONDAY + timedelta(days=2), task=CHOICE).id
    reveal_hint(store, again, GUILD, 3, "user3", MONDAY + timedelta(days=2))
    answer(store, again, 3, ("A",), MONDAY + timedelta(days=2))
    reveal_solution(store, f, GUILD, 5, "user5", MONDAY + timedelta(days=2))
    rows = InsightsStore(store).results(GUILD, BERLIN)
    points = {(r.user_id, r.task_id): r.points for r in rows}
    # The answer column: each member's last stored answer on the task, over its posts.
    assert rows == [
        ResultRow(1, "t-choice", 2, True, points[(1, "t-choice")], False, False, False, answer="A"),
        ResultRow(1, "t-fill", 1, False, 0, False, False, False, answer="A,B,C"),
        ResultRow(2, "t-choice", 1, True, points[(2, "t-choice")], True, False, False, answer="A"),
        # Missed three times on Monday's post, right first time on Wednesday's (hint seen):
        # no points there, since the task's points count once.
        ResultRow(3, "t-choice", 4, True, 0, True, True, False, answer="A"),
        ResultRow(4, "t-fill", 1, True, points[(4, "t-fill")], True, False, False, answer="A,C,C"),
        ResultRow(5, "t-fill", 0, False, 0, False, False, True),
    ]
    assert points[(2, "t-choice")] > points[(1, "t-choice")] > 0


def test_results_count_a_solution_opened_after_finishing_while_the_post_was_open(
    store: Store,
) -> None:
    """The `solution` column: opened while the post was open, to give up or (points kept)
    after solving it."""
    post = new_post(store, MONDAY, task=CHOICE).id
    answer(store, post, 1, ("A",), MONDAY)
    answer(store, post, 2, ("A",), MONDAY)
    reveal_solution(store, post, GUILD, 1, "user1", MONDAY + timedelta(hours=1))
    rows = InsightsStore(store).results(GUILD, BERLIN)
    assert [(r.user_id, r.solved, r.first_try, r.points, r.solution) for r in rows] == [
        (1, True, True, 10, True),
        (2, True, True, 10, False),
    ]


def test_results_leave_out_a_solution_opened_after_the_post_closed(store: Store) -> None:
    """README: `solution` (opened while the post was open): once the post closed, the
    solution is everyone's, and viewing it says nothing about the member."""
    post = new_post(store, MONDAY, task=CHOICE).id
    answer(store, post, 1, ("A",), MONDAY)  # solved
    answer(store, post, 2, ("B",), MONDAY)  # one miss, then the post closes
    write(store, posts.close_post, post, MONDAY + timedelta(hours=1))
    for user in (1, 2):
        reveal_solution(store, post, GUILD, user, f"user{user}", MONDAY + timedelta(hours=2))
    rows = InsightsStore(store).results(GUILD, BERLIN)
    assert [(r.user_id, r.solved, r.solution) for r in rows] == [
        (1, True, False),
        (2, False, False),
    ]


def test_results_since_a_local_date_count_only_the_posts_made_from_then(store: Store) -> None:
    seed(store)  # the choice post on Monday 6 May, the fill post on Tuesday
    rows = InsightsStore(store).results(GUILD, BERLIN, since=date(2024, 5, 7))
    assert [(r.user_id, r.task_id) for r in rows] == [(1, "t-fill"), (4, "t-fill")]
    assert InsightsStore(store).results(GUILD, BERLIN, since=date(2024, 5, 8)) == []


def test_results_carry_names_only_when_asked(store: Store) -> None:
    seed(store)
    write(store, answers.upsert_member, GUILD, 2, "Grace Hopper", MONDAY)
    plain = InsightsStore(store).results(GUILD, BERLIN)
    named = InsightsStore(store).results(GUILD, BERLIN, names=True)
    assert {r.name for r in plain} == {None}
    assert [(r.user_id, r.name) for r in named] == [
        (1, "user1"),
        (1, "user1"),
        (2, "Grace Hopper"),
        (3, "user3"),
        (4, "user4"),
    ]
