"""What /stats draws: answers per local day over 12 calendar weeks, and progress per topic,
grouped by the topic of the task each post was posted with."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import text

from bot.progress import ACTIVITY_WEEKS, OTHER_TOPIC, TopicProgress, topic_progress
from bot.quiz.tasks import Catalog, Task
from bot.service import QuizService
from bot.store import AnswerRequest, PostInfo, Store, make_engine, posts
from tests import store_calls
from tests.factories import Clock, choice
from tests.store_calls import create_post, read

GUILD, CHANNEL, USER = 1, 10, 7
NOW = datetime(2024, 5, 8, 20, 0, tzinfo=UTC)
"""A Wednesday; 22:00 in Berlin."""
MLOPS = choice("t-mlops", topic="MLOps")
PYTHON = choice("t-python", topic="Python")


@pytest.fixture
async def service(database_url: str) -> AsyncIterator[QuizService]:
    store = Store(make_engine(database_url))
    service = QuizService(
        Catalog.of([MLOPS, PYTHON]), store, clock=Clock(NOW), default_zone=ZoneInfo("Europe/Berlin")
    )
    yield service
    await service.close()
    store.engine.dispose()


def answer(service: QuizService, task: Task, at: datetime, *picks: tuple[str, ...]) -> PostInfo:
    store = service.store
    post = create_post(store, GUILD, CHANNEL, task, now=at, posted_by=99)

    for pick in picks:
        store_calls.answer(store, AnswerRequest(post.id, GUILD, USER, "user", pick), at)
    return post


async def test_progress_spans_twelve_calendar_weeks_in_the_servers_zone(
    service: QuizService,
) -> None:
    answer(service, MLOPS, datetime(2024, 5, 7, 23, 30, tzinfo=UTC), ("A",))  # Berlin: the 8th
    answer(service, MLOPS, datetime(2024, 2, 19, 12, tzinfo=UTC), ("A",))  # the first day
    answer(service, MLOPS, datetime(2024, 2, 18, 12, tzinfo=UTC), ("A",))  # a day too early
    progress = await service.stats_progress(GUILD, USER)
    assert progress.today == date(2024, 5, 8)
    assert progress.first_day == date(2024, 2, 19)  # the Monday 11 weeks before this one
    assert progress.first_day.weekday() == 0
    assert (progress.today - progress.first_day).days // 7 == ACTIVITY_WEEKS - 1
    assert len(progress.attempts_per_day) == (progress.today - progress.first_day).days + 1
    assert progress.attempts_per_day[0] == 1
    assert progress.attempts_per_day[-1] == 1
    assert progress.active_days == 2


async def test_topics_come_from_each_posts_own_task_version(service: QuizService) -> None:
    at = NOW - timedelta(hours=2)
    answer(service, MLOPS, at, ("A",))  # first try
    answer(service, MLOPS, at, ("B",), ("A",))
    answer(service, PYTHON, at, ("B",))  # still open
    # The bank moves t-python to another topic: posts made before keep theirs.
    await service.use_catalog(Catalog.of([MLOPS, choice("t-python", topic="Renamed")]))
    answer(service, service.catalog.get_or_raise("t-python"), at, ("A",))  # posted after the move
    progress = await service.stats_progress(GUILD, USER)
    assert progress.topics == (
        TopicProgress("MLOps", tried=2, first_try=1, due=0),
        TopicProgress("Python", tried=1, first_try=0, due=0),
        # Not a first try: the miss on the task's post before the move counts (once a task's).
        TopicProgress("Renamed", tried=1, first_try=0, due=0),
    )
    stats = await service.stats(GUILD, USER)
    assert sum(t.tried for t in progress.topics) == stats.tried
    due = await service.stats_progress(GUILD, USER, due={"MLOps": 3, "SQL": 1})
    assert [(t.topic, t.due) for t in due.topics] == [
        ("MLOps", 3),
        ("Python", 0),
        ("Renamed", 0),
        ("SQL", 1),
    ]


async def test_a_post_whose_task_left_the_banks_counts_under_other(
    service: QuizService,
) -> None:
    at = NOW - timedelta(hours=2)
    answer(service, MLOPS, at, ("A",))
    old = answer(service, PYTHON, at, ("A",))  # first try
    # A post from before task versions (0.1.0: no version pinned), whose task then left the
    # banks: nothing says its topic any more.
    with service.store.engine.begin() as conn:
        conn.execute(text("UPDATE post SET task_version_id = NULL WHERE id = :id"), {"id": old.id})
    await service.use_catalog(Catalog.of([MLOPS]))
    post = read(service.store, posts.get_post, old.id)
    assert post is not None and post.task is None  # still unpinned: its task is not loaded
    progress = await service.stats_progress(GUILD, USER)
    assert progress.topics == (
        TopicProgress("MLOps", tried=1, first_try=1, due=0),
        TopicProgress(OTHER_TOPIC, tried=1, first_try=1, due=0),
    )
    stats = await service.stats(GUILD, USER)
    assert sum(t.tried for t in progress.topics) == stats.tried == 2


def test_topics_are_ordered_by_tried_then_name() -> None:
    assert topic_progress([], lambda post: "x", {"b": 1, "A": 2, "c": 0}) == (
        TopicProgress("A", 0, 0, 2),
        TopicProgress("b", 0, 0, 1),
    )


def test_topics_tried_as_often_are_in_name_order_whatever_the_case() -> None:
    topics = topic_progress([], lambda post: "x", {"python": 1, "MLOps": 1, "docker": 1})
    assert [t.topic for t in topics] == ["docker", "MLOps", "python"]
