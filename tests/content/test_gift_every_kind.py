"""Moodle's own GIFT documentation, one example of every kind in one file, through
`quizbot content import`: every question but the essay and the description comes in, with its
kind, and each is graded as Moodle grades it (weights, tolerance, range, wildcard, matching
credit), checked with a right, a partial and a wrong answer where Moodle has all three."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.content import check_banks
from bot.quiz import engine
from bot.quiz.engine import Outcome, Progress, Status
from bot.quiz.errors import InvalidAnswerError
from bot.quiz.tasks import MAX_ATTEMPTS, Catalog, Kind, Task
from tests.cli_run import run_quizbot_cli

SOURCE = Path(__file__).parent / "importers" / "data" / "moodle_docs.gift"

KINDS = {
    "grants-tomb": Kind.CHOICE,
    "grants-tomb-feedback": Kind.CHOICE,
    "moodle-costs": Kind.FILL,
    "gandhi": Kind.FILL,
    "grant-buried": Kind.CHOICE,
    "sun-rises": Kind.CHOICE,
    "grants-tomb-short": Kind.SHORT,
    "two-plus-two": Kind.SHORT,
    "jesus-hometown": Kind.SHORT,
    "grant-full-name": Kind.SHORT,
    "capitals": Kind.MATCHING,
    "grant-born": Kind.NUMERICAL,
    "pi-tolerance": Kind.NUMERICAL,
    "pi-range": Kind.NUMERICAL,
    "grant-born-credit": Kind.NUMERICAL,
    "grants-tomb-two": Kind.MULTI,
    "difficult": Kind.MULTI,  # one pick, partial credit: `single`
}

# (task, answer, Moodle's fraction): typed answers as typed; choice, fill and multi answers as
# option texts; a matching answer as each stem's answer text, in stem order.
GRADES = [
    ("grants-tomb", ["Grant"], Fraction(1)),
    ("grants-tomb", ["Napoleon"], Fraction(0)),
    ("grants-tomb-feedback", ["Grant"], Fraction(1)),
    ("grants-tomb-feedback", ["Churchill"], Fraction(0)),
    ("moodle-costs", ["nothing"], Fraction(1)),
    ("moodle-costs", ["lots of money"], Fraction(0)),
    ("gandhi", ["2nd"], Fraction(1)),
    ("gandhi", ["15th"], Fraction(0)),
    ("grant-buried", ["False"], Fraction(1)),
    ("grant-buried", ["True"], Fraction(0)),
    ("sun-rises", ["True"], Fraction(1)),
    ("sun-rises", ["False"], Fraction(0)),
    ("grants-tomb-short", ["  ulysses   S. GRANT "], Fraction(1)),  # case and spaces
    ("grants-tomb-short", ["Napoleon"], Fraction(0)),
    ("two-plus-two", ["4"], Fraction(1)),
    ("two-plus-two", ["Four"], Fraction(1)),
    ("two-plus-two", ["five"], Fraction(0)),
    ("jesus-hometown", ["Nazareth"], Fraction(1)),
    ("jesus-hometown", ["nazereth"], Fraction(3, 4)),
    ("jesus-hometown", ["Bethlehem"], Fraction(1, 4)),
    ("jesus-hometown", ["Jerusalem"], Fraction(0)),
    ("grant-full-name", ["Ulysses Simpson Grant"], Fraction(1)),  # the wildcard
    ("grant-full-name", ["Ulysses S. Grant"], Fraction(1)),
    ("grant-full-name", ["Grant"], Fraction(1, 2)),
    ("grant-full-name", ["Ulysses"], Fraction(0)),
    ("capitals", ["Ottawa", "Rome", "Tokyo", "New Delhi"], Fraction(1)),
    ("capitals", ["Ottawa", "Rome", "New Delhi", "Tokyo"], Fraction(1, 2)),
    ("capitals", ["Rome", "Ottawa", "New Delhi", "Tokyo"], Fraction(0)),
    ("grant-born", ["1822"], Fraction(1)),
    ("grant-born", ["1817"], Fraction(1)),  # 1822 ± 5, the bound included
    ("grant-born", ["1816"], Fraction(0)),
    ("pi-tolerance", ["3.1416"], Fraction(1)),
    ("pi-tolerance", ["3,1412"], Fraction(1)),  # a decimal comma
    ("pi-tolerance", ["3.14"], Fraction(0)),
    ("pi-range", ["3.1415"], Fraction(1)),
    ("pi-range", ["3.142"], Fraction(1)),
    ("pi-range", ["3.143"], Fraction(0)),
    ("grant-born-credit", ["1822"], Fraction(1)),
    ("grant-born-credit", ["1824"], Fraction(1, 2)),
    ("grant-born-credit", ["1825"], Fraction(0)),
    ("grants-tomb-two", ["Grant", "Grant's wife"], Fraction(1)),
    ("grants-tomb-two", ["Grant's wife"], Fraction(1, 2)),
    ("grants-tomb-two", ["Grant", "Grant's father"], Fraction(0)),  # never below 0
    ("grants-tomb-two", ["No one"], Fraction(0)),
    ("difficult", ["full credit answer"], Fraction(1)),
    ("difficult", ["half credit answer"], Fraction(1, 2)),
    ("difficult", ["wrong answer"], Fraction(0)),
]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, str, int]:
    """The documentation file through the command line, as a teacher imports it."""
    output = tmp_path_factory.mktemp("docs") / "bank.yaml"
    run = run_quizbot_cli("content", "import", str(SOURCE), "--output", str(output))
    catalog, problems = check_banks(output)
    assert problems == [], problems
    return catalog, run.stderr, run.returncode


def picks(task: Task, answer: list[str]) -> tuple[str, ...]:
    """What a member submits: the typed text, or the labels of the options named."""
    if task.typed:
        return tuple(answer)
    label = {o.text: o.label for o in task.options}
    return tuple(label[text] for text in answer)


def fraction(outcome: Outcome) -> Fraction:
    if outcome.status is Status.CORRECT:
        return Fraction(1)
    return outcome.credit or Fraction(0)


def test_every_question_but_the_essay_and_the_description_comes_in_with_its_kind(
    imported: tuple[Catalog, str, int],
) -> None:
    catalog, stderr, code = imported
    assert {task.id: task.kind for task in catalog} == KINDS
    assert code == 1  # a question was left out: the import says so in its exit code
    assert "moodle_docs.gift:84: left out: essay questions are not supported (yet)" in stderr
    left = "moodle_docs.gift:87: left out: description questions are not supported (yet)"
    assert left in stderr
    assert stderr.count("left out") == 2


@pytest.mark.parametrize(("task_id", "answer", "moodle"), GRADES)
def test_each_answer_is_graded_as_moodle_grades_it(
    imported: tuple[Catalog, str, int], task_id: str, answer: list[str], moodle: Fraction
) -> None:
    task = imported[0].get_or_raise(task_id)
    assert fraction(engine.grade(task, Progress(), picks(task, answer))) == moodle


@pytest.mark.parametrize(
    ("task_id", "answer", "points"),
    [
        ("jesus-hometown", ["Nazereth"], 5),  # 20 × 1/3 × 75%
        ("grants-tomb-two", ["Grant"], 3),  # 20 × 1/3 × 50%, rounded
        ("difficult", ["half credit answer"], 3),
        ("capitals", ["Ottawa", "Rome", "New Delhi", "Tokyo"], 3),
        ("grant-born-credit", ["1821"], 3),
        ("pi-range", ["3.143"], 0),
    ],
)
def test_a_partial_answer_on_the_last_attempt_earns_its_share_of_the_points(
    imported: tuple[Catalog, str, int], task_id: str, answer: list[str], points: int
) -> None:
    task = imported[0].get_or_raise(task_id)
    last = Progress(wrong_tries=MAX_ATTEMPTS - 1)
    assert engine.grade(task, last, picks(task, answer)).points == points


def test_the_partial_credit_multiple_choice_takes_one_pick(
    imported: tuple[Catalog, str, int],
) -> None:
    """Moodle's single-answer question with a `~%50%` answer: one option, never two."""
    task = imported[0].get_or_raise("difficult")
    assert task.single
    half = engine.grade(task, Progress(), picks(task, ["half credit answer"]))
    assert (half.status, half.notes) == (Status.WRONG, ("comment on answer",))
    with pytest.raises(InvalidAnswerError):
        engine.grade(task, Progress(), picks(task, ["full credit answer", "half credit answer"]))
