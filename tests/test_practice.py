"""`quizbot practice`, played through over stdin in a real subprocess."""

import io
from pathlib import Path

import sqlalchemy as sa

from bot.clock import utcnow
from bot.practice import PRACTICE_CHANNEL, PRACTICE_GUILD, PracticeSession
from bot.store import AnswerRequest, Store, make_engine, posts
from tests import store_calls
from tests.cli_run import run_quizbot_cli
from tests.factories import choice

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "content" / "mlops" / "data-vs-model-parallelism.yaml"


def practice(tmp_path: Path, stdin: str) -> tuple[str, Path]:
    db = tmp_path / "practice.db"
    out = run_quizbot_cli(
        "practice", "--db", str(db), "--content", str(SEED), input=stdin, cwd=tmp_path, check=True
    )
    return out.stdout, db


def test_a_full_practice_run_follows_the_engine_rules(tmp_path: Path) -> None:
    script = "\n".join(
        [
            "A",  # task 1 (answer split = B): batch is wrong → its note
            "a",  # the same wrong answer again: not graded, no attempt used, the note again
            ":hint",
            "B",  # right on the 2nd try after a hint: 10 × 2/3 / 2 = 3
            "A",
            "B",
            "C",  # task 2 (gpu0 = D): three misses → the solution
            "Z",  # task 3: not an option → asked again, no attempt spent
            "A",  # right first try: 30
            ":solution",  # task 4: solution before finishing forfeits, once confirmed
            "y",
            "A B",  # task 5: wrong number of blanks → asked again
            "A C C",  # right: 30
            ":quit",
        ]
    )
    stdout, db = practice(tmp_path, script + "\n")

    note = "Using batch instead of split causes incorrect data division."
    assert stdout.count(note) == 2
    assert "You already tried that, so it didn't use an attempt: 2 attempt(s) left." in stdout
    assert "2 attempt(s) left" in stdout
    assert "Correct! +3 point(s)." in stdout
    assert "That was your last attempt" in stdout
    assert "Assigning the model part to gpu0" in stdout  # task 2's explanation, after the 3rd miss
    assert "Give 1 letter(s) from A, B, C, D" in stdout
    assert "Correct! +30 point(s)." in stdout
    assert "Solution shown: this task scores 0." in stdout
    assert "Give 3 letter(s)" in stdout
    assert "Done. You earned 63 point(s)." in stdout

    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.connect() as conn:
        attempts = conn.execute(sa.text("SELECT count(*) FROM attempt")).scalar_one()
        points = conn.execute(sa.text("SELECT sum(points) FROM score")).scalar_one()
    assert attempts == 2 + 3 + 1 + 1  # the repeat stored nothing
    assert points == 63


def test_the_correct_answer_is_not_shown_while_attempts_remain(tmp_path: Path) -> None:
    stdout, _ = practice(tmp_path, "A\nq\n")
    assert "split method divides" not in stdout  # task 1's explanation names the answer
    assert "Answer:" not in stdout


def test_the_solution_after_finishing_elsewhere_is_a_free_look_not_a_forfeit() -> None:
    """The terminal does not decide a forfeit from the progress it read before the command:
    the member finished the task meanwhile (another terminal, the same member), so the
    solution is free, is shown without asking, and nothing says the task scores 0."""
    store = Store(make_engine("sqlite://"))
    task = choice("t-cli")
    out = io.StringIO()
    prompts: list[str] = []

    def read(prompt: str) -> str | None:
        prompts.append(prompt)
        if len(prompts) == 1:
            post = store_calls.read(store, posts.latest_post, PRACTICE_GUILD, PRACTICE_CHANNEL)
            assert post is not None
            other = AnswerRequest(post.id, PRACTICE_GUILD, 5, "me", ("A",))
            store_calls.answer(store, other, utcnow())
            return ":solution"
        return "y" if "[y/N]" in prompt else None

    PracticeSession(store, [task], read, out, user_id=5, name="me").run()
    text = out.getvalue()
    assert "scores 0" not in text and "ends this task" not in text
    assert len(prompts) == 1  # shown at once; the finished task then ends
    assert f"  Answer: {task.final_answer()}" in text
