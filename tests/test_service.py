"""The service's answer path: group commit, acknowledge after commit, and the rules it applies
once through the store's write unit (closed posts, hints and solutions)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from bot.quiz.engine import Progress, Status
from bot.quiz.errors import (
    InvalidAnswerError,
    PostClosedError,
    PrivatePostError,
    StoreBusyError,
    UnknownPostError,
)
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import AnswerRequest, Group, Store, Unit, answers, make_engine
from bot.store import posts as posts_unit
from bot.store.periods import Period
from tests.factories import Clock, choice, choice_task
from tests.store_calls import read

GUILD, CHANNEL = 1, 10
START = datetime(2024, 5, 8, 12, 0, tzinfo=UTC)
TASK = choice_task()
OTHER = choice("t-other")
"""A second task, so a practice session has a next one."""


class RecordingStore(Store):
    """The real store, noting each answer transaction's size; it can be told to fail one."""

    def __init__(self, url: str = "sqlite://") -> None:
        super().__init__(make_engine(url))
        self.groups: list[tuple[int, int]] = []
        """(answers, units) per group commit."""
        self.fail_next = False

    @property
    def batches(self) -> list[int]:
        """Answers per group commit."""
        return [answers for answers, _ in self.groups]

    def commit_group(
        self,
        requests: Sequence[AnswerRequest],
        now: datetime,
        units: Sequence[Unit[Any]],
    ) -> Group:
        self.groups.append((len(requests), len(units)))
        if self.fail_next:
            self.fail_next = False
            raise OperationalError("BEGIN IMMEDIATE", {}, Exception("database is locked"))
        return super().commit_group(requests, now, units)


@pytest.fixture
def store(database_url: str) -> Iterator[RecordingStore]:
    """Once per engine: `[sqlite]` and `[postgresql]`."""
    store = RecordingStore(database_url)
    yield store
    store.engine.dispose()


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


@pytest.fixture
async def service(store: RecordingStore, clock: Clock) -> AsyncIterator[QuizService]:
    service = QuizService(Catalog.of([TASK, OTHER]), store, clock=clock, batch_window=0.05)
    await service.start()
    yield service
    await service.close()


async def post(service: QuizService, closes_at: datetime | None = None) -> int:
    posted = await service.create_post(GUILD, CHANNEL, TASK, 99, closes_at=closes_at)
    return posted.post.id


def answer(service: QuizService, post_id: int, user: int, pick: str = "A") -> Any:
    return service.answer(post_id, GUILD, user, f"user{user}", (pick,))


async def test_answers_within_the_window_share_one_transaction(
    service: QuizService, store: RecordingStore
) -> None:
    post_id = await post(service)
    replies = await asyncio.gather(*(answer(service, post_id, user) for user in range(20)))
    assert store.batches == [20]
    assert {r.outcome.status for r in replies} == {Status.CORRECT}
    assert (await service.run_read(posts_unit.post_counts, post_id)).solved == 20


async def test_a_batch_is_cut_at_max_batch(store: RecordingStore, clock: Clock) -> None:
    service = QuizService(Catalog.of([TASK]), store, clock=clock, batch_window=0.05, max_batch=8)
    try:
        post_id = await post(service)
        await asyncio.gather(*(answer(service, post_id, user) for user in range(20)))
        assert store.batches == [8, 8, 4]
    finally:
        await service.close()


async def test_an_answer_is_acknowledged_only_once_its_transaction_committed(
    service: QuizService, store: RecordingStore
) -> None:
    post_id = await post(service)
    reply = await answer(service, post_id, 7, "B")
    # The moment the member hears back, a separate read already sees the attempt.
    assert reply.outcome.status is Status.WRONG
    assert await service.run_read(answers.read_progress, post_id, 7) == Progress(
        wrong_tries=1, tried=frozenset({("B",)})
    )


