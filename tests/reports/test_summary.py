"""The close summary: pure cases, and the seed bank's `batch` task answered through a real Store."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot import i18n
from bot.content import load_banks
from bot.quiz.tasks import Task
from bot.reports import summary
from bot.store import AnswerRequest, Store, make_engine
from bot.store.schedules import AttemptInfo, ScheduleStore
from tests import store_calls
from tests.factories import choice_task, fill_task
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo
from tests.store_calls import create_post

CONTENT = Path(__file__).resolve().parents[2] / "content"
T0 = datetime(2025, 3, 3, 8, 0)


def attempt(user: int, no: int, picks: str, correct: bool, minute: int = 0) -> AttemptInfo:
    return AttemptInfo(
        1, user, no, tuple(picks.split(",")), correct, T0 + timedelta(minutes=minute)
    )


def test_counts_members_not_attempts() -> None:
    task = choice_task()  # answer A; B has a note
    attempts = [
        attempt(1, 1, "A", True, 1),
        attempt(2, 1, "B", False, 2),
        attempt(2, 2, "B", False, 3),  # the same member believing B twice counts once
        attempt(2, 3, "A", True, 4),
        attempt(3, 1, "C", False, 5),
        attempt(3, 2, "B", False, 6),
    ]
    result = summary.summarise(task, attempts)
    assert (result.answered, result.solved, result.first_try) == (3, 2, 1)
    assert [(m.label, m.members, m.percent) for m in result.misconceptions] == [
        ("B", 2, 67),
        ("C", 1, 33),
    ]
    assert result.misconceptions[0].line() == (
        "67% picked B — Model parallelism splits the model, not the data."
    )
    # No note tied to C: the option's text says what was believed.
    assert result.misconceptions[1].line() == "33% picked C — (pipeline flushing)"


@pytest.mark.parametrize(("members", "shown"), [(4, [25]), (5, [20]), (6, [])])
def test_the_twenty_percent_threshold_is_inclusive(members: int, shown: list[int]) -> None:
    wrong_once = [attempt(1, 1, "B", False), attempt(1, 2, "A", True)]
    right = [attempt(u, 1, "A", True, u) for u in range(2, members + 1)]
    result = summary.summarise(choice_task(), wrong_once + right)
    assert [m.percent for m in result.misconceptions] == shown


def test_top_answerers_fewest_tries_then_earliest() -> None:
    task = choice_task()
    attempts = [
        attempt(1, 1, "B", False, 0),
        attempt(1, 2, "A", True, 1),
        attempt(2, 1, "A", True, 5),
        attempt(3, 1, "A", True, 3),
        attempt(4, 1, "A", True, 9),
    ]
    result = summary.summarise(task, attempts)
    assert [(t.user_id, t.tries) for t in result.top] == [(3, 1), (2, 1), (4, 1)]
    assert "1. <@3> (first try) 2. <@2> (first try) 3. <@4> (first try)" in result.text()


def test_multi_blank_fill_is_per_blank() -> None:
    task = fill_task()  # answers A, C, C; D and B carry notes
    attempts = [
        attempt(1, 1, "D,C,C", False, 0),
        attempt(1, 2, "A,C,C", True, 1),
        attempt(2, 1, "A,B,C", False, 2),
        attempt(2, 2, "A,B,B", False, 3),
        attempt(3, 1, "A,C,C", True, 4),
    ]
    lines = [m.line() for m in summary.summarise(task, attempts).misconceptions]
    assert lines == [
        "[1] 33% picked D — '/' gives a float.",
        "[2] 33% picked B — 'devices' is not defined here.",
        "[3] 33% picked B — 'devices' is not defined here.",
    ]


def test_nobody_answered() -> None:
    text = summary.summarise(choice_task(), []).text()
    assert "Nobody answered" in text
    assert text.startswith("**Answer:** A · data parallelism")


def test_discussion_text_hides_the_explanation_in_a_spoiler() -> None:
    task = choice_task()
    text = summary.discussion_text(task)
    assert text.endswith("||Data is split.||")
    assert summary.discussion_name(task) == "Discuss · Multiple choice · Testing"


@pytest.mark.parametrize("pipes", ["||", "|||", "||||", "|||||"])
def test_no_run_of_pipes_in_the_explanation_ends_its_spoiler_early(pipes: str) -> None:
    """Discord ends a spoiler at the first "||": any run of pipes in the explanation (a shell
    `a ||| b`, a Markdown table's `||||`) must not leave one, or the rest shows while the
    quiz is still open."""
    task = choice_task()
    explained = replace(
        task, solution=replace(task.solution, explanation=f"x {pipes} the answer is A")
    )
    text = summary.discussion_text(explained)
    _, spoiler = text.split("||", 1)
    assert spoiler.endswith("||")
    hidden = spoiler.removesuffix("||")
    assert "||" not in hidden
    assert "the answer is A" in hidden


# -- the seed bank, through a real store -------------------------------------------------------


@pytest.fixture
def batch_task() -> Task:
    """The seed bank's first fill task: `dataset.[1](num_devices)`, where A is `batch`."""
    catalog = load_banks(CONTENT)
    (task,) = [t for t in catalog if any(o.text == "batch" for o in t.options)]
    assert task.answer_text() == "split"
    return task


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Store, ScheduleStore]]:
    engine = make_engine(f"sqlite:///{tmp_path}/quizbot.db")
    store = Store(engine)
    yield store, ScheduleStore(store)
    engine.dispose()


