"""A short task in `quizbot practice`: the line typed is the answer, as on Discord; a blank
line asks again and uses no attempt; a forgiven typo names the expected spelling."""

from __future__ import annotations

from pathlib import Path

from tests.test_practice_terminal import attempts, practice

BANK = """bank: Geography
topic: Geography
tasks:
  - id: capital-fr
    kind: short
    difficulty: easy
    question: What is the capital of France?
    answers: [Paris]
    typos: 1
    mistakes:
      - answers: [Lyon]
        note: A large city, but not the capital.
    solution:
      explanation: Paris has been the capital since 987.
"""


def run(tmp_path: Path, stdin: str) -> tuple[str, Path]:
    bank = tmp_path / "geo.yaml"
    bank.write_text(BANK, encoding="utf-8")
    return practice(tmp_path, stdin, bank=bank)


def test_a_typed_line_is_the_answer_and_a_blank_one_asks_again(tmp_path: Path) -> None:
    stdout, db = run(tmp_path, "   \nlyon\nPairs\n")
    assert "Type your answer (up to 200 characters)" in stdout
    assert "Not quite." in stdout
    assert "- A large city, but not the capital." in stdout
    assert "Correct! +7 point(s)." in stdout  # 10 x 2/3: one miss
    assert "Accepted as Paris, the expected spelling." in stdout
    assert attempts(db) == 2
