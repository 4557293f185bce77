"""Matching questions in and out: GIFT's `{=stem -> answer = -> distractor}` and Moodle XML's
`matching` (a `<subquestion>` per stem, an empty stem a distractor) import as matching tasks
graded as Moodle grades them, and export back; import, export and import again loses nothing."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from bot.content.transfer import exported
from bot.content.uploads import UploadedBank, check_upload
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind, Task
from tests.content.importers.round_trip import assert_round_trip, imported
from tests.factories import matching, note

# Moodle's own example (docs.moodle.org/en/GIFT_format, "Matching").
GIFT_DOCS = """\
Match the following countries with their corresponding capitals. {
   =Canada -> Ottawa
   =Italy  -> Rome
   =Japan  -> Tokyo
   =India  -> New Delhi
   ####It's good to know the capitals
   }
"""
# Moodle's own test of its GIFT importer (question/format/gift/tests/giftformat_test.php,
# test_import_match): four subquestions, and `= -> Chat` an answer with no question.
MOODLE_GIFT_TEST = """\
// question: 2  name: Moodle activities
::Moodle activities::[html]Match the <b>activity</b> to the description.{
    =[html]An activity supporting asynchronous discussions. -> Forum
    =[moodle]A teacher asks a question and specifies a choice of multiple responses. -> Choice
    =[plain]A bank of record entries which participants can add to. -> Database
    =[markdown]A collection of web pages that anyone can add to or edit. -> Wiki
    = -> Chat
}
"""
# As Moodle 4 writes a matching question: HTML stems, plain-text answers, a distractor.
MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="matching">
    <name><text>Capitals</text></name>
    <questiontext format="html"><text><![CDATA[<p>Match the capitals.</p>]]></text></questiontext>
    <generalfeedback format="html"><text></text></generalfeedback>
    <defaultgrade>1.0000000</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <shuffleanswers>true</shuffleanswers>
    <correctfeedback format="html"><text>Your answer is correct.</text></correctfeedback>
    <partiallycorrectfeedback format="html">
      <text>Your answer is partially correct.</text>
    </partiallycorrectfeedback>
    <incorrectfeedback format="html"><text>Your answer is incorrect.</text></incorrectfeedback>
    <shownumcorrect/>
    <subquestion format="html">
      <text><![CDATA[<p>Canada</p>]]></text>
      <answer><text>Ottawa</text></answer>
    </subquestion>
    <subquestion format="html">
      <text><![CDATA[<p>Japan</p>]]></text>
      <answer><text>Tokyo</text></answer>
    </subquestion>
    <subquestion format="html">
      <text></text>
      <answer><text>Sydney</text></answer>
    </subquestion>
    <hint format="html"><text>Not the largest cities.</text></hint>
  </question>
</quiz>
"""


def picks_for(task: Task, answers: list[str]) -> tuple[str, ...]:
    """The option labels of `answers`, one per stem in order."""
    return tuple(next(o.label for o in task.options if o.text == a) for a in answers)


def test_moodles_gift_example_imports_and_grades_as_moodle_does(tmp_path: Path) -> None:
    code, (task,), err = imported(tmp_path, GIFT_DOCS, "docs.gift")
    assert code == 0, err
    assert task.kind is Kind.MATCHING
    assert task.stems == ("Canada", "Italy", "Japan", "India")
    right = ["Ottawa", "Rome", "Tokyo", "New Delhi"]
    assert engine.grade(task, Progress(), picks_for(task, right)).status is Status.CORRECT
    half = engine.grade(task, Progress(), picks_for(task, ["Ottawa", "Rome", "New Delhi", "Tokyo"]))
    assert (half.status, half.credit, half.wrong_blanks) == (Status.WRONG, Fraction(1, 2), (3, 4))
    assert task.solution.explanation == "It's good to know the capitals"


def test_moodles_own_gift_test_keeps_the_answer_without_a_question_as_a_distractor(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, MOODLE_GIFT_TEST, "moodle.gift")
    assert code == 0, err
    assert len(task.stems) == 4
    assert task.stems[0] == "An activity supporting asynchronous discussions."
    assert sorted(o.text for o in task.options) == ["Chat", "Choice", "Database", "Forum", "Wiki"]
    assert [task.answer_text(n) for n in range(1, 5)] == ["Forum", "Choice", "Database", "Wiki"]


def test_a_matching_question_written_by_moodle_imports_with_its_distractor_and_hint(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, MOODLE_XML, "moodle.xml")
    assert code == 0, err
    assert task.kind is Kind.MATCHING
    assert task.prompt == "Match the capitals."
    assert task.stems == ("Canada", "Japan")
    assert [o.text for o in task.options] == ["Ottawa", "Sydney", "Tokyo"]
    assert task.hints == ("Not the largest cities.",)
    assert task.general_notes == ()  # Moodle's default incorrect feedback is no note
    assert task.final_answer() == "Canada → Ottawa; Japan → Tokyo"


BANK = """\
bank: Capitals
topic: Geography
tasks:
  - id: capitals
    kind: matching
    difficulty: hard
    question: Match each country to its capital.
    pairs:
      - stem: France
        answer: Paris
      - stem: "**Italy**"
        answer: Rome
    distractors: [Lyon, Milan]
    hints: [Where the government sits., Not Milan.]
    mistakes:
      - Capitals are where the governments sit.
    solution:
      explanation: Paris and Rome.
"""


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_import_export_import_loses_nothing(tmp_path: Path, fmt: str) -> None:
    assert_round_trip(tmp_path, BANK, fmt=fmt, title="Capitals")


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_notes_on_a_stem_s_wrong_answer_have_no_moodle_form_and_are_left_out(fmt: str) -> None:
    task = matching(mistakes=(note("Lyon is not the capital.", "1:A"),))
    text, left = exported([task], fmt=fmt, bank="Capitals")
    assert "notes on a stem's wrong answers" in left[task.id]
    assert "France" not in text


@pytest.mark.parametrize(("name", "text"), [("docs.gift", GIFT_DOCS), ("capitals.xml", MOODLE_XML)])
def test_a_moderators_upload_of_a_matching_file_is_a_bank_of_matching_tasks(
    name: str, text: str
) -> None:
    uploaded = check_upload(text.encode(), name, topic="Geography")
    assert isinstance(uploaded, UploadedBank), uploaded
    (task,) = uploaded.tasks
    assert task.kind is Kind.MATCHING and len(task.stems) >= 2
