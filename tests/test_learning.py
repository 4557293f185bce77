"""Private practice and the review queue through the service and the real store: no
leaderboard points (kept totals and their rebuild alike), /stats counts them, owner-only and
idle-limited sessions, and the FSRS schedule of missed and reviewed tasks."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from bot.clock import Period
from bot.practice_sessions import SessionStep
from bot.quiz.errors import (
    NoMatchingTaskError,
    PrivatePostError,
    SessionExpiredError,
    StoreAction,
    TasksWithheldError,
)
from bot.quiz.review import ReviewRating, review
from bot.quiz.tasks import Catalog, Difficulty, Task
from bot.service import QuizService
from bot.store import Store, answers, board_totals, leaderboard, make_engine
from bot.store import posts as posts_unit
from bot.store.answers import save_cards
from bot.store.review_cards import DueSummary, StoredCard
from tests.factories import Clock, choice
from tests.store_calls import read, review_card, write

GUILD, CHANNEL = 1, 10
ALICE, BOB = 101, 102
START = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
TASKS = [
    choice(f"t{n}", texts=("right", "wrong", "also wrong", "far off"), answer="A")
    for n in range(1, 4)
]


@pytest.fixture
def clock() -> Clock:
    return Clock(START)


def quiz_service(clock: Clock, tasks: list[Task]) -> QuizService:
    store = Store(make_engine("sqlite://"))
    return QuizService(
        Catalog.of(tasks), store, clock=clock, batch_window=0.001, rng=random.Random(3)
    )


@pytest.fixture
async def service(clock: Clock) -> AsyncIterator[QuizService]:
    service = quiz_service(clock, TASKS)
    await service.start()
    yield service
    await service.close()


def answer(service: QuizService, post_id: int, user: int, pick: str = "A"):  # type: ignore[no-untyped-def]
    return service.answer(post_id, GUILD, user, f"user{user}", (pick,))


async def miss(service: QuizService, post_id: int, user: int = ALICE) -> None:
    """Three misses, each a different wrong option (the same one again uses no attempt)."""
    for pick in "BCD":
        await answer(service, post_id, user, pick)


async def board(service: QuizService) -> list[tuple[int, int]]:
    result = await service.leaderboard(GUILD, Period.ALL, ALICE)
    return [(row.user_id, row.points) for row in result.rows]


async def practice_step(service: QuizService, user: int = ALICE) -> SessionStep:
    return await service.sessions.start_practice(GUILD, CHANNEL, user)


async def test_practice_never_changes_the_leaderboard_but_counts_in_stats(
    service: QuizService,
) -> None:
    public = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await answer(service, public.post.id, BOB)
    before = await board(service)  # builds the kept totals
    assert [user for user, _ in before] == [BOB]
    stats_before = await service.stats(GUILD, ALICE)

    step = await practice_step(service)
    assert step.posted is not None and step.posted.post.private
    served = []
    while step.posted is not None:
        served.append(step.posted.task.id)
        reply = await answer(service, step.posted.post.id, ALICE)
        assert reply.outcome.correct
        assert step.session_id is not None
        step = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    # t1 is open on the public post, which ALICE has not answered: practice withholds it.
    assert sorted(served) == ["t2", "t3"]
    assert step.summary is not None
    assert (step.summary.served, step.summary.finished, step.summary.solved) == (2, 2, 2)
    assert step.summary.first_try == 2

    assert await board(service) == before
    exact = read(
        service.store,
        leaderboard.leaderboard_exact,
        GUILD,
        Period.ALL,
        ZoneInfo("UTC"),
        START,
        None,
        10,
    )
    assert [(r.user_id, r.points) for r in exact.rows] == before
    write(service.store, board_totals.rebuild_totals, GUILD, None)
    assert await board(service) == before
    stats = await service.stats(GUILD, ALICE)
    assert (stats.tried, stats.solved) == (stats_before.tried + 2, stats_before.solved + 2)
    # /stats names practice points apart: "Points" are the leaderboard's, and practice adds none.
    assert stats.points == stats_before.points
    practiced = sum(task.difficulty.points for task in TASKS if task.id in served)
    assert stats.practice_points == stats_before.practice_points + practiced


async def test_practice_offers_unsolved_tasks_first(service: QuizService) -> None:
    for task in TASKS[:2]:
        public = await service.create_post(GUILD, CHANNEL, task, BOB)
        await answer(service, public.post.id, ALICE)
    step = await practice_step(service)
    assert step.posted is not None and step.posted.task.id == "t3"


async def test_private_posts_stay_out_of_the_channels_lists(service: QuizService) -> None:
    public = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    step = await practice_step(service)
    assert step.posted is not None
    latest = await service.latest_posted(GUILD, CHANNEL)
    assert latest is not None and latest.post.id == public.post.id
    found = await service.search_posts(GUILD, "t", 25)
    assert [p.post.id for p in found] == [public.post.id]


async def test_another_member_cannot_use_a_private_task(service: QuizService) -> None:
    step = await practice_step(service)
    assert step.posted is not None and step.session_id is not None
    post_id = step.posted.post.id
    with pytest.raises(PrivatePostError):
        await answer(service, post_id, BOB)
    with pytest.raises(PrivatePostError):
        await service.hint(post_id, GUILD, BOB, "bob")
    with pytest.raises(PrivatePostError):
        await service.solution(post_id, GUILD, BOB, "bob", confirmed=True)
    with pytest.raises(PrivatePostError):
        await service.sessions.next(step.session_id, GUILD, CHANNEL, BOB)
    assert (await service.run_read(answers.read_progress, post_id, BOB)).attempts_used == 0
    assert (await service.run_read(posts_unit.post_counts, post_id)).answered == 0
    assert review_card(service.store, GUILD, BOB, step.posted.task.id) is None


async def test_an_idle_session_refuses_clicks_and_records_nothing(
    service: QuizService, clock: Clock
) -> None:
    step = await practice_step(service)
    assert step.posted is not None and step.session_id is not None
    clock.now += timedelta(minutes=29)
    await answer(service, step.posted.post.id, ALICE, "B")  # a click keeps it alive
    clock.now += timedelta(minutes=29)
    await service.hint(step.posted.post.id, GUILD, ALICE, "alice")
    clock.now += timedelta(minutes=30)
    with pytest.raises(SessionExpiredError, match="after 30 minutes without activity"):
        await answer(service, step.posted.post.id, ALICE)
    with pytest.raises(SessionExpiredError):
        await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    progress = await service.run_read(answers.read_progress, step.posted.post.id, ALICE)
    assert (progress.wrong_tries, progress.solved) == (1, False)


async def test_a_new_session_ends_the_previous_one(service: QuizService) -> None:
    first = await practice_step(service)
    await practice_step(service)
    assert first.posted is not None
    with pytest.raises(SessionExpiredError, match=r"session ended\. /practice"):
        await answer(service, first.posted.post.id, ALICE)


async def test_no_matching_task(service: QuizService) -> None:
    with pytest.raises(NoMatchingTaskError):
        await service.sessions.start_practice(GUILD, CHANNEL, ALICE, "No such topic")


async def test_no_matching_task_says_which_difficulty_and_topic_it_looked_for(
    service: QuizService,
) -> None:
    with pytest.raises(NoMatchingTaskError) as none:
        await service.sessions.start_practice(GUILD, CHANNEL, ALICE, "Testing", Difficulty.HARD)
    assert str(none.value) == "There is no hard Testing task in the loaded banks."


async def test_practice_withholds_a_task_the_member_can_still_score_on_in_public(
    service: QuizService,
) -> None:
    open_public = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await answer(service, open_public.post.id, ALICE, "B")  # one miss: two attempts left
    served = set()
    step = await practice_step(service)
    while step.posted is not None:
        served.add(step.posted.task.id)
        assert step.session_id is not None
        step = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert served == {"t2", "t3"}  # seeing t1's solution here would give the post away

    for task in TASKS[1:]:
        await service.create_post(GUILD, CHANNEL, task, BOB)
    with pytest.raises(TasksWithheldError, match="Answer those first"):
        await practice_step(service)
    await answer(service, open_public.post.id, ALICE)  # finished: t1 may be practised now
    step = await practice_step(service)
    assert step.posted is not None and step.posted.task.id == "t1"


def due_card(task_id: str, due: datetime, user_id: int = ALICE) -> StoredCard:
    return StoredCard(GUILD, user_id, task_id, 2, None, 2.3, 5.0, due, due - timedelta(days=2))


async def test_review_counts_and_serves_only_what_it_can_serve(service: QuizService) -> None:
    # 150 cards of tasks no bank has any more, all more overdue than the one real card.
    gone = [due_card(f"gone-{n:03}", START - timedelta(days=30, minutes=n)) for n in range(150)]
    with service.store.write() as conn:
        save_cards(conn, gone)
    assert (await service.sessions.review_status(GUILD, ALICE)).due_now == 0
    nothing = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert nothing.posted is None

    with service.store.write() as conn:
        save_cards(conn, [due_card("t2", START - timedelta(days=1))])
    assert (await service.sessions.review_status(GUILD, ALICE)).due_now == 1
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None and step.posted.task.id == "t2"
    assert step.due is not None and step.due.due_now == 1

    # A card of a removed task is not "the next due" either: t1's is.
    with service.store.write() as conn:
        save_cards(
            conn,
            [
                due_card("gone-later", START + timedelta(days=1)),
                due_card("t1", START + timedelta(days=2)),
            ],
        )
    assert (await service.sessions.review_status(GUILD, ALICE)).next_due == START + timedelta(
        days=2
    )

    # A due task that is open on a public post ALICE has not finished waits for that post.
    await service.create_post(GUILD, CHANNEL, TASKS[1], BOB)
    held = await service.sessions.review_status(GUILD, ALICE)
    assert (held.due_now, held.held) == (0, 1)
    assert step.session_id is not None
    end = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert end.posted is None and end.due is not None and end.due.due_now == 0


async def test_a_missed_public_task_is_due_at_once_and_a_right_review_moves_it_a_day(
    service: QuizService, clock: Clock
) -> None:
    nothing = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert nothing.posted is None and nothing.due is not None and nothing.due.due_now == 0

    public = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await miss(service, public.post.id)
    card = review_card(service.store, GUILD, ALICE, "t1")
    assert card is not None and card.due == START
    assert (await service.sessions.review_status(GUILD, ALICE)).due_now == 1

    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None and step.posted.task.id == "t1" and step.posted.post.private
    assert step.due is not None and step.due.due_now == 1
    await answer(service, step.posted.post.id, ALICE)
    card = review_card(service.store, GUILD, ALICE, "t1")
    assert card is not None and card.due >= clock.now + timedelta(days=1)

    assert step.session_id is not None
    end = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert end.posted is None and end.summary is not None and end.summary.solved == 1
    assert end.due is not None and end.due.due_now == 0 and end.due.next_due == card.due


async def test_two_finishes_of_a_task_on_one_local_day_rate_once(
    service: QuizService, clock: Clock
) -> None:
    first = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await answer(service, first.post.id, ALICE)  # Good: due in 2 days
    rated = review_card(service.store, GUILD, ALICE, "t1")
    assert rated is not None and rated.due == START + timedelta(days=2)
    clock.now += timedelta(hours=3)
    second = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await miss(service, second.post.id)
    assert review_card(service.store, GUILD, ALICE, "t1") == rated
    clock.now += timedelta(days=1)  # another day: rated again (Again: due at once)
    third = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await service.solution(third.post.id, GUILD, ALICE, "alice", confirmed=True)
    again = review_card(service.store, GUILD, ALICE, "t1")
    assert again is not None and again.due == clock.now


async def test_the_write_unit_rates_once_per_local_day_of_the_servers_zone(
    service: QuizService, clock: Clock
) -> None:
    await service.update_guild_config(GUILD, timezone="America/New_York")
    clock.now = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)  # 11:00 on the 10th in New York
    first = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await answer(service, first.post.id, ALICE)
    rated = review_card(service.store, GUILD, ALICE, "t1")
    clock.now = datetime(2026, 3, 11, 2, 30, tzinfo=UTC)  # 22:30, still the 10th there
    second = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await service.solution(second.post.id, GUILD, ALICE, "alice", confirmed=True)
    assert review_card(service.store, GUILD, ALICE, "t1") == rated
    clock.now = datetime(2026, 3, 11, 4, 30, tzinfo=UTC)  # 00:30 on the 11th there
    third = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await service.solution(third.post.id, GUILD, ALICE, "alice", confirmed=True)
    again = review_card(service.store, GUILD, ALICE, "t1")
    assert again is not None and again.due == clock.now


async def test_rating_a_card_never_sleeps_in_the_write_unit(
    service: QuizService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fsrs sleeps 1 ms per new fsrs.Card unless given an id: under the write lock, once per
    finished task, every answer batch behind it would wait."""
    import fsrs.card

    sleeps: list[float] = []
    monkeypatch.setattr(fsrs.card, "time", SimpleNamespace(sleep=sleeps.append))
    public = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await miss(service, public.post.id)  # a new card: Again
    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None
    await answer(service, step.posted.post.id, ALICE)  # its stored card: Good
    card = review_card(service.store, GUILD, ALICE, "t1")
    assert card is not None and card.due >= clock.now + timedelta(days=1)
    assert sleeps == []


