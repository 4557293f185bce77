"""`quizbot practice` through the real terminal entry (stdin of `python -m bot`): every option
letter is an answer, commands are `:words`, and the solution asks before it forfeits
(issue 26, class 10). With 20 options, H, N, Q and S were commands: `S` showed the solution
and forfeited the task."""

from __future__ import annotations

import string
from pathlib import Path

import sqlalchemy as sa

from tests.cli_run import run_quizbot_cli

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "content" / "mlops" / "data-vs-model-parallelism.yaml"
PROMPT_COMMANDS = "or :hint :solution :next :quit > "


def options(count: int) -> str:
    return "\n".join(f"      - option {c.lower()}" for c in string.ascii_uppercase[:count])


BANK = f"""bank: Letters
topic: Letters
tasks:
  - id: twenty-options
    kind: choice
    difficulty: easy
    question: Which option is the right one?
    options:
{options(20)}
    answer: S
    hint: It is the nineteenth.
    solution:
      explanation: S is the nineteenth letter.
  - id: two-blanks
    kind: fill
    difficulty: easy
    instruction: Fill both blanks.
    code: |
      x = [1] + [2]
    options:
{options(25)}
    answers: [H, Q]
    hint: Eighth and seventeenth.
    solution:
      explanation: H and Q.
"""


def practice(tmp_path: Path, stdin: str, bank: Path | None = None) -> tuple[str, Path]:
    if bank is None:
        bank = tmp_path / "letters.yaml"
        bank.write_text(BANK, encoding="utf-8")
    db = tmp_path / "practice.db"
    out = run_quizbot_cli(
        "practice", "--db", str(db), "--content", str(bank), input=stdin, cwd=tmp_path, check=True
    )
    assert "Traceback" not in out.stderr
    return out.stdout, db


def attempts(db: Path) -> int:
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM attempt")).scalar_one())
    finally:
        engine.dispose()


def test_h_n_q_and_s_are_answers_like_any_other_letter(tmp_path: Path) -> None:
    stdout, db = practice(tmp_path, "H\nN\nS\nQ H\nH Q\n")
    assert stdout.count("Not quite") == 3  # H and N, then Q H on the fill task
    assert "Correct! +3 point(s)." in stdout  # S, on the third try
    assert "Correct! +7 point(s)." in stdout  # H Q, on the second try
    assert "Solution shown" not in stdout and "Hint:" not in stdout
    assert "Done. You earned 10 point(s)." in stdout
    assert attempts(db) == 5


def test_the_prompt_shows_the_letters_and_the_commands(tmp_path: Path) -> None:
    stdout, _ = practice(tmp_path, ":next\n")
    assert f"[A-T] {PROMPT_COMMANDS}" in stdout
    assert f"[A-Y] {PROMPT_COMMANDS}" in stdout


def test_the_solution_asks_first_and_a_no_keeps_the_task(tmp_path: Path) -> None:
    stdout, db = practice(tmp_path, ":solution\nn\nS\n:s\nyes\n")
    assert "Seeing the solution now ends this task with 0 points." in stdout
    assert "Show the solution? [y/N]" in stdout
    assert "Not shown: the task goes on." in stdout
    assert "Correct! +10 point(s)." in stdout  # the no cost nothing: first try, easy
    assert "Solution shown: this task scores 0." in stdout  # the yes, on the fill task
    assert "Answer: [1] = option h, [2] = option q" in stdout
    assert attempts(db) == 1


def test_commands_take_their_first_letters_and_unknown_ones_are_named(tmp_path: Path) -> None:
    stdout, _ = practice(tmp_path, ":H\n:x\n:\n: quit\nS\n")
    assert "Hint: It is the nineteenth." in stdout
    assert "':x' is not a command." in stdout
    assert "':' is not a command." in stdout
    assert "Correct!" not in stdout  # `: quit` quit before the S
    assert "Done. You earned 0 point(s)." in stdout


def test_a_bare_command_word_is_an_answer_not_a_command(tmp_path: Path) -> None:
    """On a four-option task `q` is no option: asked again (naming :quit), nothing spent,
    and the session goes on."""
    stdout, db = practice(tmp_path, "q\nhint\nB\n:quit\n", bank=SEED)
    assert stdout.count("Give 1 letter(s) from A, B, C, D, or a command: :hint") == 2
    assert ":quit" in stdout.split("Give 1 letter(s)")[1]
    assert "Correct! +10 point(s)." in stdout
    assert attempts(db) == 1


def test_the_end_of_input_ends_the_session(tmp_path: Path) -> None:
    stdout, _ = practice(tmp_path, "H\n")
    assert stdout.rstrip().endswith("Done. You earned 0 point(s).")
