"""Typed answers in the store: the text kept with the attempt, normalised; a repeat read back
(commas and all) uses no attempt; a numerical non-number stores nothing; and a burst of typed
answers from many threads stores three attempts, never more."""

from __future__ import annotations

import io
from dataclasses import replace
from zoneinfo import ZoneInfo

from bot.quiz.engine import Progress, Status
from bot.quiz.numeric import NotANumberError
from bot.results_export import write_csv
from bot.store import Answered, Store, answers
from bot.store.insights import InsightsStore
from tests.quiz.test_numerical import numerical
from tests.quiz.test_short import short
from tests.store.conftest import NOW, new_post, request
from tests.store.test_answers import run_threads, table_count
from tests.store_calls import answer, answer_batch, read

PARIS = short("Paris")


def test_the_typed_text_is_stored_normalised_and_a_repeat_uses_no_attempt(store: Store) -> None:
    post = new_post(store, task=PARIS)
    first = answer(store, request(post, 1, ("  Lyon,   France ",)), NOW).outcome
    assert first.status is Status.WRONG
    with store.read() as conn:
        [picks] = conn.exec_driver_sql("SELECT picks FROM attempt").scalars().all()
    assert picks == "Lyon, France"
    again = answer(store, request(post, 1, ("lyon, france",)), NOW).outcome
    assert again.status is Status.REPEATED
    assert table_count(store, "attempt") == 1


def test_a_number_that_is_not_one_stores_nothing(store: Store) -> None:
    post = new_post(store, task=numerical("3:1"))
    [result] = answer_batch(store, [request(post, 1, ("three",))], NOW)
    assert isinstance(result, NotANumberError)
    assert table_count(store, "attempt") == 0
    assert answer(store, request(post, 1, ("3,5",)), NOW).outcome.status is Status.CORRECT


def test_a_burst_of_typed_answers_stores_at_most_three_attempts(file_store: Store) -> None:
    post = new_post(file_store, task=PARIS)
    threads, rounds = 12, 3
    results: list[Answered | Exception] = []

    def submit(n: int) -> None:
        for r in range(rounds):
            batch = [request(post, 1, (f"guess {n}-{r}",))]
            results.extend(answer_batch(file_store, batch, NOW))

    run_threads(threads, submit)
    assert all(isinstance(r, Answered) for r in results), results
    statuses = [r.outcome.status for r in results if isinstance(r, Answered)]
    assert statuses.count(Status.WRONG) == 2 and statuses.count(Status.FAILED) == 1
    assert table_count(file_store, "attempt") == 3
    progress = read(file_store, answers.read_progress, post.id, 1)
    assert replace(progress, tried=frozenset()) == Progress(wrong_tries=3)


def test_the_results_export_carries_the_last_typed_answer_as_inert_text(store: Store) -> None:
    post = new_post(store, task=PARIS)
    answer(store, request(post, 1, ("Lyon",)), NOW)
    answer(store, request(post, 1, ("=HYPERLINK(1)",)), NOW)
    [row] = InsightsStore(store).results(post.guild_id, ZoneInfo("UTC"))
    assert row.answer == "=HYPERLINK(1)"
    out = io.StringIO()
    write_csv([row], out)
    assert "'=HYPERLINK(1)" in out.getvalue()  # never a formula in a spreadsheet