def test_misconceptions_from_real_attempts(
    batch_task: Task, stores: tuple[Store, ScheduleStore]
) -> None:
    store, schedules = stores
    now = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)
    post = create_post(store, 1, 10, batch_task, now=now)
    label = {o.text: o.label for o in batch_task.options}

    def answer(user: int, text: str) -> None:
        request = AnswerRequest(post.id, 1, user, f"member{user}", (label[text],))
        store_calls.answer(store, request, now)

    # 17 members: 7 believed `batch` (41%), 3 tried `shuffle` (18%: under the bar), 7 knew.
    for user in range(1, 8):
        answer(user, "batch")
        answer(user, "split")
    for user in range(8, 11):
        answer(user, "shuffle")
    answer(10, "split")
    for user in range(11, 18):
        answer(user, "split")

    result = summary.summarise(batch_task, schedules.attempts([post.id]))
    assert (result.answered, result.solved, result.first_try) == (17, 15, 7)
    note = "Using batch instead of split causes incorrect data division."
    assert [m.line() for m in result.misconceptions] == [f"41% picked {label['batch']} — {note}"]
    text = result.text()
    assert f"**Answer:** {label['split']} · split" in text
    assert "**17** answered · **15** solved · **7** on the first try" in text
    assert "1. <@11> (first try)" in text


# -- in the server's language ----------------------------------------------------------------------


def test_the_summary_goes_through_the_catalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line of the summary is a catalog message (the pseudo-locale shows it), the share
    written as the locale writes a percentage; a member's text and the bank's stay as they are."""
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    attempts = [attempt(1, 1, "A", True, 1), attempt(2, 1, "B", False, 2)]
    attempts += [attempt(2, 2, "B", False, 3), attempt(3, 1, "C", False, 4)]
    with i18n.speaking("de"):
        lines = summary.summarise(choice_task(), attempts).text(head="Kopf").split("\n")
    assert lines[:5] == [
        "Kopf",
        pseudo("**Answer:** {answer}").format(answer="A · data parallelism"),
        " · ".join(
            [
                pseudo("**{n}** answered").format(n=3),
                pseudo("**{n}** solved").format(n=1),
                pseudo("**{n}** on the first try").format(n=1),
            ]
        ),
        pseudo("**Top answerers:** {ranked}").format(ranked=f"1. <@1> ({pseudo('first try')})"),
        pseudo("**Common mistakes:**"),
    ]
    picked = pseudo("{percent} picked {label} — {why}")
    note = "Model parallelism splits the model, not the data."
    assert lines[5] == "• " + picked.format(percent="33\xa0%", label="B", why=note)
    assert lines[6] == "• " + picked.format(percent="33\xa0%", label="C", why="(pipeline flushing)")


def test_a_french_summary_counts_zero_as_singular() -> None:
    attempts = [attempt(user, 1, "B", False, user) for user in (1, 2, 3)]
    with i18n.speaking("fr"):
        text = summary.summarise(choice_task(), attempts).text()
    assert "**3** ont répondu · **0** a réussi · **0** du premier coup" in text
    assert "• 100\xa0% ont choisi B — " in text


def test_a_german_summary() -> None:
    attempts = [attempt(1, 1, "B", False, 1), attempt(1, 2, "A", True, 2)]
    attempts += [attempt(2, 1, "A", True, 3)]
    with i18n.speaking("de"):
        text = summary.summarise(choice_task(), attempts).text()
    assert "**2** haben geantwortet · **2** haben gelöst · **1** im ersten Versuch" in text
    assert "1. <@2> (erster Versuch) 2. <@1> (2 Versuche)" in text
    assert "**Häufige Fehler:**\n• 50\xa0% wählten B — " in text
