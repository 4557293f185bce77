"""Answering: grading inside the write transaction, group commit, and the attempt limit."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from bot.quiz import engine
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.errors import (
    AttemptLimitError,
    InvalidAnswerError,
    PostClosedError,
    UnknownPostError,
)
from bot.quiz.tasks import Task
from bot.store import Answered, AnswerRequest, Store, answers, make_engine, posts
from tests.factories import fill
from tests.store.conftest import (
    GUILD,
    NOW,
    RIGHT,
    WRONG,
    WRONGS,
    finish,
    new_post,
    request,
)
from tests.store_calls import answer, answer_batch, read, reveal_solution, write

MANY_WRONG = fill(
    "t-many-wrong", prompt="[1] [2] [3] [4]", texts=("w", "x", "y", "z"), answers=("A",) * 4
)
"""Four blanks over four options: dozens of different wrong answers, for many misses."""


def run_threads(count: int, work: Callable[[int], None]) -> None:
    """Start `work(n)` in `count` threads at once; re-raise the first error any of them hit."""
    start = threading.Barrier(count)
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            start.wait()
            work(n)
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]


def table_count(store: Store, table: str, where: str = "TRUE") -> int:
    with store.read() as conn:
        return conn.execute(text(f"SELECT count(*) FROM {table} WHERE {where}")).scalar_one()


def test_first_try_solve_scores_full_points(store: Store) -> None:
    post = new_post(store)
    outcome = answer(store, request(post, 7), NOW).outcome
    assert outcome.status is Status.CORRECT
    assert outcome.points == 10
    assert read(store, answers.read_progress, post.id, 7) == Progress(solved=True, points=10)
    with store.read() as conn:
        score = conn.execute(text("SELECT * FROM score")).one()
    assert (score.points, score.solved, score.first_try, score.wrong_tries) == (10, 1, 1, 0)


def test_three_misses_fail_with_zero_points_and_one_score(store: Store) -> None:
    post = new_post(store)
    results = [answer(store, request(post, 7, p), NOW) for p in (*WRONGS, WRONG)]
    statuses = [a.outcome.status for a in results]
    assert statuses == [Status.WRONG, Status.WRONG, Status.FAILED, Status.ALREADY_FINISHED]
    assert read(store, answers.read_progress, post.id, 7) == Progress(
        wrong_tries=3, tried=frozenset(WRONGS)
    )
    assert table_count(store, "attempt") == 3
    assert table_count(store, "score", "points = 0 AND NOT solved AND wrong_tries = 3") == 1


def test_progress_counts_wrong_tries_before_a_solve(store: Store) -> None:
    post = new_post(store)
    outcome = finish(store, post, 7, NOW, wrong=2)
    assert (outcome.status, outcome.points) == (Status.CORRECT, 3)
    tried = frozenset(WRONGS[:2])
    assert read(store, answers.read_progress, post.id, 7) == Progress(
        wrong_tries=2, solved=True, points=3, tried=tried
    )
    with store.read() as conn:
        picks = conn.execute(text("SELECT picks FROM attempt ORDER BY attempt_no")).scalars()
        assert list(picks) == ["B", "C", "A"]


def test_the_same_wrong_answer_again_stores_nothing(store: Store) -> None:
    """A double click, or a retried click: not graded again, so no attempt row, no change
    to the post's counts, no score; a different wrong answer is graded as before."""
    post = new_post(store)
    first = answer(store, request(post, 7, WRONG), NOW).outcome
    again = answer(store, request(post, 7, WRONG), NOW).outcome
    assert (first.status, again.status) == (Status.WRONG, Status.REPEATED)
    assert again.attempts_left == 2 and again.notes == first.notes
    assert again.progress == first.progress == read(store, answers.read_progress, post.id, 7)
    assert table_count(store, "attempt") == 1
    assert read(store, posts.post_counts, post.id).answered == 1
    other = answer(store, request(post, 7, ("C",)), NOW).outcome
    assert (other.status, other.attempts_left) == (Status.WRONG, 1)
    with store.read() as conn:
        rows = conn.execute(text("SELECT attempt_no, picks FROM attempt ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [(1, "B"), (2, "C")]


def test_a_repeat_of_a_multi_blank_answer_is_read_back_from_its_stored_picks(
    store: Store,
) -> None:
    """The picks are stored as the engine graded them and read back into the same form."""
    post = new_post(store, task=MANY_WRONG)
    first = answer(store, request(post, 7, ("A", "B", "A", "C")), NOW).outcome
    assert first.status is Status.WRONG and first.wrong_blanks == (2, 4)
    assert read(store, answers.read_progress, post.id, 7).tried == {("A", "B", "A", "C")}
    again = answer(store, request(post, 7, ("A", "B", "A", "C")), NOW).outcome
    assert again.status is Status.REPEATED and again.wrong_blanks == (2, 4)
    swapped = answer(store, request(post, 7, ("A", "C", "A", "B")), NOW).outcome
    assert swapped.status is Status.WRONG  # other picks: another answer
    assert table_count(store, "attempt") == 2


def test_two_identical_clicks_in_one_batch_store_one_attempt(store: Store) -> None:
    """The second click sees the first, graded earlier in the same write unit."""
    post = new_post(store)
    batch = [request(post, 1, WRONG), request(post, 1, WRONG), request(post, 2, WRONG)]
    results = answer_batch(store, [*batch, request(post, 1, RIGHT)], NOW)
    statuses = [r.outcome.status for r in results if isinstance(r, Answered)]
    assert statuses == [Status.WRONG, Status.REPEATED, Status.WRONG, Status.CORRECT]
    with store.read() as conn:
        rows = conn.execute(text("SELECT user_id, attempt_no, picks FROM attempt ORDER BY id"))
        assert [tuple(r) for r in rows] == [(1, 1, "B"), (2, 1, "B"), (1, 2, "A")]
    tried = frozenset({WRONG})
    assert read(store, answers.read_progress, post.id, 1) == Progress(
        wrong_tries=1, solved=True, points=7, tried=tried
    )


def test_batch_isolates_a_failing_request(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bad request leaves no trace (not even its member row); the others commit."""
    post = new_post(store)
    calls = itertools.count(1)

    def grade_or_explode(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
        if next(calls) == 2:  # the second request's grading
            raise RuntimeError("grader bug")
        return engine.grade(task, progress, picks)

    monkeypatch.setattr(answers, "grade", grade_or_explode)

    batch = [
        request(post, 1),
        request(post, 2),
        request(post, 3, ("Z",)),  # the real grader rejects an unknown option
        request(post, 4, WRONG),
        request(999, 5),  # no such post
    ]
    results = answer_batch(store, batch, NOW)

    assert isinstance(results[0], Answered) and results[0].outcome.status is Status.CORRECT
    assert isinstance(results[1], RuntimeError)
    assert isinstance(results[2], InvalidAnswerError)
    assert isinstance(results[3], Answered) and results[3].outcome.status is Status.WRONG
    assert isinstance(results[4], UnknownPostError)
    with store.read() as conn:
        members = conn.execute(text("SELECT user_id FROM member ORDER BY user_id")).scalars()
        assert list(members) == [1, 4]
        attempts = conn.execute(text("SELECT user_id FROM attempt ORDER BY user_id")).scalars()
        assert list(attempts) == [1, 4]
    assert table_count(store, "score") == 1


def test_same_member_twice_in_a_batch_sees_the_first_answer(store: Store) -> None:
    post = new_post(store)
    results = answer_batch(
        store, [request(post, 1, WRONG), request(post, 1, RIGHT), request(post, 1, RIGHT)], NOW
    )
    statuses = [r.outcome.status for r in results if isinstance(r, Answered)]
    assert statuses == [Status.WRONG, Status.CORRECT, Status.ALREADY_FINISHED]
    with store.read() as conn:
        rows = conn.execute(text("SELECT attempt_no, correct FROM attempt ORDER BY id")).all()
    assert [tuple(r) for r in rows] == [(1, 0), (2, 1)]
    tried = frozenset({WRONG})
    assert read(store, answers.read_progress, post.id, 1) == Progress(
        wrong_tries=1, solved=True, points=7, tried=tried
    )


def test_a_batch_failure_of_the_transaction_itself_raises(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    post = new_post(store)

    def interrupt(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
        raise KeyboardInterrupt

    monkeypatch.setattr(answers, "grade", interrupt)

    with pytest.raises(KeyboardInterrupt):
        answer_batch(store, [request(post, 1), request(post, 2)], NOW)
    assert table_count(store, "member") == 0


def test_answer_reraises_the_slot_error(store: Store) -> None:
    post = new_post(store)
    with pytest.raises(InvalidAnswerError):
        answer(store, request(post, 1, ("A", "B")), NOW)
    with pytest.raises(UnknownPostError):
        answer(store, replace(request(post, 1), guild_id=GUILD + 1), NOW)


def test_closed_posts_refuse_answers_but_report_finished_members(store: Store) -> None:
    post = new_post(store, closes_at=NOW + timedelta(hours=1))
    answer(store, request(post, 1), NOW)
    later = NOW + timedelta(hours=1)
    with pytest.raises(PostClosedError):
        answer(store, request(post, 2), later)
    finished = answer(store, request(post, 1), later)
    assert finished.outcome.status is Status.ALREADY_FINISHED

    other = new_post(store)
    assert write(store, posts.close_post, other.id, NOW) is True
    assert write(store, posts.close_post, other.id, later) is False
    with pytest.raises(PostClosedError):
        answer(store, request(other, 2), NOW)


def test_member_name_follows_the_latest_interaction(store: Store) -> None:
    post = new_post(store)
    answer(store, AnswerRequest(post.id, GUILD, 1, "old", WRONG), NOW)
    answer(store, AnswerRequest(post.id, GUILD, 1, "new", RIGHT), NOW)
    with store.read() as conn:
        assert conn.execute(text("SELECT name FROM member")).scalar_one() == "new"


def test_database_rejects_a_fourth_attempt_without_the_store(file_store: Store) -> None:
    post = new_post(file_store)
    for picks in WRONGS:
        answer(file_store, request(post, 1, picks), NOW)
    insert = text(
        "INSERT INTO attempt (post_id, guild_id, user_id, attempt_no, picks, correct, created_at)"
        " VALUES (:post, :guild, 1, :no, 'B', FALSE, '2024-05-08 12:00:00.000000')"
    )
    for attempt_no in (4, 3, 0):  # past the limit, a duplicate, and nonsense
        with pytest.raises(IntegrityError), file_store.write() as conn:
            conn.execute(insert, {"post": post.id, "guild": GUILD, "no": attempt_no})
    assert table_count(file_store, "attempt") == 3


def test_database_limit_holds_even_if_grading_ignores_it(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grader that never says "finished" still cannot get a fourth attempt stored."""
    post = new_post(store)

    def stubborn(task: Task, progress: Progress, picks: tuple[str, ...]) -> Outcome:
        after = replace(progress, wrong_tries=progress.wrong_tries + 1)
        return Outcome(Status.WRONG, replace(after, wrong_tries=min(after.wrong_tries, 2)))

    monkeypatch.setattr(answers, "grade", stubborn)

    results = answer_batch(store, [request(post, 1, WRONG)] * 4, NOW)
    assert [type(r) for r in results] == [Answered, Answered, Answered, AttemptLimitError]
    assert table_count(store, "attempt") == 3


def test_concurrent_clicks_store_at_most_three_attempts(file_store: Store) -> None:
    """Many threads, each with its own connection from the pool, hammer wrong answers (each
    a different one) for one member on one post. The write lock serialises grading, and the
    database constraint backs it up: three attempts, one score, every other click told it is
    finished."""
    post = new_post(file_store, task=MANY_WRONG)
    threads, rounds = 16, 4
    wrongs = iter(itertools.product("BCD", repeat=MANY_WRONG.blanks))  # 81, none right
    picks = [[next(wrongs) for _ in range(rounds)] for _ in range(threads)]
    results: list[Outcome | Exception] = []

    def click(n: int) -> None:
        for mine in picks[n]:
            # list.extend is atomic under the GIL
            results.extend(answer_batch(file_store, [request(post, 1, mine)], NOW))

    run_threads(threads, click)

    assert all(isinstance(r, Answered) for r in results), results
    statuses = sorted(r.outcome.status for r in results if isinstance(r, Answered))
    assert statuses.count(Status.WRONG) == 2
    assert statuses.count(Status.FAILED) == 1
    assert statuses.count(Status.ALREADY_FINISHED) == threads * rounds - 3
    assert table_count(file_store, "attempt") == 3
    assert table_count(file_store, "score") == 1
    progress = read(file_store, answers.read_progress, post.id, 1)
    assert replace(progress, tried=frozenset()) == Progress(wrong_tries=3)
    assert len(progress.tried) == 3


def test_concurrent_identical_clicks_store_one_attempt(shared_database_url: str) -> None:
    """The same wrong click, from many threads of two stores (two processes, each with its
    own connections): the per-member lock serialises them, so each sees the stored one."""
    stores = [Store(make_engine(shared_database_url)) for _ in range(2)]
    try:
        post = new_post(stores[0])
        threads, rounds = 8, 3
        results: list[Answered | Exception] = []

        def click(n: int) -> None:
            for _ in range(rounds):
                batch = [request(post, 1, WRONG)]
                results.extend(answer_batch(stores[n % 2], batch, NOW))

        run_threads(threads, click)
        assert all(isinstance(r, Answered) for r in results), results
        statuses = [r.outcome.status for r in results if isinstance(r, Answered)]
        assert statuses.count(Status.WRONG) == 1
        assert statuses.count(Status.REPEATED) == threads * rounds - 1
        assert table_count(stores[0], "attempt") == 1
        assert read(stores[1], answers.read_progress, post.id, 1) == Progress(
            wrong_tries=1, tried=frozenset({WRONG})
        )
    finally:
        for store in stores:
            store.engine.dispose()


def test_concurrent_batches_of_many_members_all_commit(file_store: Store) -> None:
    post = new_post(file_store)
    threads = 16

    def answer_for(n: int) -> None:
        users = range(n * 100, n * 100 + 10)
        for picks in (WRONG, RIGHT):
            batch = [request(post, u, picks) for u in users]
            for result in answer_batch(file_store, batch, NOW):
                if isinstance(result, Exception):
                    raise result

    run_threads(threads, answer_for)
    assert table_count(file_store, "attempt") == threads * 10 * 2
    assert table_count(file_store, "score", "points = 7") == threads * 10
    assert read(file_store, posts.post_counts, post.id).solved == threads * 10


def test_concurrent_reveals_and_answers_finish_a_member_once(file_store: Store) -> None:
    """Reveals read progress before writing; BEGIN IMMEDIATE makes that safe under load
    (a deferred transaction would fail with SQLITE_BUSY on its first write)."""
    post = new_post(file_store)

    def act(n: int) -> None:
        for i in range(5):
            if n % 2:
                reveal_solution(file_store, post.id, GUILD, 1, "ada", NOW)
            else:  # different wrong answers, so the answers can finish the member too
                picks = WRONGS[(n // 2 + i) % len(WRONGS)]
                answer(file_store, request(post, 1, picks), NOW)

    run_threads(16, act)
    assert table_count(file_store, "score") == 1
    assert table_count(file_store, "reveal", "kind = 'solution'") == 1
    assert read(file_store, answers.read_progress, post.id, 1).finished


# -- a task's points count once per member and server, with writers racing -------------------


def _while_a_unit_is_open(
    store: Store, first: Callable[[Connection], object], second: Callable[[], object]
) -> None:
    """Run `first` in a write unit of work and, before it commits, `second` in another thread
    (another process's writer): `second` is given a moment to run past the first's reads."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            second()
        except BaseException as exc:
            errors.append(exc)

    other = threading.Thread(target=run)
    with store.write() as conn:
        first(conn)
        other.start()
        other.join(timeout=0.5)  # without a lock it has read, graded and committed by now
    other.join()
    if errors:
        raise errors[0]


def test_two_writers_answering_two_posts_of_one_task_score_it_once(file_store: Store) -> None:
    """Two processes grade one member on two public posts of one task at the same moment:
    the second must read the first's finish, not score the task a second time."""
    first, again = new_post(file_store), new_post(file_store)
    results: list[Answered | Exception] = []

    def answer_first(conn: Connection) -> None:
        results.extend(answers.record_batch(conn, [request(first, 1)], NOW))

    _while_a_unit_is_open(
        file_store,
        answer_first,
        lambda: results.extend(answer_batch(file_store, [request(again, 1)], NOW)),
    )
    points = sorted(r.outcome.points for r in results if isinstance(r, Answered))
    assert points == [0, 10], results
    assert table_count(file_store, "score", "points > 0") == 1


def test_a_forfeit_racing_an_answer_on_another_post_of_its_task_scores_nothing(
    file_store: Store,
) -> None:
    """The solution opened on one post while another process grades the member's answer on
    another post of the task: the answer, graded after the forfeit, scores nothing."""
    first, again = new_post(file_store), new_post(file_store)
    results: list[Answered | Exception] = []
    _while_a_unit_is_open(
        file_store,
        lambda conn: answers.reveal_solution(
            conn, first.id, GUILD, 1, "user1", NOW, confirmed=True
        ),
        lambda: results.extend(answer_batch(file_store, [request(again, 1)], NOW)),
    )
    ((answered,),) = [results]
    assert isinstance(answered, Answered) and answered.outcome.points == 0, answered
    assert table_count(file_store, "score", "points > 0") == 0


def test_a_miss_racing_a_solve_on_another_post_of_its_task_costs_its_points(
    file_store: Store,
) -> None:
    """A miss on one post held uncommitted while another process grades the member's solve
    on another post of the task: the solve, graded after the miss, scores as a second try."""
    first, again = new_post(file_store), new_post(file_store)
    results: list[Answered | Exception] = []

    def miss_first(conn: Connection) -> None:
        results.extend(answers.record_batch(conn, [request(first, 1, WRONG)], NOW))

    _while_a_unit_is_open(
        file_store,
        miss_first,
        lambda: results.extend(answer_batch(file_store, [request(again, 1)], NOW)),
    )
    points = [r.outcome.points for r in results if isinstance(r, Answered)]
    assert points == [0, 7], results