async def test_a_double_click_in_one_group_commit_uses_one_attempt(
    service: QuizService, store: RecordingStore
) -> None:
    """Two clicks on the same wrong option land in one batch: the second sees the first
    (graded in the same write unit) and is not graded again; a different wrong one is."""
    post_id = await post(service)
    replies = await asyncio.gather(
        answer(service, post_id, 7, "B"), answer(service, post_id, 7, "B")
    )
    assert store.batches == [2]
    assert [r.outcome.status for r in replies] == [Status.WRONG, Status.REPEATED]
    assert [r.outcome.attempts_left for r in replies] == [2, 2]
    assert replies[1].outcome.notes == replies[0].outcome.notes != ()
    assert await service.run_read(answers.read_progress, post_id, 7) == Progress(
        wrong_tries=1, tried=frozenset({("B",)})
    )
    assert (await service.run_read(posts_unit.post_counts, post_id)).answered == 1

    again = await answer(service, post_id, 7, "B")  # a later retry of the same click
    assert again.outcome.status is Status.REPEATED and again.outcome.attempts_left == 2
    other = await answer(service, post_id, 7, "C")
    assert other.outcome.status is Status.WRONG and other.outcome.attempts_left == 1
    right = await answer(service, post_id, 7, "A")
    assert right.outcome.points == 3  # two wrong tries, not three or four


async def test_a_failed_transaction_fails_every_answer_in_it_and_stores_nothing(
    service: QuizService, store: RecordingStore
) -> None:
    post_id = await post(service)
    store.fail_next = True
    results = await asyncio.gather(
        *(answer(service, post_id, user) for user in range(5)), return_exceptions=True
    )
    assert all(isinstance(r, OperationalError) for r in results)
    assert (await service.run_read(posts_unit.post_counts, post_id)).answered == 0
    # The writer keeps going: the next answer commits.
    assert (await answer(service, post_id, 1)).outcome.status is Status.CORRECT


