"""`kind: cloze` in a bank: the question in Moodle's embedded-answer syntax, checked with file,
line, task and field; the syntax read and written back; Moodle XML's `cloze` questions, as
Moodle writes them, imported, exported and imported again with nothing lost; GIFT, which has no
cloze, leaves them out with a line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.content import check_banks
from bot.content.cloze_syntax import ClozeSyntaxError, escape, parse, write
from bot.content.importers import gift, moodle_xml
from bot.content.importers.drafts import bank_yaml
from bot.content.transfer import exported
from bot.quiz.cloze import PartKind
from bot.quiz.tasks import Kind, Task

from .test_loader import assert_problem, line_of, only
from .test_loader import write as write_file

BANK = """\
bank: Verse
topic: Verse
tasks:
  - id: owl
    kind: cloze
    difficulty: easy
    question: |
      The {1:SHORTANSWER:Dog#Wrong, silly!~=Owl#Well done!~*#Wrong answer} and the
      {1:MC:Bow-wow#A dog~=Pussy-cat#Well done!} went to sea, {2:NM:=3.14:0.01#Right} miles.
    hints: [Lear wrote it.]
    mistakes:
      - Read the poem again.
    solution:
      explanation: It is Lear's.
"""

# As Moodle 4 writes a multianswer question (qformat_xml's export: type "cloze", HTML text).
MOODLE_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<quiz>
<!-- question: 1  -->
  <question type="cloze">
    <name>
      <text>Simple multianswer</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p>Complete this opening line of verse: "The {1:SHORTANSWER:Dog#Wrong, \
silly!~=Owl#Well done!~*#Wrong answer} and the {1:MULTICHOICE:Bow-wow#You seem to have a dog \
obsessions!~Wiggly worm#Now you are just being ridiculous!~=Pussy-cat#Well done!} went to \
sea".</p>]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text><![CDATA[<p>General feedback: It's from "The Owl and the Pussy-cat" by \
Lear.</p>]]></text>
    </generalfeedback>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <idnumber></idnumber>
    <hint format="html">
      <text>Hint 1</text>
    </hint>
    <hint format="html">
      <text>Hint 2</text>
    </hint>
  </question>
<!-- question: 2  -->
  <question type="cloze">
    <name>
      <text>Numbers &amp; salt</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p>Pi is {2:NUMERICAL:=3.14:0.005#Right~%50%3.1:0.05#Close~*#No}, \
{1:SAC:=NaCl~%0%nacl#Case matters} is <b>salt</b> &amp; {1:MCV:=a \\} b~c \\# d~e \\~ f}.</p>]]>\
</text>
    </questiontext>
    <generalfeedback format="html">
      <text></text>
    </generalfeedback>
  </question>
</quiz>
"""


def checked(tmp_path: Path, text: str) -> tuple[Path, list[Task], list]:
    file = write_file(tmp_path, text)
    catalog, problems = check_banks(file)
    return file, list(catalog), problems


def test_a_cloze_task_loads_with_its_parts(tmp_path: Path) -> None:
    _, tasks, problems = checked(tmp_path, BANK)
    assert problems == []
    (task,) = tasks
    assert task.kind is Kind.CLOZE
    assert task.prompt.startswith("The {#1} and the\n{#2} went to sea, {#3} miles.")
    assert [p.kind for p in task.parts] == [PartKind.SHORT, PartKind.CHOICE, PartKind.NUMERICAL]
    assert [p.weight for p in task.parts] == [1, 1, 2]
    assert task.parts[1].style == "MC" and task.general_notes == ("Read the poem again.",)


@pytest.mark.parametrize(
    ("question", "message"),
    [
        ("No parts at all.", "no embedded answer"),
        ("A {1:MULTIRESPONSE:=a~=b~c} part.", "the type MULTIRESPONSE, which quizbot cannot"),
        ("A {1:SA:=open part.", "has no closing '}'"),
        ("A {1:SA:Paris~Lyon}.", "part 1: no answer earns full credit"),
        ("A {1:NM:=three}.", "part 1: 'three' is not a number"),
        ("A {1:NM:=1..5}.", "part 1: '1..5' is not a number"),  # Moodle's cloze has no range
        ("A {1:MC:=only}.", "part 1: 1 options; a choice part has 2 to 25"),
        ("A {0:SA:=x}.", "part 1: weight 0"),
        ("Mark {#1} written.", "Moodle's own mark"),
        (" ".join(f"{{1:SA:=a{n}}}" for n in range(6)), "6 typed parts"),
        (" ".join(f"{{1:MC:=a~b{n}}}" for n in range(10)), "10 parts; a cloze task has at most 9"),
    ],
)
def test_content_check_names_file_line_task_and_field(
    tmp_path: Path, question: str, message: str
) -> None:
    text = BANK.replace(
        "    question: |\n      The {1:SHORTANSWER:Dog#Wrong, silly!~=Owl#Well done!~*#Wrong "
        "answer} and the\n      {1:MC:Bow-wow#A dog~=Pussy-cat#Well done!} went to sea, "
        "{2:NM:=3.14:0.01#Right} miles.\n",
        f"    question: {question!r}\n",
    )
    file, tasks, problems = checked(tmp_path, text)
    assert tasks == []
    problem = problems[0]
    assert_problem(problem, file, line_of(file, "question:"), "owl", "question", message)


def test_an_unknown_key_is_refused_as_for_every_kind(tmp_path: Path) -> None:
    text = BANK.replace("    hints:", "    options: [a, b]\n    hints:")
    file, _, problems = checked(tmp_path, text)
    assert_problem(only(problems), file, line_of(file, "options:"), "owl", "options", "options")


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["MULTICHOICE", "MC", "MCV", "SHORTANSWER", "SAC", "NM"]),
            st.text(alphabet="ab}#~\\/ =%", min_size=1, max_size=6).filter(str.strip),
            st.text(alphabet="xy}#~\\", max_size=5),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_what_write_makes_parse_reads_back(parts: list[tuple[str, str, str]]) -> None:
    bodies = []
    for name, text, note in parts:
        right = "3.5" if name == "NM" else escape(text)
        bodies.append(f"{{1:{name}:={right}#{escape(note)}~%50%z}}")
    text = " and ".join(bodies)
    prompt, read = parse(text)
    assert parse(write(prompt, read)) == (prompt, read)


def test_a_part_without_an_answer_is_refused() -> None:
    with pytest.raises(ClozeSyntaxError, match="empty answer"):
        parse("{1:SA:=Paris~}")


def import_xml(text: str, tmp_path: Path) -> list[Task]:
    result = moodle_xml.parse(text, source="moodle.xml")
    assert [line.message for line in result.report] == []
    file = write_file(tmp_path, bank_yaml(result), name="imported.yaml")
    catalog, problems = check_banks(file)
    assert problems == []
    return list(catalog)


def test_moodles_own_cloze_export_imports_and_grades_as_moodle(tmp_path: Path) -> None:
    owl, numbers = import_xml(MOODLE_XML, tmp_path)
    assert owl.kind is Kind.CLOZE and owl.hints == ("Hint 1", "Hint 2")
    assert owl.prompt == 'Complete this opening line of verse: "The {#1} and the {#2} went to sea".'
    assert [a.text for a in owl.parts[1].answers] == ["Bow-wow", "Wiggly worm", "Pussy-cat"]
    assert owl.parts[0].note("Cat") == "Wrong answer"  # the `*` catch-all
    assert numbers.prompt == "Pi is {#1}, {#2} is **salt** & {#3}."
    assert numbers.parts[1].case_sensitive and numbers.parts[1].style == "SAC"
    assert [a.text for a in numbers.parts[2].answers] == ["a } b", "c # d", "e ~ f"]
    assert numbers.solution.final_answer == "[1] 3.14 (± 0.005), [2] NaCl, [3] a } b"


def test_import_export_import_loses_nothing(tmp_path: Path) -> None:
    first = import_xml(MOODLE_XML, tmp_path)
    text, left = exported(first, fmt="moodle-xml", bank="Verse")
    assert left == {}
    again = import_xml(text, tmp_path / "again")
    assert again == [replace(t, bank=again[0].bank) for t in first]


def test_a_bank_cloze_task_exports_as_written(tmp_path: Path) -> None:
    _, tasks, _ = checked(tmp_path, BANK)
    text, left = exported(tasks, fmt="moodle-xml", bank="Verse")
    assert left == {}
    assert '<question type="cloze">' in text
    assert "{2:NUMERICAL:=3.14:0.01#Right}" not in text  # the author's NM is kept as written
    assert "{2:NM:=3.14:0.01#Right}" in text
    assert import_xml(text, tmp_path / "back") == tasks


def test_gift_has_no_cloze_form_and_says_so(tmp_path: Path) -> None:
    _, tasks, _ = checked(tmp_path, BANK)
    assert gift.cannot_export(tasks[0]) == "a cloze task has no GIFT form (Moodle XML carries it)"
    text, left = exported(tasks, fmt="gift", bank="Verse")
    assert "owl" in left and "left out: owl" in text