async def test_a_review_step_counts_what_is_left_and_says_when_the_next_falls_due(
    service: QuizService, clock: Clock
) -> None:
    for task, missed in ((TASKS[0], True), (TASKS[1], True), (TASKS[2], False)):
        post = await service.create_post(GUILD, CHANNEL, task, BOB)
        if missed:
            await miss(service, post.post.id)
        else:
            await answer(service, post.post.id, ALICE)
    later = review_card(service.store, GUILD, ALICE, "t3")  # solved at once: not due yet
    assert later is not None and later.due > START
    clock.now += timedelta(minutes=5)
    first = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert first.posted is not None and first.due == DueSummary(2, later.due)
    assert first.session_id is not None
    second = await service.sessions.next(first.session_id, GUILD, CHANNEL, ALICE)
    assert second.posted is not None and second.number == 2
    assert {first.posted.task.id, second.posted.task.id} == {"t1", "t2"}
    assert second.due == DueSummary(1, later.due)


async def test_the_last_review_next_ends_the_session_with_what_is_still_due(
    service: QuizService, clock: Clock
) -> None:
    """The Next that ends a review reads, chooses and ends in one write unit: the summary and
    the due reviews it reports are the ones that unit saw (a missed card stays due)."""
    for task in TASKS[:2]:
        post = await service.create_post(GUILD, CHANNEL, task, BOB)
        await miss(service, post.post.id)
    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.session_id is not None and step.due is not None and step.due.due_now == 2
    while step.posted is not None:
        await miss(service, step.posted.post.id)  # missed again: due again at once
        step = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert step.summary is not None and (step.summary.served, step.summary.solved) == (2, 0)
    assert step.due is not None and step.due.due_now == 2
    with pytest.raises(SessionExpiredError):  # ended: the unit refuses another Next
        await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)


