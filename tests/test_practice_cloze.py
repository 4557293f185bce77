"""A cloze task in `quizbot practice`: every part on one line, separated by `|` (a choice part's
letter, a typed part's text); a line with a blank part, a part too few or a non-number asks
again and uses no attempt; a miss names the wrong parts, Moodle's credit and each part's note."""

from __future__ import annotations

from pathlib import Path

from tests.test_practice_terminal import attempts, practice

BANK = """bank: Verse
topic: Verse
tasks:
  - id: owl
    kind: cloze
    difficulty: easy
    question: >-
      The {1:SA:Dog#Wrong, silly!~=Owl} and the {1:MC:Bow-wow~=Pussy-cat}
      went {2:NM:=3:0.5} miles.
    solution:
      explanation: Lear.
"""


def run(tmp_path: Path, stdin: str) -> tuple[str, Path]:
    bank = tmp_path / "verse.yaml"
    bank.write_text(BANK, encoding="utf-8")
    return practice(tmp_path, stdin, bank=bank)


def test_the_parts_on_one_line_are_one_attempt(tmp_path: Path) -> None:
    stdout, db = run(tmp_path, "Dog | b\n | b | 3\nDog | b | far\nDog | b | 3\nowl|B|3.2\n")
    assert "The [1] and the [2] went [3] miles." in stdout
    assert "  [2] A. Bow-wow, B. Pussy-cat" in stdout
    assert stdout.count("Answer all 3 parts on one line") == 2  # a part too few, a blank one
    assert "isn't a number" in stdout  # "far": no attempt either
    assert "Not quite (part [1] wrong: 75% of the answer)." in stdout
    assert "  - Wrong, silly!" in stdout
    assert "Correct! +7 point(s)." in stdout  # 10 x 2/3: one miss
    assert attempts(db) == 2
