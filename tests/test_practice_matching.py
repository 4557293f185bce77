"""A matching task in `quizbot practice`: one letter per stem, in order, is one attempt; the
wrong items are named with their note; the last attempt earns its share of right pairs."""

from __future__ import annotations

from pathlib import Path

from tests.test_practice_terminal import attempts, practice

BANK = """bank: Geography
topic: Capitals
tasks:
  - id: capitals
    kind: matching
    difficulty: medium
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
    solution:
      explanation: Paris, Rome, Madrid.
"""
# Options, alphabetical: A Lyon, B Madrid, C Paris, D Rome; right: C D B.


def run(tmp_path: Path, stdin: str) -> tuple[str, Path]:
    bank = tmp_path / "geo.yaml"
    bank.write_text(BANK, encoding="utf-8")
    return practice(tmp_path, stdin, bank=bank)


def test_one_letter_per_item_is_one_attempt_and_the_wrong_item_brings_its_note(
    tmp_path: Path,
) -> None:
    stdout, db = run(tmp_path, "a d b\nCDB\n")
    assert "  1. France" in stdout and "  A. Lyon" in stdout
    assert "Not quite (item 1 wrong: 67% of the answer)." in stdout
    assert "- Lyon is France's third city." in stdout
    assert "Correct! +13 point(s)." in stdout  # 20 x 2/3: one miss
    assert "France → Paris; Italy → Rome; Spain → Madrid" in stdout
    assert attempts(db) == 2


def test_the_last_attempt_earns_its_share_and_too_few_letters_ask_again(tmp_path: Path) -> None:
    stdout, db = run(tmp_path, "CD\nADC\nBCD\nCAD\n")
    assert "Give 3 letter(s) from A, B, C, D" in stdout
    assert "+2 point(s) for the right part." in stdout  # 20 x 1/3 x a third
    assert attempts(db) == 3