async def test_a_refused_next_posts_nothing(service: QuizService) -> None:
    step = await practice_step(service)
    assert step.session_id is not None
    with pytest.raises(PrivatePostError):
        await service.sessions.next(step.session_id, GUILD, CHANNEL, BOB)
    after = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert after.number == 2  # Bob's click added no post to Alice's session


async def test_review_serves_the_most_overdue_first_then_the_next_most(
    service: QuizService,
) -> None:
    with service.store.write() as conn:
        save_cards(
            conn,
            [
                due_card("t2", START - timedelta(days=1)),
                due_card("t3", START - timedelta(days=3)),
                due_card("t1", START - timedelta(days=2)),
            ],
        )
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    served = []
    while step.posted is not None:
        served.append(step.posted.task.id)
        assert step.session_id is not None
        step = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
    assert served == ["t3", "t1", "t2"]


async def test_a_practice_session_keeps_to_its_difficulty(clock: Clock) -> None:
    hard = [choice(f"h{n}", difficulty=Difficulty.HARD) for n in (1, 2)]
    service = quiz_service(clock, [*TASKS, *hard])
    await service.start()
    try:
        step = await service.sessions.start_practice(
            GUILD, CHANNEL, ALICE, difficulty=Difficulty.HARD
        )
        served = []
        while step.posted is not None:
            served.append(step.posted.task.id)
            assert step.session_id is not None
            step = await service.sessions.next(step.session_id, GUILD, CHANNEL, ALICE)
        assert sorted(served) == ["h1", "h2"]  # the easy tasks are not this session's
    finally:
        await service.close()


