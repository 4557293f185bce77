"""A multi task in `quizbot practice`: the letters typed are one set, one attempt; the count of
right options stays hidden unless the task shows it; the last attempt earns its credit."""

from __future__ import annotations

from pathlib import Path

from tests.test_practice_terminal import attempts, practice

BANK = """bank: Types
topic: Python
tasks:
  - id: py-mutable
    kind: multi
    difficulty: medium
    question: Which of these types are mutable?
    options: [list, tuple, dict, str]
    answers: [A, C]
    hint: Can you change it after you made it?
    solution:
      explanation: Lists and dicts change in place.
    mistakes:
      - note: A tuple cannot change after it is made.
        options: [B]
"""


def run(tmp_path: Path, stdin: str) -> tuple[str, Path]:
    bank = tmp_path / "types.yaml"
    bank.write_text(BANK, encoding="utf-8")
    return practice(tmp_path, stdin, bank=bank)


def test_a_set_in_any_order_is_one_attempt(tmp_path: Path) -> None:
    stdout, db = run(tmp_path, "a b\nC A\n")
    assert "Pick every right answer: one or more." in stdout
    assert "Not quite (1 right, 1 wrong: 0% of the answer)." in stdout
    assert "- A tuple cannot change after it is made." in stdout
    assert "Correct! +13 point(s)." in stdout  # 20 x 2/3: one miss
    assert attempts(db) == 2


def test_the_last_attempt_earns_its_share_and_a_blank_line_asks_again(tmp_path: Path) -> None:
    stdout, db = run(tmp_path, "\nB\nD\nA\n")
    assert "Give one or more letter(s) from A, B, C, D" in stdout
    assert "+3 point(s) for the right part." in stdout  # 20 x 1/3 x 50%
    assert "Done. You earned 3 point(s)." in stdout
    assert attempts(db) == 3


SINGLE = """bank: Calls
topic: Python
tasks:
  - id: py-join
    kind: multi
    single: true
    difficulty: medium
    question: Which call joins a list with dashes?
    options:
      - text: "'-'.join(parts)"
        weight: 100
      - text: "'-' + parts"
        weight: 50
      - text: "parts.join('-')"
    solution:
      explanation: join is a method of the separator.
"""


def test_a_single_pick_task_takes_one_letter_and_a_half_answer_says_its_credit(
    tmp_path: Path,
) -> None:
    bank = tmp_path / "calls.yaml"
    bank.write_text(SINGLE, encoding="utf-8")
    stdout, db = practice(tmp_path, "a b\nB\nA\n", bank=bank)
    assert "Pick one answer: some earn part of the credit." in stdout
    assert "Give 1 letter(s) from A, B, C" in stdout  # two letters: no attempt used
    assert "Not quite (that answer earns 50% of the credit)." in stdout
    assert "Correct! +13 point(s)." in stdout
    assert attempts(db) == 2
