"""ScheduleStore: schedules, the once-a-day run claim, and what rotation and summary read."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect

from bot.quiz.errors import ScheduleLimitError
from bot.quiz.rules import MAX_SCHEDULES
from bot.quiz.tasks import Task
from bot.store import Store, make_engine
from bot.store import posts as posts_unit
from bot.store.schedules import RunInfo, ScheduleInfo, ScheduleStore, TaskPosts
from tests.factories import choice
from tests.store_calls import create_post, read, write

GUILD = 1
NOW = datetime(2025, 3, 2, 7, 0, tzinfo=UTC)
DAY = date(2025, 3, 2)
DUE = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)
CLOSES = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)


@pytest.fixture
def schedules(store: Store) -> ScheduleStore:
    return ScheduleStore(store)


def add(schedules: ScheduleStore, guild_id: int = GUILD, **kwargs: object) -> ScheduleInfo:
    values: dict[str, object] = {
        "guild_id": guild_id,
        "channel_id": 10,
        "local_time": "09:00",
        "timezone": "Europe/Berlin",
        "created_by": 5,
        "now": NOW,
    }
    return schedules.add(**(values | kwargs))  # type: ignore[arg-type]


def pick(*task_ids: str) -> Callable[[Mapping[str, TaskPosts]], Sequence[Task]]:
    return lambda history: [choice(task_id) for task_id in task_ids]


def claim(
    schedules: ScheduleStore, schedule: ScheduleInfo, *task_ids: str, day: date = DAY
) -> RunInfo | None:
    return schedules.claim(
        schedule,
        day,
        scheduled_for=DUE,
        closes_at=CLOSES,
        choose=pick(*(task_ids or ("t1",))),
        now=DUE,
    )


def rotation_history(
    schedules: ScheduleStore, schedule: ScheduleInfo, now: datetime
) -> dict[str, TaskPosts]:
    """What the rotation is given to choose a day's tasks from, at `now`: read through a claim
    whose chooser picks nothing, which `claim` rolls back whole."""
    seen: list[dict[str, TaskPosts]] = []

    def remember(given: Mapping[str, TaskPosts]) -> Sequence[Task]:
        seen.append(dict(given))
        return []

    with pytest.raises(ValueError, match="no task"):
        schedules.claim(
            schedule, date(2099, 1, 1), scheduled_for=now, closes_at=None, choose=remember, now=now
        )
    (given,) = seen
    return given


def test_tables_are_created_with_the_others(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/q.db")
    tables = set(inspect(engine).get_table_names())
    assert {"schedule", "schedule_run", "post"} <= tables
    uniques = inspect(engine).get_unique_constraints("schedule_run")
    assert [u["column_names"] for u in uniques] == [["schedule_id", "local_date"]]
    engine.dispose()


def test_make_engine_alone_creates_the_schedule_tables() -> None:
    """`quizbot run` makes the engine before the schedule cog is imported: the store package
    itself must register the schedule tables, or production starts without them."""
    code = (
        "from sqlalchemy import inspect; from bot.store import make_engine;"
        "print(sorted(inspect(make_engine('sqlite://')).get_table_names()))"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert "'schedule'" in out.stdout and "'schedule_run'" in out.stdout


def test_add_list_and_soft_remove(schedules: ScheduleStore) -> None:
    first = add(schedules, topic="MLOps", difficulty="easy", count=2, open_thread=True)
    second = add(schedules)
    add(schedules, guild_id=2)
    assert first.at.hour == 9 and first.zone.key == "Europe/Berlin"
    assert [s.id for s in schedules.list_guild(GUILD)] == [first.id, second.id]

    assert schedules.remove(2, first.id, NOW) is None  # another server's id: refused
    removed = schedules.remove(GUILD, first.id, NOW)
    assert removed is not None and removed.removed_at == NOW
    assert [s.id for s in schedules.list_guild(GUILD)] == [second.id]
    assert first.id not in [s.id for s in schedules.runnable()]
    assert schedules.remove(GUILD, first.id, NOW) is None  # already gone
    assert schedules.get(first.id) is not None  # kept for its runs and posts


@pytest.mark.parametrize("count", [0, 6])
def test_count_is_bounded(schedules: ScheduleStore, count: int) -> None:
    with pytest.raises(ValueError, match="count"):
        add(schedules, count=count)


def test_times_come_back_aware_and_naive_input_means_utc(schedules: ScheduleStore) -> None:
    schedule = add(schedules, now=NOW.replace(tzinfo=None))
    assert schedule.created_at == schedule.active_since == NOW
    assert schedule.created_at.tzinfo is UTC
    run = claim(schedules, schedule)
    assert run is not None
    assert (run.scheduled_for, run.closes_at, run.claimed_at) == (DUE, CLOSES, DUE)
    assert all(t.tzinfo is UTC for t in (run.scheduled_for, run.claimed_at))


def test_a_server_may_have_max_schedules_and_removing_one_frees_a_place(
    schedules: ScheduleStore,
) -> None:
    made = [add(schedules) for _ in range(MAX_SCHEDULES)]
    add(schedules, guild_id=2)  # another server's count is its own
    with pytest.raises(ScheduleLimitError) as refused:
        add(schedules)
    assert f"already has {MAX_SCHEDULES} daily quizzes" in str(refused.value)
    schedules.set_paused(GUILD, made[0].id, True, NOW)
    with pytest.raises(ScheduleLimitError):
        add(schedules)  # a paused schedule still counts
    schedules.remove(GUILD, made[0].id, NOW)
    assert add(schedules).id > made[-1].id
    assert len(schedules.list_guild(GUILD)) == MAX_SCHEDULES


def test_a_server_may_have_ten_daily_quizzes_as_the_readme_says(
    schedules: ScheduleStore,
) -> None:
    for _ in range(10):
        add(schedules)
    with pytest.raises(ScheduleLimitError, match="already has 10 daily quizzes"):
        add(schedules)


def test_concurrent_adds_never_exceed_the_limit(shared_database_url: str) -> None:
    """Separate engines on one database, all adding at once: exactly MAX_SCHEDULES get in,
    and every other add is refused with the limit error (not a silent extra schedule)."""
    url = shared_database_url
    setup = make_engine(url)
    engines = [make_engine(url) for _ in range(MAX_SCHEDULES + 6)]
    barrier = threading.Barrier(len(engines))
    added: list[ScheduleInfo] = []
    refused: list[ScheduleLimitError] = []
    unexpected: list[BaseException] = []

    def race(engine: object) -> None:
        mine = ScheduleStore(Store(engine))  # type: ignore[arg-type]
        barrier.wait()
        try:
            added.append(add(mine))
        except ScheduleLimitError as exc:
            refused.append(exc)
        except BaseException as exc:  # reported by the assertion below
            unexpected.append(exc)

    threads = [threading.Thread(target=race, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert unexpected == []
    assert len(added) == MAX_SCHEDULES
    assert len(refused) == len(engines) - MAX_SCHEDULES
    assert len(ScheduleStore(Store(setup)).list_guild(GUILD)) == MAX_SCHEDULES
    for engine in [setup, *engines]:
        engine.dispose()


def test_pause_and_resume(schedules: ScheduleStore) -> None:
    schedule = add(schedules)
    schedules.record_error(schedule.id, "boom", NOW, NOW + timedelta(minutes=1))
    paused = schedules.set_paused(GUILD, schedule.id, True, NOW)
    assert paused is not None and paused.changed and paused.schedule.paused
    assert schedules.runnable() == []
    later = NOW + timedelta(days=2)
    resumed = schedules.set_paused(GUILD, schedule.id, False, later)
    assert resumed is not None and resumed.changed
    assert not resumed.schedule.paused
    assert resumed.schedule.active_since == later  # days missed while paused are not owed
    assert resumed.schedule.retry_at is None and resumed.schedule.failures == 0
    assert schedules.set_paused(2, schedule.id, True, NOW) is None


def test_claim_is_once_per_day_and_creates_the_posts(
    schedules: ScheduleStore, store: Store
) -> None:
    schedule = add(schedules, count=2)
    run = claim(schedules, schedule, "t1", "t2")
    assert run is not None and run.status == "claimed" and len(run.post_ids) == 2
    posts = [read(store, posts_unit.get_post, p) for p in run.post_ids]
    assert [p.task_id for p in posts if p] == ["t1", "t2"]
    for post in posts:
        assert post is not None and post.message_id is None and post.posted_by is None
        assert post.schedule_id == schedule.id
        assert post.closes_at == CLOSES

    assert claim(schedules, schedule, "t3") is None  # the day is taken
    assert rotation_history(schedules, schedule, DUE).keys() == {"t1", "t2"}
    assert claim(schedules, schedule, "t3", day=DAY + timedelta(days=1)) is not None


def test_a_claim_without_tasks_leaves_nothing(schedules: ScheduleStore) -> None:
    schedule = add(schedules)
    with pytest.raises(ValueError, match="no task"):
        schedules.claim(schedule, DAY, scheduled_for=DUE, closes_at=CLOSES, choose=pick(), now=DUE)
    assert schedules.run(schedule.id, DAY) is None
    assert rotation_history(schedules, schedule, DUE) == {}
    assert claim(schedules, schedule, "t1") is not None


def test_two_processes_claiming_at_once_get_one_claim(shared_database_url: str) -> None:
    """Separate engines on one database, racing: the UNIQUE key lets exactly one through."""
    url = shared_database_url
    setup = make_engine(url)
    schedule = add(ScheduleStore(Store(setup)))
    engines = [make_engine(url) for _ in range(8)]
    barrier = threading.Barrier(len(engines))
    results: list[object] = []

    def race(engine: object) -> None:
        mine = ScheduleStore(Store(engine))  # type: ignore[arg-type]
        barrier.wait()
        results.append(claim(mine, schedule, "t1"))

    threads = [threading.Thread(target=race, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r is not None for r in results) == 1
    assert rotation_history(ScheduleStore(Store(setup)), schedule, DUE)["t1"].times == 1
    for engine in [setup, *engines]:
        engine.dispose()


def test_skip_records_the_day_and_the_reason(schedules: ScheduleStore) -> None:
    schedule = add(schedules)
    run = schedules.skip(schedule.id, DAY, scheduled_for=DUE, reason="the bot was offline", now=DUE)
    assert run is not None and run.status == "skipped" and run.closed_at == DUE
    assert schedules.skip(schedule.id, DAY, scheduled_for=DUE, reason="again", now=DUE) is None
    info = schedules.get(schedule.id)
    assert info is not None
    assert info.last_result == "skipped 2025-03-02: the bot was offline"
    assert info.last_run_local_date == DAY
    assert claim(schedules, schedule) is None  # a skipped day is never posted later


def test_errors_back_off_and_a_posted_run_clears_them(schedules: ScheduleStore) -> None:
    schedule = add(schedules)
    retry = NOW + timedelta(minutes=2)
    schedules.record_error(schedule.id, "x" * 1000, NOW, retry)
    schedules.record_error(schedule.id, "Missing Permissions\n in <#10>", NOW, retry)
    info = schedules.get(schedule.id)
    assert info is not None
    assert (info.failures, info.retry_at, info.last_error_at) == (2, retry, NOW)
    assert info.last_error == "Missing Permissions in <#10>"
    schedules.record_error(schedule.id, "x" * 1000, NOW, retry)
    long = schedules.get(schedule.id)
    assert long is not None and long.last_error is not None and len(long.last_error) == 300

    run = claim(schedules, schedule)
    assert run is not None
    done = schedules.finish(run.id, "posted", result="posted 2025-03-02: 1 task", now=DUE)
    assert done.status == "posted" and done.posted_at == DUE
    cleared = schedules.get(schedule.id)
    assert cleared is not None
    assert (cleared.last_error, cleared.failures, cleared.retry_at) == (None, 0, None)
    assert cleared.last_result == "posted 2025-03-02: 1 task"
    assert schedules.pending_runs(schedule.id) == []


def test_runs_to_close(schedules: ScheduleStore) -> None:
    schedule = add(schedules)
    run = claim(schedules, schedule)
    assert run is not None
    assert schedules.runs_to_close(CLOSES) == []  # still claimed: not finished yet
    assert [r.id for r in schedules.pending_runs(schedule.id)] == [run.id]
    schedules.finish(run.id, "posted", result="posted", now=DUE)
    assert schedules.next_close(DUE) == CLOSES
    assert schedules.runs_to_close(CLOSES - timedelta(seconds=1)) == []
    assert [r.id for r in schedules.runs_to_close(CLOSES)] == [run.id]
    assert schedules.next_close(CLOSES) is None  # overdue ones are not "next"
    schedules.mark_closed(run.id, CLOSES)
    assert schedules.runs_to_close(CLOSES + timedelta(days=1)) == []


def test_the_rotation_sees_every_public_post_in_the_server(
    schedules: ScheduleStore, store: Store
) -> None:
    create_post(store, GUILD, 10, choice("t1"), now=NOW, posted_by=7)
    create_post(store, GUILD, 10, choice("t1"), now=NOW + timedelta(hours=1), posted_by=7)
    create_post(store, 2, 10, choice("t2"), now=NOW, posted_by=7)
    seen = rotation_history(schedules, add(schedules), NOW)
    assert seen == {"t1": TaskPosts(2, NOW + timedelta(hours=1))}


def test_a_daily_post_that_never_went_out_leaves_its_task_to_come(
    schedules: ScheduleStore, store: Store
) -> None:
    schedule = add(schedules)
    run = claim(schedules, schedule, "t1", "t2")
    assert run is not None
    write(
        store, posts_unit.set_post_message, run.post_ids[1], 555
    )  # t2 went out; t1 is still being sent
    assert rotation_history(schedules, schedule, DUE).keys() == {"t1", "t2"}
    # The day closed with t1 unsent (its day failed): members never saw it.
    assert rotation_history(schedules, schedule, CLOSES).keys() == {"t2"}
    history: list[Mapping[str, TaskPosts]] = []

    def remember(seen: Mapping[str, TaskPosts]) -> Sequence[Task]:
        history.append(seen)
        return [choice("t1")]

    later = CLOSES + timedelta(minutes=1)
    next_day = DAY + timedelta(days=1)
    schedules.claim(
        schedule, next_day, scheduled_for=CLOSES, closes_at=None, choose=remember, now=later
    )
    assert history[0].keys() == {"t2"}


def test_store_or_engine(store: Store) -> None:
    assert ScheduleStore(store).store is store
    assert isinstance(ScheduleStore(store.engine).store, Store)


def test_resuming_a_schedule_that_is_not_paused_changes_nothing(schedules: ScheduleStore) -> None:
    # Today's run may still be owed (a claim that failed and is retried within the grace
    # window): a stray resume must not make it "missed while paused".
    schedule = add(schedules)
    schedules.record_error(schedule.id, "boom", NOW, NOW + timedelta(minutes=1))
    again = schedules.set_paused(GUILD, schedule.id, False, NOW + timedelta(minutes=10))
    assert again is not None and not again.changed and not again.schedule.paused
    assert again.schedule.active_since == schedule.active_since
    assert again.schedule.failures == 1 and again.schedule.retry_at == NOW + timedelta(minutes=1)
