"""A matching question whose stems share an answer, as Moodle allows: the bank takes it, the
answer is one option, each right pair earns its share, and GIFT and Moodle XML bring it in and
out unchanged."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.content import check_banks
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind, Option
from tests.content.importers.round_trip import assert_round_trip, imported

from .test_loader import assert_problem, line_of, only, write

BANK = """\
bank: Cities
topic: Geography
tasks:
  - id: cities
    kind: matching
    difficulty: medium
    question: Match each city to its country.
    pairs:
      - stem: Lyon
        answer: France
        mistakes:
          - answers: [Italy]
            note: Lyon is on the Rhône, in France.
      - stem: Milan
        answer: Italy
      - stem: Marseille
        answer: France
    distractors: [Spain]
    solution:
      explanation: Lyon and Marseille are in France, Milan in Italy.
"""

GIFT = """\
::Cities:: Match each city to its country. {
   =Lyon -> France
   =Milan -> Italy
   =Marseille -> France
   = -> Spain
}
"""

MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="matching">
    <name><text>Cities</text></name>
    <questiontext format="html"><text><![CDATA[<p>Match each city to its country.</p>]]></text>
    </questiontext>
    <shuffleanswers>true</shuffleanswers>
    <subquestion format="html">
      <text><![CDATA[<p>Lyon</p>]]></text><answer><text>France</text></answer>
    </subquestion>
    <subquestion format="html">
      <text><![CDATA[<p>Milan</p>]]></text><answer><text>Italy</text></answer>
    </subquestion>
    <subquestion format="html">
      <text><![CDATA[<p>Marseille</p>]]></text><answer><text>France</text></answer>
    </subquestion>
    <subquestion format="html">
      <text></text><answer><text>Spain</text></answer>
    </subquestion>
  </question>
</quiz>
"""

OPTIONS = (Option("A", "France"), Option("B", "Italy"), Option("C", "Spain"))


def test_two_stems_sharing_an_answer_make_one_option(tmp_path: Path) -> None:
    catalog, problems = check_banks(write(tmp_path, BANK))
    assert problems == []
    task = catalog.get_or_raise("cities")
    assert task.options == OPTIONS
    assert task.answers == ("A", "B", "A")
    assert task.notes_at(1, "B") == ("Lyon is on the Rhône, in France.",)
    assert task.final_answer() == "Lyon → France; Milan → Italy; Marseille → France"


def test_credit_is_per_right_pair_when_an_answer_is_shared(tmp_path: Path) -> None:
    catalog, _ = check_banks(write(tmp_path, BANK))
    task = catalog.get_or_raise("cities")
    assert engine.grade(task, Progress(), ("A", "B", "A")).status is Status.CORRECT
    every_one_france = engine.grade(task, Progress(), ("A", "A", "A"))
    assert every_one_france.status is Status.WRONG
    assert (every_one_france.credit, every_one_france.wrong_blanks) == (Fraction(2, 3), (2,))
    swapped = engine.grade(task, Progress(), ("B", "A", "C"))
    assert (swapped.credit, swapped.wrong_blanks) == (Fraction(0), (1, 2, 3))
    assert swapped.notes == ("Lyon is on the Rhône, in France.",)


def test_a_shared_answer_written_two_ways_is_refused(tmp_path: Path) -> None:
    file = write(
        tmp_path,
        BANK.replace(
            "        answer: France\n    distractors", "        answer: france\n    distractors"
        ),
    )
    _, problems = check_banks(file)
    line = line_of(file, "- stem: Lyon")
    why = "stems sharing an answer write it the same way"
    assert_problem(only(problems), file, line, "cities", "pairs", why)


def test_a_distractor_that_is_an_answer_is_still_refused(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("distractors: [Spain]", "distractors: [Spain, France]"))
    _, problems = check_banks(file)
    line = line_of(file, "- stem: Lyon")
    assert_problem(only(problems), file, line, "cities", "pairs", "'France' is given twice")


@pytest.mark.parametrize(("name", "text"), [("cities.gift", GIFT), ("cities.xml", MOODLE_XML)])
def test_moodle_s_shared_answer_imports(tmp_path: Path, name: str, text: str) -> None:
    code, (task,), err = imported(tmp_path, text, name)
    assert code == 0, err
    assert task.kind is Kind.MATCHING
    assert task.stems == ("Lyon", "Milan", "Marseille")
    assert task.options == OPTIONS
    assert task.answers == ("A", "B", "A")


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_import_export_import_keeps_the_shared_answer(tmp_path: Path, fmt: str) -> None:
    bank = BANK.replace(
        """        mistakes:
          - answers: [Italy]
            note: Lyon is on the Rhône, in France.
""",
        "",
    )  # notes on a stem's wrong answers have no GIFT or Moodle XML form
    assert_round_trip(tmp_path, bank, fmt=fmt, title="Cities")
