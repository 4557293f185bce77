"""Issue 26, class 11: the learning loop says what it did. Through the service and the real
store: a review (or a practice of a task met before) is never a "first try", and an answer
that finishes a private task returns what it did to the review card, the very card the same
transaction stored."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from bot.quiz.review import CardUpdate, ReviewRating
from bot.service import QuizService
from tests.factories import Clock
from tests.store_calls import review_card
from tests.test_learning import ALICE, CHANNEL, GUILD, START, TASKS, answer, miss, quiz_service


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
async def service(clock: Clock) -> AsyncIterator[QuizService]:
    service = quiz_service(clock, TASKS)
    await service.start()
    yield service
    await service.close()


async def test_a_right_review_after_public_misses_is_not_a_first_try(
    service: QuizService, clock: Clock
) -> None:
    public = await service.create_post(GUILD, CHANNEL, TASKS[0], ALICE + 1)
    await miss(service, public.post.id)
    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None and step.posted.task.id == "t1"

    reply = await answer(service, step.posted.post.id, ALICE)
    assert reply.outcome.correct and reply.outcome.progress.attempts_used == 1
    assert reply.outcome.progress.tried_before
    assert not reply.outcome.progress.first_try  # it was the member's fourth answer
    # The stored score says so too: the session's summary and /stats count no first try.
    assert step.session_id is not None
    end = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert end.summary is not None and (end.summary.solved, end.summary.first_try) == (1, 0)
    assert (await service.stats(GUILD, ALICE)).first_try == 0
    # The private points are what a first attempt scores: the public misses do not cost them.
    assert reply.outcome.points == TASKS[0].difficulty.points


async def test_practice_of_a_task_never_met_is_a_first_try(service: QuizService) -> None:
    step = await service.sessions.start_practice(GUILD, CHANNEL, ALICE)
    assert step.posted is not None
    reply = await answer(service, step.posted.post.id, ALICE)
    assert reply.outcome.progress.first_try and not reply.outcome.progress.tried_before


async def test_practice_of_a_task_met_in_an_earlier_session_is_not(
    service: QuizService, clock: Clock
) -> None:
    first = await service.sessions.start_practice(GUILD, CHANNEL, ALICE, topic=None)
    assert first.posted is not None
    task_id = first.posted.task.id
    await answer(service, first.posted.post.id, ALICE, "B")  # a miss, then it ends unfinished
    clock.now += timedelta(days=1)
    for _ in range(len(TASKS)):  # later sessions, until the same task comes round again
        step = await service.sessions.start_practice(GUILD, CHANNEL, ALICE)
        assert step.posted is not None
        if step.posted.task.id == task_id:
            break
        await answer(service, step.posted.post.id, ALICE)
    else:
        pytest.fail("the task never came back")
    reply = await answer(service, step.posted.post.id, ALICE)
    assert reply.outcome.correct and not reply.outcome.progress.first_try


async def test_the_reply_carries_the_card_the_same_answer_stored(
    service: QuizService, clock: Clock
) -> None:
    public = await service.create_post(GUILD, CHANNEL, TASKS[0], ALICE + 1)
    for pick in "BC":
        reply = await answer(service, public.post.id, ALICE, pick)
        assert reply.card is None  # not finished: the card is not rated yet
    failed = await answer(service, public.post.id, ALICE, "D")
    stored = review_card(service.store, GUILD, ALICE, "t1")
    assert stored is not None
    assert failed.card == CardUpdate(ReviewRating.AGAIN, stored.due) and stored.due == clock.now

    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None
    right = await answer(service, step.posted.post.id, ALICE)
    stored = review_card(service.store, GUILD, ALICE, "t1")
    assert stored is not None and stored.due >= clock.now + timedelta(days=1)
    assert right.card == CardUpdate(ReviewRating.GOOD, stored.due)

    # Finished again the same day, the card not due: it is left as it was, and the reply says
    # when it comes back all the same.
    clock.now += timedelta(minutes=5)
    again = await service.sessions.start_practice(GUILD, CHANNEL, ALICE, topic=TASKS[0].topic)
    while again.posted is not None and again.posted.task.id != "t1":
        await answer(service, again.posted.post.id, ALICE)
        assert again.session_id is not None
        again = await service.sessions.next(again.session_id, GUILD, CHANNEL, ALICE)
    assert again.posted is not None
    same_day = await answer(service, again.posted.post.id, ALICE)
    assert same_day.card == CardUpdate(None, stored.due)
    assert review_card(service.store, GUILD, ALICE, "t1") == stored


async def test_a_hard_rating_after_the_hint(service: QuizService, clock: Clock) -> None:
    step = await service.sessions.start_practice(GUILD, CHANNEL, ALICE)
    assert step.posted is not None
    await service.hint(step.posted.post.id, GUILD, ALICE, "alice")
    reply = await answer(service, step.posted.post.id, ALICE)
    stored = review_card(service.store, GUILD, ALICE, step.posted.task.id)
    assert stored is not None
    assert reply.card == CardUpdate(ReviewRating.HARD, stored.due)
    assert stored.due > clock.now