@pytest.mark.sqlite_only  # SQLite's write lock
async def test_a_held_write_lock_tells_every_member_of_the_batch_their_answer_was_not_recorded(
    tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """A real fault: another connection holds the write lock past the busy timeout. Every
    answer of the group commit gets the domain error (not the driver's), the fault is logged
    once without a traceback, and after the lock is released the same clicks count as first
    attempts: nothing was recorded, nothing is lost."""
    path = tmp_path / "quizbot.db"
    store = Store(make_engine(f"sqlite:///{path}", busy_timeout_ms=100))
    service = QuizService(Catalog.of([TASK]), store, clock=clock, batch_window=0.05)
    await service.start()
    try:
        post_id = await post(service)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            results = await asyncio.gather(
                *(answer(service, post_id, user, "B") for user in range(5)),
                return_exceptions=True,
            )
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert all(isinstance(r, StoreBusyError) for r in results)
        assert {str(r) for r in results} == {
            "The quiz database is busy; your answer was not recorded. Try again in a moment."
        }
        (record,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert record.levelno == logging.WARNING and record.name == "bot.store.store"
        assert not record.exc_info
        replies = await asyncio.gather(*(answer(service, post_id, user, "B") for user in range(5)))
        tried = frozenset({("B",)})
        assert all(r.outcome.progress == Progress(wrong_tries=1, tried=tried) for r in replies)
        assert (await service.run_read(posts_unit.post_counts, post_id)).answered == 5
    finally:
        await service.close()
        store.engine.dispose()


async def test_a_next_click_shares_the_answers_transaction(
    service: QuizService, store: RecordingStore
) -> None:
    """A practice Next and the answers that arrive with it: one transaction, one commit."""
    post_id = await post(service)
    await answer(service, post_id, 50)  # finished: practice may serve its task too
    step = await service.sessions.start_practice(GUILD, CHANNEL, 50)
    assert step.session_id is not None and step.posted is not None
    store.groups.clear()
    *replies, following = await asyncio.gather(
        *(answer(service, post_id, user) for user in range(5)),
        service.sessions.next(step.session_id, GUILD, CHANNEL, 50),
    )
    assert store.groups == [(5, 1)]
    assert {r.outcome.status for r in replies} == {Status.CORRECT}
    assert following.posted is not None and following.number == 2
    # Committed, both: a fresh read sees the answers (and member 50's) and the new post.
    assert (await service.run_read(posts_unit.post_counts, post_id)).solved == 6
    assert (await service.posted(following.posted.post.id, GUILD)).post.session_id == (
        step.session_id
    )


async def test_a_refused_next_in_a_group_fails_alone_and_stores_nothing(
    service: QuizService, store: RecordingStore
) -> None:
    """Another member's forged Next in the same group is refused; the answer and the owner's
    own Next commit, and the forgery added no post to the session."""
    post_id = await post(service)
    await answer(service, post_id, 50)  # finished: practice may serve its task too
    step = await service.sessions.start_practice(GUILD, CHANNEL, 50)
    assert step.session_id is not None
    store.groups.clear()
    results = await asyncio.gather(
        answer(service, post_id, 1),
        service.sessions.next(step.session_id, GUILD, CHANNEL, 51),
        service.sessions.next(step.session_id, GUILD, CHANNEL, 50),
        return_exceptions=True,
    )
    assert store.groups == [(1, 2)]
    assert results[0].outcome.status is Status.CORRECT
    assert isinstance(results[1], PrivatePostError)
    assert results[2].number == 2
    # The session holds its first task and one Next (numbered 2), not the forged one.
    following = await service.sessions.next(step.session_id, GUILD, CHANNEL, 50)
    assert following.summary is not None and following.summary.served == 2


@pytest.mark.sqlite_only  # SQLite's write lock
async def test_a_refused_group_tells_each_member_what_they_lost(
    tmp_path: Path, clock: Clock
) -> None:
    """The write lock held past the busy timeout: the answer is "not recorded", the Next "not
    posted", each in its own words, and nothing of either was stored."""
    path = tmp_path / "quizbot.db"
    store = Store(make_engine(f"sqlite:///{path}", busy_timeout_ms=100))
    service = QuizService(Catalog.of([TASK, OTHER]), store, clock=clock, batch_window=0.05)
    await service.start()
    try:
        post_id = await post(service)
        step = await service.sessions.start_practice(GUILD, CHANNEL, 50)
        assert step.session_id is not None
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            refused = await asyncio.gather(
                answer(service, post_id, 1),
                service.sessions.next(step.session_id, GUILD, CHANNEL, 50),
                return_exceptions=True,
            )
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert [str(r) for r in refused] == [
            "The quiz database is busy; your answer was not recorded. Try again in a moment.",
            "The quiz database is busy; the quiz was not posted. Try again in a moment.",
        ]
        assert (await service.run_read(posts_unit.post_counts, post_id)).answered == 0
        # The refused Next posted nothing: the session ends on its first task.
        following = await service.sessions.next(step.session_id, GUILD, CHANNEL, 50)
        assert following.summary is not None and following.summary.served == 1
    finally:
        await service.close()
        store.engine.dispose()


async def test_one_members_bad_answer_fails_only_that_answer(
    service: QuizService, store: RecordingStore
) -> None:
    post_id = await post(service)
    results = await asyncio.gather(
        answer(service, post_id, 1),
        answer(service, post_id, 2, "Z"),
        service.answer(post_id, GUILD + 1, 3, "eve", ("A",)),
        return_exceptions=True,
    )
    assert store.batches == [3]
    assert results[0].outcome.status is Status.CORRECT
    assert isinstance(results[1], InvalidAnswerError)
    assert isinstance(results[2], UnknownPostError)


async def test_a_post_past_its_closing_time_refuses_answers_before_anyone_closes_it(
    service: QuizService, clock: Clock
) -> None:
    post_id = await post(service, closes_at=START + timedelta(hours=1))
    await answer(service, post_id, 1)
    clock.now = START + timedelta(hours=1)
    with pytest.raises(PostClosedError):
        await answer(service, post_id, 2)
    # Someone who finished is told so, not that it closed.
    assert (await answer(service, post_id, 1)).outcome.status is Status.ALREADY_FINISHED
    assert (await service.posted(post_id, GUILD)).closed


async def test_a_closed_posts_hint_and_solution_are_free(
    service: QuizService, clock: Clock
) -> None:
    post_id = await post(service, closes_at=START + timedelta(hours=1))
    clock.now = START + timedelta(hours=2)
    hint = await service.hint(post_id, GUILD, 1, "ada")
    assert hint.free and service.posted_of(hint.post).closed
    assert hint.progress == Progress()
    solution = await service.solution(post_id, GUILD, 1, "ada", confirmed=False)
    assert solution.access.shown and not solution.access.forfeited_now
    assert await service.run_read(answers.read_progress, post_id, 1) == Progress()


async def test_a_hint_on_an_open_post_halves_the_points_in_one_round_trip(
    service: QuizService,
) -> None:
    post_id = await post(service)
    hint = await service.hint(post_id, GUILD, 1, "ada")
    assert not hint.free and hint.progress.hint_seen
    reply = await answer(service, post_id, 1)
    assert reply.outcome.points == 5


async def test_the_solution_asks_before_it_forfeits(service: QuizService) -> None:
    post_id = await post(service)
    ask = await service.solution(post_id, GUILD, 1, "ada", confirmed=False)
    assert not ask.access.shown
    assert await service.run_read(answers.read_progress, post_id, 1) == Progress()
    done = await service.solution(post_id, GUILD, 1, "ada", confirmed=True)
    assert done.access.shown and done.access.forfeited_now and done.access.progress.finished
    again = await service.solution(post_id, GUILD, 1, "ada", confirmed=False)
    assert again.access.shown and not again.access.forfeited_now


# -- a task's points count once per member and server ------------------------------------------


async def points_of(service: QuizService, user: int) -> int:
    board = await service.leaderboard(GUILD, Period.ALL, user)
    return 0 if board.me is None else board.me.points


async def test_a_task_scores_once_per_member_however_often_it_is_posted(
    service: QuizService,
) -> None:
    first, again = await post(service), await post(service)
    full = (await answer(service, first, 1)).outcome.points
    assert full > 0
    repeat = (await answer(service, again, 1)).outcome
    assert repeat.status is Status.CORRECT and repeat.points == 0
    assert repeat.progress.finished_elsewhere
    assert await points_of(service, 1) == full
    # Someone meeting the task for the first time on the second post scores in full.
    assert (await answer(service, again, 2)).outcome.points == full


@pytest.mark.parametrize("finish", ["forfeit", "fail"])
async def test_a_task_finished_without_points_scores_none_on_another_post(
    service: QuizService, finish: str
) -> None:
    # Opening the solution on one post, or using every attempt there, shows the answer: it
    # must not then score on a second post of the same task.
    task = choice(texts=("right", "wrong", "also wrong", "far off"))
    first, again = [(await service.create_post(GUILD, CHANNEL, task, 99)).post.id for _ in range(2)]
    if finish == "forfeit":
        await service.solution(first, GUILD, 1, "user1", confirmed=True)
    else:
        for pick in ("B", "C", "D"):
            await answer(service, first, 1, pick)
        assert (await service.run_read(answers.read_progress, first, 1)).finished
    reply = (await answer(service, again, 1)).outcome
    assert reply.status is Status.CORRECT and reply.points == 0
    assert await points_of(service, 1) == 0


async def test_simultaneous_answers_on_two_posts_of_one_task_score_once(
    service: QuizService, store: RecordingStore
) -> None:
    first, again = await post(service), await post(service)
    replies = await asyncio.gather(answer(service, first, 1), answer(service, again, 1))
    assert store.batches == [2]  # one transaction: the second reads the first's finish
    assert sorted(r.outcome.points for r in replies) == [0, TASK.difficulty.points]
    assert await points_of(service, 1) == TASK.difficulty.points


# -- and so do its misses and hint, on whichever of its posts they were made -------------------

FOUR = choice(texts=("right", "wrong", "also wrong", "far off"))


async def four_posts(service: QuizService, count: int = 2) -> list[int]:
    return [(await service.create_post(GUILD, CHANNEL, FOUR, 99)).post.id for _ in range(count)]


async def test_a_miss_on_one_post_of_a_task_costs_points_on_another(
    service: QuizService,
) -> None:
    # Without it, two open posts of a task give a member up to five tries and a first-try
    # score: miss on one, then answer the other.
    first, again = await four_posts(service)
    assert (await answer(service, first, 1, "B")).outcome.status is Status.WRONG
    solve = (await answer(service, again, 1)).outcome
    assert solve.status is Status.CORRECT and solve.points == 7  # as on a second try
    assert not solve.progress.first_try and solve.progress.wrong_elsewhere == 1
    assert await points_of(service, 1) == 7
    # Back on the first post the task is finished elsewhere: nothing more scores.
    assert (await answer(service, first, 1)).outcome.points == 0
    assert await points_of(service, 1) == 7


async def test_a_wrong_answer_given_on_another_post_is_not_graded_again(
    service: QuizService,
) -> None:
    first, again = await four_posts(service)
    await answer(service, first, 1, "B")
    repeat = (await answer(service, again, 1, "B")).outcome
    assert repeat.status is Status.REPEATED and repeat.attempts_left == 3
    assert (
        await service.run_read(posts_unit.post_counts, again)
    ).answered == 0  # nothing stored there


async def test_misses_spread_over_two_posts_use_up_the_tasks_tries(service: QuizService) -> None:
    first, again = await four_posts(service)
    for pick in ("B", "C"):
        await answer(service, first, 1, pick)
    third = (await answer(service, again, 1, "D")).outcome
    # The post still takes its own attempts, for practice, but none can score now.
    assert third.status is Status.WRONG and third.attempts_left == 2
    assert third.progress.scores_none and not third.progress.finished_elsewhere
    solve = (await answer(service, again, 1)).outcome
    assert solve.status is Status.CORRECT and solve.points == 0
    assert await points_of(service, 1) == 0
    assert (await service.leaderboard(GUILD, Period.ALL, 1)).me is None  # no counted solve


async def test_practice_holds_a_task_back_only_while_its_misses_leave_it_points(
    service: QuizService, clock: Clock
) -> None:
    first, again = await four_posts(service)

    def held() -> int:
        open_posts = read(service.store, answers.unfinished_public_posts, GUILD, 1, clock())
        return len(open_posts)

    for post_id, pick in ((first, "B"), (again, "C")):
        await answer(service, post_id, 1, pick)
        assert held() == 2  # a miss left: she can still score with the task on either post
    await answer(service, again, 1, "D")
    assert held() == 0


async def test_a_hint_seen_on_one_post_halves_the_task_on_another(service: QuizService) -> None:
    first, again = await four_posts(service)
    await service.hint(first, GUILD, 1, "user1")
    hint = await service.hint(again, GUILD, 1, "user1")
    assert hint.progress.hint_elsewhere and not hint.free
    solve = (await answer(service, again, 1)).outcome
    assert solve.points == 5  # halved once, not twice


async def test_a_miss_on_a_closed_post_still_counts_when_the_task_is_posted_again(
    service: QuizService, clock: Clock
) -> None:
    # A daily quiz posts a task again weeks later: a member who missed it and never finished
    # does not meet it fresh.
    soon = clock() + timedelta(hours=1)
    first = (await service.create_post(GUILD, CHANNEL, FOUR, 99, closes_at=soon)).post
    await answer(service, first.id, 1, "B")
    clock.advance(hours=2)
    (again,) = await four_posts(service, 1)
    assert (await answer(service, again, 1)).outcome.points == 7


async def test_a_miss_and_a_solve_on_two_posts_in_one_batch_count_together(
    service: QuizService, store: RecordingStore
) -> None:
    first, again = await four_posts(service)
    miss, solve = await asyncio.gather(answer(service, first, 1, "B"), answer(service, again, 1))
    assert store.batches == [2]  # one transaction: the solve is graded after the miss
    assert (miss.outcome.status, solve.outcome.points) == (Status.WRONG, 7)


async def test_a_hint_on_a_task_finished_elsewhere_says_it_scores_nothing(
    service: QuizService,
) -> None:
    first, again = await post(service), await post(service)
    await answer(service, first, 1)
    hint = await service.hint(again, GUILD, 1, "user1")
    assert hint.progress.finished_elsewhere and not hint.free