async def test_all_tasks_withheld_links_the_three_latest_posts_and_counts_them_all(
    clock: Clock,
) -> None:
    tasks = [*TASKS, choice("t4")]
    service = quiz_service(clock, tasks)
    await service.start()
    try:
        for n, task in enumerate(tasks, 1):
            public = await service.create_post(GUILD, CHANNEL, task, BOB)
            await service.run_write(
                StoreAction.WRITE, posts_unit.set_post_message, public.post.id, 1000 + n
            )
            clock.now += timedelta(minutes=1)
        with pytest.raises(TasksWithheldError) as withheld:
            await practice_step(service)
        assert withheld.value.total == 4
        assert [message for _, _, message in withheld.value.posts] == [1004, 1003, 1002]
    finally:
        await service.close()


# -- FSRS: what a rating does to a card (bot/quiz/review.py) --------------------------------


def rate(card: StoredCard | None, rating: ReviewRating, at: datetime) -> StoredCard:
    return review(card, rating, at, guild_id=GUILD, user_id=ALICE, task_id="t1")


def test_a_new_card_is_due_at_once_after_again_in_a_day_after_hard_and_two_after_good() -> None:
    assert rate(None, ReviewRating.AGAIN, START).due == START
    assert rate(None, ReviewRating.HARD, START).due == START + timedelta(days=1)
    assert rate(None, ReviewRating.GOOD, START).due == START + timedelta(days=2)


