"""Adaptive /practice (issue 31) through the service and the real store: among the unsolved
tasks it may serve, the one whose predicted first-try chance for the member is nearest 0.75,
by the stored ratings; without rated tasks, the order it always had."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Connection

from bot.quiz import practice
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine
from bot.store.tables import MemberRating, TaskRating, table_of
from tests.factories import Clock, choice
from tests.store_calls import write
from tests.test_learning import CHANNEL, GUILD, START

STRONG, WEAK, NEW = 201, 202, 203
TASKS = [choice(t, texts=("right", "wrong")) for t in ("t-easy", "t-hard", "t-unrated", "t-x")]
RATED = {"t-easy": -1.0, "t-hard": 2.0, "t-x": 0.5}  # difficulties, in logits
SKILLS = {STRONG: 3.0, WEAK: -1.0}


def seed(conn: Connection) -> None:
    conn.execute(
        table_of(TaskRating).insert(),
        [{"guild_id": GUILD, "task_id": t, "value": v, "answers": 40} for t, v in RATED.items()],
    )
    conn.execute(
        table_of(MemberRating).insert(),
        [{"guild_id": GUILD, "user_id": u, "value": v, "answers": 30} for u, v in SKILLS.items()],
    )


@pytest.fixture
async def service() -> AsyncIterator[QuizService]:
    store = Store(make_engine("sqlite://"))
    service = QuizService(
        Catalog.of(TASKS), store, clock=Clock(START), batch_window=0.001, rng=random.Random(3)
    )
    await service.start()
    yield service
    await service.close()


async def served(service: QuizService, user_id: int) -> list[str]:
    """Every task one practice session serves the member, in order (answered right each)."""
    step = await service.sessions.start_practice(GUILD, CHANNEL, user_id)
    tasks: list[str] = []
    while step.posted is not None:
        tasks.append(step.posted.task.id)
        await service.answer(step.posted.post.id, GUILD, user_id, "u", ("A",))
        assert step.session_id is not None
        step = await service.sessions.next(step.session_id, GUILD, CHANNEL, user_id)
    return tasks


async def test_a_strong_member_is_served_the_harder_task_and_a_weak_one_the_easier(
    service: QuizService,
) -> None:
    write(service.store, seed)
    # Chances for STRONG (3.0): t-hard 0.73, t-x 0.92, t-easy 0.98; the unrated task last.
    assert await served(service, STRONG) == ["t-hard", "t-x", "t-easy", "t-unrated"]
    # For WEAK (-1.0): t-easy 0.50, t-x 0.18, t-hard 0.05.
    assert (await served(service, WEAK))[:3] == ["t-easy", "t-x", "t-hard"]


async def test_a_member_not_rated_yet_counts_as_an_average_newcomer(
    service: QuizService,
) -> None:
    write(service.store, seed)
    # Skill 0: t-easy 0.73, t-x 0.38, t-hard 0.12.
    assert (await served(service, NEW))[:3] == ["t-easy", "t-x", "t-hard"]


async def test_without_ratings_practice_keeps_its_order(service: QuizService) -> None:
    order = await served(service, STRONG)
    rng = random.Random(3)
    expected: list[str] = []
    for _ in TASKS:
        task = practice.next_task([t.id for t in TASKS], set(expected), expected, rng)
        assert task is not None
        expected.append(task)
    assert order == expected
