"""Multiple-answer questions in and out: GIFT's `~%50%` weights and Moodle XML's multichoice
with `single` false import as multi tasks, graded as Moodle grades them, and export back; an
import, export and import again loses nothing."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import pytest

from bot.content.transfer import export_command, import_command
from bot.content.uploads import UploadedBank, check_upload
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind
from tests.content.importers.round_trip import assert_round_trip, imported

# The multiple-answer example of Moodle's GIFT documentation (docs.moodle.org, "GIFT format").
GIFT_DOCS = """\
// question: 1 name: Grant's tomb
::Grant's tomb::What two people are entombed in Grant's tomb? {
   ~%-100%No one
   ~%50%Grant
   ~%50%Grant's wife
   ~%-100%Grant's father
}
"""
# As Moodle 4 exports a multichoice question with several right answers (thirds as Moodle
# writes them, HTML texts, its default combined feedback).
MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<!-- question: 12  -->
  <question type="multichoice">
    <name>
      <text>Primes</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p dir="ltr" style="text-align: left;">Which are prime?</p>]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text></text>
    </generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <single>false</single>
    <shuffleanswers>true</shuffleanswers>
    <answernumbering>abc</answernumbering>
    <showstandardinstruction>0</showstandardinstruction>
    <correctfeedback format="html">
      <text>Your answer is correct.</text>
    </correctfeedback>
    <partiallycorrectfeedback format="html">
      <text>Your answer is partially correct.</text>
    </partiallycorrectfeedback>
    <incorrectfeedback format="html">
      <text>Your answer is incorrect.</text>
    </incorrectfeedback>
    <shownumcorrect/>
    <answer fraction="33.33333" format="html">
      <text><![CDATA[<p>2</p>]]></text>
      <feedback format="html"><text></text></feedback>
    </answer>
    <answer fraction="33.33333" format="html">
      <text><![CDATA[<p>3</p>]]></text>
      <feedback format="html"><text></text></feedback>
    </answer>
    <answer fraction="-33.33333" format="html">
      <text><![CDATA[<p>4</p>]]></text>
      <feedback format="html"><text><![CDATA[<p>4 is 2 × 2.</p>]]></text></feedback>
    </answer>
    <answer fraction="33.33333" format="html">
      <text><![CDATA[<p>5</p>]]></text>
      <feedback format="html"><text></text></feedback>
    </answer>
  </question>
</quiz>
"""


def test_gifts_multiple_answer_example_imports_and_grades_as_moodle_does(tmp_path: Path) -> None:
    code, (task,), err = imported(tmp_path, GIFT_DOCS, "tomb.gift")
    assert code == 0, err
    assert task.kind is Kind.MULTI
    assert [o.text for o in task.options] == ["No one", "Grant", "Grant's wife", "Grant's father"]
    assert task.answers == ("B", "C")
    assert task.weights == (-100, 50, 50, -100)
    assert engine.grade(task, Progress(), ("B", "C")).status is Status.CORRECT
    # Moodle: 50% for Grant alone, 0% (never below) for Grant and No one.
    assert engine.credit(task, ("B",)) == Fraction(1, 2)
    assert engine.credit(task, ("A", "B")) == 0


def test_a_multichoice_written_by_moodle_with_thirds_imports_as_equal_shares(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, MOODLE_XML, "primes.xml")
    assert code == 0, err
    assert task.kind is Kind.MULTI
    assert task.prompt == "Which are prime?"
    assert task.answers == ("A", "B", "D")
    assert task.weights == tuple(Fraction(100, 3) * s for s in (1, 1, -1, 1))
    assert task.notes_for("C") == ("4 is 2 × 2.",)
    assert task.solution.final_answer == "2; 3; 5"
    outcome = engine.grade(task, Progress(), ("A", "B", "C", "D"))
    assert outcome.status is Status.WRONG and outcome.credit == Fraction(2, 3)


