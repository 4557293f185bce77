"""A post keeps the task it was posted with: the service grades and shows the posted version,
whatever the loaded banks (the catalog) say after a reload, an edit or a removal, and across a
restart. The catalog only decides what can be posted next."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.quiz.engine import Status
from bot.quiz.errors import UnknownTaskError
from bot.quiz.tasks import Catalog, Option, Task
from bot.service import QuizService
from bot.store import Store, make_engine
from bot.store.posts import CACHE
from tests.factories import choice, choice_task, note

GUILD, CHANNEL = 1, 10
NOW = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
TASK = choice_task()
"""A is right; a wrong B gets "Model parallelism splits the model, not the data."."""
OTHER = choice("other", topic="Other")


def edited(task: Task = TASK) -> Task:
    """The task after a bank edit: B is right now, and the options, notes and hints changed."""
    return replace(
        task,
        answers=("B",),
        options=(Option("A", "renamed A"), *task.options[1:]),
        mistakes=(note("A is wrong now.", "A"),),
        hints=("A new first hint.", "And a second."),
    )


@pytest.fixture
def url(shared_database_url: str) -> str:
    """A database that outlives one engine (a restart), once per engine."""
    return shared_database_url


@pytest.fixture
async def service(url: str) -> AsyncIterator[QuizService]:
    engine = make_engine(url)
    service = QuizService(Catalog.of([TASK, OTHER]), Store(engine), clock=lambda: NOW)
    await service.start()
    yield service
    await service.close()
    engine.dispose()


async def answer(service: QuizService, post_id: int, user: int, pick: str) -> Status:
    reply = await service.answer(post_id, GUILD, user, f"user{user}", (pick,))
    return reply.outcome.status


async def test_an_edited_answer_does_not_change_an_open_post(service: QuizService) -> None:
    posted = await service.create_post(GUILD, CHANNEL, TASK, 99)
    await service.use_catalog(Catalog.of([edited(), OTHER]))

    assert service.catalog.get_or_raise(TASK.id) == edited()  # the next /quiz posts the edit
    assert await answer(service, posted.post.id, 1, "A") is Status.CORRECT
    assert await answer(service, posted.post.id, 2, "B") is Status.WRONG
    # A new post of the task grades the new way.
    fresh = await service.create_post(GUILD, CHANNEL, service.catalog.get_or_raise(TASK.id), 99)
    assert await answer(service, fresh.post.id, 1, "A") is Status.WRONG
    assert await answer(service, fresh.post.id, 2, "B") is Status.CORRECT


async def test_an_open_post_shows_and_explains_its_own_version(service: QuizService) -> None:
    posted = await service.create_post(GUILD, CHANNEL, TASK, 99)
    await service.use_catalog(Catalog.of([edited(), OTHER]))

    reply = await service.answer(posted.post.id, GUILD, 1, "ada", ("B",))
    assert reply.outcome.notes == ("Model parallelism splits the model, not the data.",)
    assert service.posted_of(reply.post).task == TASK
    assert (await service.posted(posted.post.id)).task.options == TASK.options
    view = await service.member_view(posted.post.id, GUILD, 1)
    assert view.posted.task == TASK
    latest = await service.latest_posted(GUILD, CHANNEL)
    assert latest is not None and latest.task == TASK
    hint = await service.hint(posted.post.id, GUILD, 2, "bob")
    assert service.posted_of(hint.post).task.hints == TASK.hints
    [found] = await service.search_posts(GUILD, TASK.id)
    assert found.task == TASK


async def test_a_removed_task_leaves_its_open_posts_working(service: QuizService) -> None:
    posted = await service.create_post(GUILD, CHANNEL, TASK, 99)
    await service.use_catalog(Catalog.of([OTHER]))

    with pytest.raises(UnknownTaskError):
        service.catalog.get_or_raise(TASK.id)  # it can no longer be posted
    assert [t.id for t in service.catalog] == [OTHER.id]
    assert await answer(service, posted.post.id, 1, "B") is Status.WRONG
    assert await answer(service, posted.post.id, 1, "A") is Status.CORRECT
    assert (await service.posted(posted.post.id)).task == TASK
    solution = await service.solution(posted.post.id, GUILD, 2, "bob", confirmed=True)
    assert solution.access.shown and service.posted_of(solution.post).task == TASK
    [found] = await service.search_posts(GUILD, TASK.id)
    assert found.post.id == posted.post.id


async def test_a_restart_with_edited_banks_still_grades_the_posted_version(url: str) -> None:
    engine = make_engine(url)
    first = QuizService(Catalog.of([TASK]), Store(engine), clock=lambda: NOW)
    try:
        post_id = (await first.create_post(GUILD, CHANNEL, TASK, 99)).post.id
    finally:
        await first.close()
        engine.dispose()
    CACHE.clear()  # a new process

    engine = make_engine(url)
    second = QuizService(Catalog.of([edited()]), Store(engine), clock=lambda: NOW)
    try:
        assert await answer(second, post_id, 1, "B") is Status.WRONG
        assert await answer(second, post_id, 2, "A") is Status.CORRECT
        assert (await second.posted(post_id)).task == TASK
    finally:
        await second.close()
        engine.dispose()
