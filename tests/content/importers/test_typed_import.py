"""Short-answer and numerical questions in and out: GIFT's `{=Paris =paris}`, `{#3:2}`,
`{#1..5}` and `{#=3:0 =%50%3:1}`, Moodle XML's `shortanswer` (usecase) and `numerical` (units,
unit penalty) import as short and numerical tasks graded as Moodle grades them, and export
back; an import, export and import again loses nothing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.content import importers
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind, Task
from tests.content.importers.round_trip import assert_round_trip, imported

# Moodle's own examples (docs.moodle.org/en/GIFT_format): short answer and numerical.
GIFT_DOCS = """\
// ===Short Answer===
Who's buried in Grant's tomb?{=Grant =Ulysses S. Grant =Ulysses Grant}

Two plus two equals {=four =4}.

// ===Numerical===
When was Ulysses S. Grant born?{#1822:5}

What is the value of pi (to 3 decimal places)? {#3.1415:0.0005}.

What is a number from 1 to 5? {#1..5}

When was Ulysses S. Grant born? {#
         =1822:0      # Correct! Full credit.
         =%50%1822:2  # He was born in 1822. Half credit for being close.
}
"""
# As Moodle 4 writes a short-answer question (case-sensitive) and a numerical one with units.
MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="shortanswer">
    <name><text>Salt</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>The formula of table salt?</p>]]></text>
    </questiontext>
    <generalfeedback format="html"><text></text></generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <usecase>1</usecase>
    <answer fraction="100" format="moodle_auto_format">
      <text>NaCl</text>
      <feedback format="html"><text>Right.</text></feedback>
    </answer>
    <answer fraction="0" format="moodle_auto_format">
      <text>KCl</text>
      <feedback format="html"><text><![CDATA[<p>That is potassium chloride.</p>]]></text></feedback>
    </answer>
    <hint format="html"><text>Sodium and chlorine.</text></hint>
  </question>
  <question type="numerical">
    <name><text>Length</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>How long is the table?</p>]]></text>
    </questiontext>
    <generalfeedback format="html"><text></text></generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <answer fraction="100" format="moodle_auto_format">
      <text>1.5</text>
      <feedback format="html"><text></text></feedback>
      <tolerance>0.01</tolerance>
    </answer>
    <answer fraction="0" format="moodle_auto_format">
      <text>*</text>
      <feedback format="html"><text>Measure again.</text></feedback>
      <tolerance>0</tolerance>
    </answer>
    <unitgradingtype>1</unitgradingtype>
    <unitpenalty>0.1000000</unitpenalty>
    <showunits>0</showunits>
    <unitsleft>0</unitsleft>
    <units>
      <unit><multiplier>1</multiplier><unit_name>m</unit_name></unit>
      <unit><multiplier>100</multiplier><unit_name>cm</unit_name></unit>
    </units>
  </question>
</quiz>
"""


def right(task: Task, text: str) -> bool:
    return engine.grade(task, Progress(), (text,)).status is Status.CORRECT


def test_moodles_gift_examples_import_and_grade_as_moodle_does(tmp_path: Path) -> None:
    code, tasks, err = imported(tmp_path, GIFT_DOCS, "docs.gift")
    assert code == 0, err
    tomb, four, born, pi, one_to_five, born_half = tasks
    assert [t.kind for t in tasks] == [Kind.SHORT] * 2 + [Kind.NUMERICAL] * 4
    assert right(tomb, "ulysses s. grant") and not right(tomb, "Lincoln")
    assert right(four, "4") and right(four, "FOUR")
    assert right(born, "1817") and right(born, "1827") and not right(born, "1828")
    assert right(pi, "3.1416") and right(pi, "3,1415") and not right(pi, "3.14")
    assert right(one_to_five, "1") and right(one_to_five, "5") and not right(one_to_five, "6")
    half = engine.grade(born_half, Progress(), ("1823",))
    assert half.status is Status.WRONG and half.credit == Fraction(1, 2)
    assert right(born_half, "1822")


def test_moodle_xml_shortanswer_and_numerical_import_with_case_and_units(tmp_path: Path) -> None:
    code, (salt, length), err = imported(tmp_path, MOODLE_XML, "moodle.xml")
    assert code == 0, err
    assert salt.kind is Kind.SHORT and salt.short is not None and salt.short.case_sensitive
    assert right(salt, "NaCl") and not right(salt, "nacl")
    wrong = engine.grade(salt, Progress(), ("KCl",))
    assert wrong.notes == ("That is potassium chloride.",)
    assert salt.hints == ("Sodium and chlorine.",)
    assert length.kind is Kind.NUMERICAL and length.numeric is not None
    assert right(length, "150 cm") and right(length, "1.5 m")
    bare = engine.grade(length, Progress(), ("1.5",))  # unit missing: 10% off
    assert bare.credit == Fraction(9, 10)
    assert engine.grade(length, Progress(), ("2 m",)).notes == ("Measure again.",)


BANK = """\
bank: Mixed
topic: Geography
tasks:
  - id: capital-fr
    kind: short
    difficulty: easy
    question: What is the **capital** of France?
    answers:
      - Paris
      - text: Paname
        credit: 50
    typos: 1
    mistakes:
      - answers: [Lyon, Marseille]
        note: A large city, but not the capital.
      - Think of the Eiffel Tower.
    hints: [On the Seine., Starts with P.]
    solution:
      explanation: Paris has been the capital since 987.
  - id: salt
    kind: short
    difficulty: medium
    question: The formula of table salt?
    answers: ["NaCl", "Na*Cl"]
    case_sensitive: true
    solution:
      final_answer: NaCl
  - id: born
    kind: numerical
    difficulty: hard
    question: When was Ulysses S. Grant born?
    answers:
      - "1822"
      - answer: "1822:2"
        credit: 50
    mistakes:
      - answers: ["1869:0"]
        note: That is when he became president.
    solution:
      explanation: 27 April 1822.
"""


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_import_export_import_loses_nothing(tmp_path: Path, fmt: str) -> None:
    assert_round_trip(tmp_path, BANK, fmt=fmt, title="Mixed")


def test_units_have_no_gift_form_and_are_left_out_with_a_reason() -> None:
    length = MOODLE_XML
    _, result = importers.parse(length, source="m.xml", fmt="moodle-xml")
    tasks = []
    for draft in result.drafts:
        assert draft.numeric is None or draft.numeric.units
    del tasks

    catalog_task = [d for d in result.drafts if d.numeric is not None]
    assert catalog_task
