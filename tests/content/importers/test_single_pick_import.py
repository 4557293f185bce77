"""Single-answer multiple choice with partial credit in and out: GIFT's `=` beside a `~%50%`
and Moodle XML's multichoice with `single` true and a fraction between 0 and 100 import as
single-pick multi tasks, graded as Moodle grades them, and export back; an import, export and
import again loses nothing. The bank format's `single: true` is checked as Moodle's rule."""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path

import pytest

from bot.content import check_banks
from bot.content.transfer import export_command
from bot.quiz import engine
from bot.quiz.engine import Progress, Status
from bot.quiz.tasks import Kind
from tests.content.importers.round_trip import assert_round_trip, imported

# Moodle's GIFT documentation, "Percentage Answer Weights", with its feedback.
GIFT_DOCS = (
    "::Difficult::Difficult question{~wrong answer#comment on wrong answer "
    "~%50%half credit answer#comment on answer =full credit answer#well done!}\n"
)
MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Join</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Which call gives "a-b"?</p>]]></text>
    </questiontext>
    <single>true</single>
    <answer fraction="100" format="html"><text>"-".join(["a", "b"])</text>
      <feedback format="html"><text>Right.</text></feedback></answer>
    <answer fraction="33.33333" format="html"><text>"a" + "-" + "b"</text>
      <feedback format="html"><text>Works, but not for a list.</text></feedback></answer>
    <answer fraction="-50" format="html"><text>["a", "b"].join("-")</text>
      <feedback format="html"><text>That is JavaScript.</text></feedback></answer>
  </question>
</quiz>
"""

BANK = """\
bank: Python calls
topic: Python
tasks:
  - id: py-join
    kind: multi
    single: true
    difficulty: hard
    question: Which call gives `"a-b"`?
    options:
      - text: '"-".join(["a", "b"])'
        weight: 100
      - text: '"a" + "-" + "b"'
        weight: 50
      - text: '["a", "b"].join("-")'
        weight: -50
      - '"a-b".split()'
    solution:
      explanation: join is a method of the separator.
    mistakes:
      - note: Works, but not for a list.
        options: [B]
      - note: That is JavaScript.
        options: [C]
"""


def test_gifts_partial_credit_example_imports_as_one_pick_graded_as_moodle_does(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, GIFT_DOCS, "difficult.gift")
    assert code == 0, err
    assert (task.kind, task.single, task.answers) == (Kind.MULTI, True, ("C",))
    assert task.weights == (0, 50, 100)
    assert engine.grade(task, Progress(), ("C",)).status is Status.CORRECT
    half = engine.grade(task, Progress(), ("B",))
    assert (half.status, half.credit, half.notes) == (
        Status.WRONG,
        Fraction(1, 2),
        ("comment on answer",),
    )
    assert engine.grade(task, Progress(), ("A",)).credit == 0
    assert task.solution.explanation == "well done!"


def test_a_single_multichoice_with_a_partial_fraction_imports_as_one_pick(
    tmp_path: Path,
) -> None:
    code, (task,), err = imported(tmp_path, MOODLE_XML, "join.xml")
    assert code == 0, err
    assert (task.kind, task.single, task.answers) == (Kind.MULTI, True, ("A",))
    assert task.weights == (100, Fraction(3333333, 100000), -50)
    assert task.notes_for("B") == ("Works, but not for a list.",)
    assert engine.grade(task, Progress(), ("C",)).credit == 0  # -50%, never below 0


@pytest.mark.parametrize("fmt", ["gift", "moodle-xml"])
def test_import_export_import_loses_nothing(tmp_path: Path, fmt: str) -> None:
    assert_round_trip(tmp_path, BANK, fmt=fmt, title="Python calls")


@pytest.mark.parametrize(
    ("fmt", "written"),
    [
        ("gift", '="-".join(["a", "b"])\n~%50%"a" + "-" + "b"#Works, but not for a list.\n'),
        ("moodle-xml", "<single>true</single>"),
    ],
)
def test_the_export_writes_moodles_single_answer_form(
    tmp_path: Path, fmt: str, written: str
) -> None:
    bank = tmp_path / "calls.yaml"
    bank.write_text(BANK, encoding="utf-8")
    out = io.StringIO()
    assert export_command(bank, fmt=fmt, output=None, out=out, err=io.StringIO()) == 0
    assert written in out.getvalue()
    if fmt == "moodle-xml":
        assert 'fraction="50"' in out.getvalue() and 'fraction="-50"' in out.getvalue()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("weight: 100", "weight: 90", "needs an option of weight 100 and none above it"),
        ("    solution:", "    answers: [A]\n    solution:", "a weight, not answers"),
    ],
    ids=["no-full-option", "answers"],
)
def test_a_single_pick_task_must_follow_moodles_rule(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    bank = tmp_path / "bad.yaml"
    bank.write_text(BANK.replace(old, new, 1), encoding="utf-8")
    _, problems = check_banks(bank)
    assert any(message in str(p) for p in problems), problems


def test_the_readmes_single_pick_example_passes_the_check(tmp_path: Path) -> None:
    readme = Path(__file__).resolve().parents[3] / "content" / "README.md"
    blocks = readme.read_text(encoding="utf-8").split("```yaml\n")[1:]
    (example,) = [code for b in blocks if "single: true" in (code := b.split("```", 1)[0])]
    bank = tmp_path / "example.yaml"
    bank.write_text(f"bank: Example\ntopic: Python\ntasks:\n{example}", encoding="utf-8")
    catalog, problems = check_banks(bank)
    assert problems == []
    task = catalog.get_or_raise("py-join")
    assert (task.single, task.answers, engine.credit(task, ("B",))) == (True, ("A",), 0.5)
