"""`quizbot practice`'s :hint walks the ladder as the bot does: the next hint with those seen
before, each halving the points; a task without one says so and charges nothing."""

import io
from collections.abc import Iterator

from bot.practice import PracticeSession
from bot.quiz.tasks import Difficulty
from bot.store import Store, make_engine
from tests.factories import choice

LADDER = choice(
    "t-ladder", hints=("First nudge.", "Second nudge.", "Third nudge."), difficulty=Difficulty.HARD
)
BARE = choice("t-bare", hints=())


def play(task, *lines: str) -> str:
    store = Store(make_engine("sqlite://"))
    out = io.StringIO()
    answers: Iterator[str] = iter(lines)
    PracticeSession(store, [task], lambda _: next(answers, None), out, user_id=5, name="me").run()
    return out.getvalue()


def test_each_hint_shows_the_ladder_so_far_and_halves_the_points() -> None:
    text = play(LADDER, ":hint", ":hint", "A")
    assert text.count("Hint 1 of 3: First nudge.") == 2  # shown again with the second
    assert text.count("Hint 2 of 3: Second nudge.") == 1
    assert "Third nudge." not in text
    assert "Correct! +8 point(s)." in text  # 30 / 4, rounded half up


def test_a_task_without_a_hint_says_so_and_scores_in_full() -> None:
    text = play(BARE, "B", ":hint", "A")
    assert "This task has no hint" in text
    assert "for a hint" not in text  # the nudge after a miss does not offer one
    assert "Correct! +7 point(s)." in text