def test_a_missed_card_answered_right_the_same_day_moves_one_day_ahead() -> None:
    """README: after an Again the card is due at once, and answering it right then moves it
    about a day ahead (a new card's Good would move it two)."""
    missed = rate(None, ReviewRating.AGAIN, START)
    later = START + timedelta(minutes=5)
    assert rate(missed, ReviewRating.GOOD, later).due == later + timedelta(days=1)


def test_each_review_builds_on_the_cards_history_the_same_way_every_time() -> None:
    """Good, then Good when due: 2 days, then 11, then 46; Hard instead of the second Good: 8.
    No fuzzing: the same reviews give the same days every time."""
    for _ in range(3):
        first = rate(None, ReviewRating.GOOD, START)
        second = rate(first, ReviewRating.GOOD, first.due)
        assert second.due - first.due == timedelta(days=11)
        assert rate(first, ReviewRating.HARD, first.due).due - first.due == timedelta(days=8)
        third = rate(second, ReviewRating.GOOD, second.due)
        assert third.due - second.due == timedelta(days=46)


def test_missing_a_well_known_card_brings_it_back_within_days_not_weeks() -> None:
    """A card on an 11-day interval, missed when due: due at once, and answered right then it
    is due again in 2 days: the miss resets what the card had earned."""
    first = rate(None, ReviewRating.GOOD, START)
    known = rate(first, ReviewRating.GOOD, first.due)
    missed = rate(known, ReviewRating.AGAIN, known.due)
    assert missed.due == known.due
    later = known.due + timedelta(minutes=5)
    assert rate(missed, ReviewRating.GOOD, later).due == later + timedelta(days=2)


async def test_a_task_finished_on_one_public_post_is_not_held_for_another_post_of_it(
    service: QuizService, clock: Clock
) -> None:
    # Alice missed t1 on Monday's post; it is posted again. She can score nothing there (a
    # task's points count once), so nothing private gives an answer away: her due review of
    # t1 is served, not held for that post, and practice may serve t1 too.
    monday = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    await miss(service, monday.post.id)
    await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    status = await service.sessions.review_status(GUILD, ALICE)
    assert (status.due_now, status.held) == (1, 0)
    clock.now += timedelta(minutes=5)
    step = await service.sessions.start_review(GUILD, CHANNEL, ALICE)
    assert step.posted is not None and step.posted.task.id == "t1" and step.posted.post.private
    for task in TASKS[1:]:  # every other task open for her in public: only t1 is left
        await service.create_post(GUILD, CHANNEL, task, BOB)
    practice = await practice_step(service)
    assert practice.posted is not None and practice.posted.task.id == "t1"
    # Bob, who has not answered t1 anywhere, still finds it held.
    with pytest.raises(TasksWithheldError):
        await practice_step(service, BOB)


async def test_a_task_missed_three_times_across_its_public_posts_is_not_held_either(
    service: QuizService,
) -> None:
    # Alice misses t1 twice on one open post and once on another, finishing neither: its
    # misses count once, so no answer can score for her and practice need not hold it back.
    first = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    again = await service.create_post(GUILD, CHANNEL, TASKS[0], BOB)
    for task in TASKS[1:]:  # every other task open for her in public
        await service.create_post(GUILD, CHANNEL, task, BOB)
    for pick in "BC":
        await answer(service, first.post.id, ALICE, pick)
    with pytest.raises(TasksWithheldError):
        await practice_step(service)  # two misses: she can still score on t1
    await answer(service, again.post.id, ALICE, "D")
    practice = await practice_step(service)
    assert practice.posted is not None and practice.posted.task.id == "t1"