def test_weights_that_do_not_make_100_leave_the_xml_question_out_and_fail_the_import(
    tmp_path: Path,
) -> None:
    text = MOODLE_XML.replace('fraction="33.33333" format="html">\n      <text><![CDATA[<p>5', (
        'fraction="0" format="html">\n      <text><![CDATA[<p>5'
    ))
    source = tmp_path / "primes.xml"
    source.write_text(text, encoding="utf-8")
    err = io.StringIO()
    code = import_command(source, fmt=None, topic=None, output=None, out=io.StringIO(), err=err)
    assert code == 1
    assert "left out: question 'Primes': its right answers add up to 66.6667%, not 100%" in (
        err.getvalue()
    )


BANK = """\
bank: Python types
topic: Python
tasks:
  - id: py-mutable
    kind: multi
    difficulty: hard
    question: Which of these types are **mutable**?
    options: [list, tuple, dict, str]
    answers: [A, C]
    show_count: true
    hints: [Can you change it in place?, Think of append.]
    solution:
      explanation: Lists and dicts change in place.
    mistakes:
      - note: A tuple cannot change after it is made.
        options: [B]
      - Read the question twice.
  - id: py-weighted
    kind: multi
    difficulty: easy
    question: Which are sequences?
    options:
      - text: list
        weight: 40
      - text: str
        weight: 60
      - text: dict
        weight: -100
      - set
    solution:
      final_answer: list and str
"""


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_import_export_import_loses_nothing(tmp_path: Path, fmt: str) -> None:
    assert_round_trip(tmp_path, BANK, fmt=fmt, title="Python types")


def test_the_export_command_writes_weights_gift_reads(tmp_path: Path) -> None:
    bank = tmp_path / "types.yaml"
    bank.write_text(BANK, encoding="utf-8")
    out = io.StringIO()
    assert export_command(bank, fmt="gift", output=None, out=out, err=io.StringIO()) == 0
    gift = out.getvalue()
    assert "// show count: true" in gift
    assert "~%50%list\n~%-50%tuple#A tuple cannot change after it is made.\n" in gift
    assert "~%40%list\n~%60%str\n~%-100%dict\n~set\n" in gift  # set: no weight, 0%


@pytest.mark.parametrize(("name", "text"), [("tomb.gift", GIFT_DOCS), ("primes.xml", MOODLE_XML)])
def test_a_moderators_upload_of_a_multiple_answer_file_is_a_bank_of_multi_tasks(
    name: str, text: str
) -> None:
    uploaded = check_upload(text.encode(), name, topic="History")
    assert isinstance(uploaded, UploadedBank), uploaded
    (task,) = uploaded.tasks
    assert task.kind is Kind.MULTI and len(task.answers) >= 2


# Moodle's own test of its GIFT importer (question/format/gift/tests/giftformat_test.php,
# test_import_multichoice_multi): Moodle reads fractions 0.5, -1, 0.5, -1 and single = 0.
MOODLE_GIFT_TEST = """\
// multiple choice, multiple response with specified feedback for right and wrong answers
::colours:: What's between orange and green in the spectrum?
{
    ~%50%yellow # right; good!
    ~%-100%red # [html]wrong
    ~%50%off-beige # right; good!
    ~%-100%[plain]blue # wrong
}
"""


def test_moodles_own_multiple_response_example_imports_as_moodle_reads_it(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, MOODLE_GIFT_TEST, "colours.gift")
    assert code == 0, err
    assert task.id == "colours" and task.kind is Kind.MULTI
    assert [o.text for o in task.options] == ["yellow", "red", "off-beige", "blue"]
    assert task.weights == (50, -100, 50, -100)
    assert task.notes_for("B") == task.notes_for("D") == ("wrong",)
    assert task.solution.explanation == "right; good!"
    assert engine.credit(task, ("A", "C")) == 1
    assert engine.credit(task, ("A", "B", "C")) == 0
