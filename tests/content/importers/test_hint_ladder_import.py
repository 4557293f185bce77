"""Hints through import and export: Moodle XML's `<hint>` elements are the ladder and export
writes them back; GIFT has none (a task gets none made up; our `// hint N:` comments carry a
ladder); `content import` fails when it left a question out."""

from __future__ import annotations

from pathlib import Path

from bot.content import importers
from bot.content.importers import gift, moodle_xml
from bot.content.transfer import exported
from bot.quiz.tasks import MAX_HINTS
from tests.cli_run import run_quizbot_cli
from tests.factories import choice, fill

DATA = Path(__file__).resolve().parent / "data"
LADDER = choice("ladder", hints=("First.", "Second, with `code`.", "Third."))
TASKS = [
    LADDER,
    choice("single", hints=("Only one.",)),
    choice("none", hints=()),
    fill("fill-ladder", prompt="x = [1]", texts=("1", "2"), answers=("A",), hints=("a", "b")),
]


def hint_xml(*hints: str) -> str:
    return "".join(f'<hint format="html"><text><![CDATA[{h}]]></text></hint>' for h in hints)


def question(extra: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<quiz><question type="multichoice">'
        "<name><text>q</text></name>"
        '<questiontext format="html"><text>Which?</text></questiontext>'
        '<answer fraction="100"><text>right</text></answer>'
        f'<answer fraction="0"><text>wrong</text></answer>{extra}</question></quiz>'
    )


def test_moodle_hints_become_the_ladder_in_their_order() -> None:
    result = moodle_xml.parse(question(hint_xml("<p>One</p>", "", "<p>Two</p>")), source="q.xml")
    (draft,) = result.drafts
    assert draft.hints == ["One", "Two"]  # an empty <hint> (Moodle writes them) is no hint
    assert result.report == []


def test_a_question_without_hints_gets_none_made_up() -> None:
    (draft,) = moodle_xml.parse(question(""), source="q.xml").drafts
    assert draft.hints == []
    assert "hint" not in (draft.comment or "")


def test_more_hints_than_a_ladder_holds_keeps_the_first_and_says_so() -> None:
    hints = [f"Hint {n}." for n in range(1, MAX_HINTS + 3)]
    result = moodle_xml.parse(question(hint_xml(*hints)), source="q.xml")
    assert result.drafts[0].hints == hints[:MAX_HINTS]
    (line,) = result.report
    assert f"only the first {MAX_HINTS} of its {MAX_HINTS + 2} hints are kept" in line.message


def test_a_moodle_export_keeps_its_hints(tmp_path: Path) -> None:
    """mixed.xml was written by Moodle: its first question has two hints."""
    result = moodle_xml.parse((DATA / "mixed.xml").read_text(), source="mixed.xml")
    assert result.drafts[0].hints == ["How many numbers do you see?", "Count them on your fingers."]


def read_back(text: str, fmt: str) -> dict[str, list[str]]:
    _, result = importers.parse(text, source=f"back.{fmt}", fmt=fmt)
    return {draft.id: draft.hints for draft in result.drafts}


def test_export_writes_every_hint_back_and_import_reads_the_same_ladder() -> None:
    for fmt in ("moodle-xml", "gift"):
        text, left = exported(TASKS, fmt=fmt, bank="Hints")
        assert left == {}, fmt
        assert read_back(text, fmt) == {t.id: list(t.hints) for t in TASKS}, fmt
    xml, _ = exported([LADDER], fmt="moodle-xml", bank="Hints")
    assert xml.count("<hint ") == 3


def test_gift_has_no_hints_so_none_is_made_up_and_our_comments_carry_one_or_a_ladder() -> None:
    plain = gift.parse("::q:: Which? {=right ~wrong}", source="q.gift")
    assert plain.drafts[0].hints == []
    text, _ = exported([LADDER], fmt="gift", bank="Hints")
    assert "// hint 1: First." in text and "// hint 3: Third." in text
    one, _ = exported([TASKS[1]], fmt="gift", bank="Hints")
    assert "// hint: Only one." in one


def test_content_import_exits_1_when_it_left_a_question_out(tmp_path: Path) -> None:
    source = tmp_path / "mixed.gift"
    source.write_text("::fine:: Fine? {=yes ~no}\n\n::essay:: Tell me about it. {}\n")
    result = run_quizbot_cli("content", "import", str(source), cwd=tmp_path)
    assert result.returncode == 1
    assert f"{source}:3: left out: essay questions are not supported (yet)" in result.stderr
    assert "imported 1 task(s) as gift" in result.stderr  # the report as before
    assert result.stdout.startswith("bank: ")  # the bank is still written

    clean = tmp_path / "clean.gift"
    clean.write_text("::fine:: Fine? {=yes ~no}\n")
    assert run_quizbot_cli("content", "import", str(clean), cwd=tmp_path).returncode == 0
