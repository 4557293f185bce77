"""A matching task in a bank: pairs of a stem and its answer, distractors, notes on a stem's
wrong answers; every problem with file, line, task and field."""

from __future__ import annotations

from pathlib import Path

from bot.content import check_banks
from bot.quiz.tasks import Kind, Option

from .test_loader import assert_problem, line_of, only, write

BANK = """\
bank: Geography
topic: Capitals
tasks:
  - id: capitals
    kind: matching
    difficulty: easy
    question: Match each country to its capital.
    pairs:
      - stem: France
        answer: Paris
        mistakes:
          - answers: [Lyon]
            note: Lyon is France's third city.
      - stem: Italy
        answer: Rome
      - stem: Spain
        answer: Madrid
    distractors: [Lyon]
    mistakes:
      - Capitals are where the governments sit.
    solution:
      explanation: Paris, Rome, Madrid.
"""


def test_the_options_are_the_answers_and_distractors_in_alphabetical_order(
    tmp_path: Path,
) -> None:
    catalog, problems = check_banks(write(tmp_path, BANK))
    assert problems == []
    task = catalog.get_or_raise("capitals")
    assert task.kind is Kind.MATCHING
    assert task.stems == ("France", "Italy", "Spain")
    assert task.options == (
        Option("A", "Lyon"),
        Option("B", "Madrid"),
        Option("C", "Paris"),
        Option("D", "Rome"),
    )
    assert task.answers == ("C", "D", "B")
    assert task.notes_at(1, "A") == ("Lyon is France's third city.",)
    assert task.notes_at(3, "A") == ()  # the note is France's
    assert task.general_notes == ("Capitals are where the governments sit.",)
    assert task.hints == ()


def test_a_matching_task_needs_two_pairs(tmp_path: Path) -> None:
    text = BANK.replace(
        """      - stem: Italy
        answer: Rome
      - stem: Spain
        answer: Madrid
""",
        "",
    )
    file = write(tmp_path, text)
    _, problems = check_banks(file)
    line = line_of(file, "- stem: France")  # where the list starts
    assert_problem(only(problems), file, line, "capitals", "pairs", "needs at least 2 pairs")


def test_an_answer_given_twice_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("distractors: [Lyon]", "distractors: [Lyon, rome]"))
    _, problems = check_banks(file)
    line = line_of(file, "- stem: France")
    assert_problem(only(problems), file, line, "capitals", "pairs", "'rome' is given twice")


def test_a_pair_without_its_answer_is_placed_on_its_line(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("        answer: Rome\n", ""))
    _, problems = check_banks(file)
    line = line_of(file, "stem: Italy")
    field = "pairs[1].answer"
    assert_problem(only(problems), file, line, "capitals", field, "missing required key 'answer'")


def test_a_note_on_a_stem_s_right_answer_would_never_show(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("answers: [Lyon]", "answers: [Paris]"))
    _, problems = check_banks(file)
    line = line_of(file, "- answers: [Paris]")
    field = "pairs[0].mistakes"
    assert_problem(only(problems), file, line, "capitals", field, "not a wrong answer")


def test_more_answers_than_a_select_menu_holds_are_refused(tmp_path: Path) -> None:
    many = ", ".join(f"City {n}" for n in range(23))
    file = write(tmp_path, BANK.replace("distractors: [Lyon]", f"distractors: [Lyon, {many}]"))
    _, problems = check_banks(file)
    line = line_of(file, "distractors:")
    field = "distractors"
    assert_problem(only(problems), file, line, "capitals", field, "at most 25")


def test_options_are_not_a_matching_task_s_key(tmp_path: Path) -> None:
    file = write(tmp_path, BANK.replace("distractors: [Lyon]", "options: [Lyon]"))
    _, problems = check_banks(file)
    assert any(p.field == "options" and p.task == "capitals" for p in problems)
