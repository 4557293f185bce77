"""The loaded tasks as /quiz, /practice, /schedule add and /hint find them: by topic (any
case) and difficulty, or by id; and a task's answer in words."""

from __future__ import annotations

import pytest

from bot.quiz.errors import NoMatchingTaskError, UnknownTaskError
from bot.quiz.tasks import Catalog, Difficulty, Solution
from tests.factories import choice, fill

GPU_EASY = choice("gpu-1", topic="GPU", difficulty=Difficulty.EASY)
GPU_HARD = choice("gpu-2", topic="GPU", difficulty=Difficulty.HARD)
PY_EASY = choice("py-1", topic="Python", difficulty=Difficulty.EASY)
CATALOG = Catalog.of([GPU_EASY, GPU_HARD, PY_EASY])


def test_tasks_are_found_by_topic_in_any_case_and_by_difficulty() -> None:
    assert CATALOG.select() == [GPU_EASY, GPU_HARD, PY_EASY]
    assert CATALOG.select("gpu") == [GPU_EASY, GPU_HARD]
    assert CATALOG.select("GPU", Difficulty.HARD) == [GPU_HARD]
    assert CATALOG.select(None, Difficulty.EASY) == [GPU_EASY, PY_EASY]
    assert CATALOG.select("Rust") == []
    assert CATALOG.topics() == ["GPU", "Python"]


def test_no_matching_task_is_the_members_error_naming_what_they_asked() -> None:
    assert CATALOG.matching("python") == [PY_EASY]
    with pytest.raises(NoMatchingTaskError) as refused:
        CATALOG.matching("Python", Difficulty.HARD)
    assert (refused.value.topic, refused.value.difficulty) == ("Python", "hard")
    with pytest.raises(NoMatchingTaskError) as any_difficulty:
        CATALOG.matching("Rust")
    assert (any_difficulty.value.topic, any_difficulty.value.difficulty) == ("Rust", None)


def test_a_task_is_found_by_its_id() -> None:
    assert "py-1" in CATALOG and "py-9" not in CATALOG
    assert CATALOG.get("gpu-2") is GPU_HARD
    assert CATALOG.get("gpu-9") is None
    assert CATALOG.get_or_raise("gpu-1") is GPU_EASY
    with pytest.raises(UnknownTaskError, match="'gpu-9' is not in the loaded banks"):
        CATALOG.get_or_raise("gpu-9")


def test_the_answer_in_words_when_the_solution_gives_none() -> None:
    """What a solution shows as its final answer when the bank wrote no `final_answer`."""
    picked = choice(texts=("right", "wrong"), answer="B", solution=Solution(explanation="x"))
    assert picked.final_answer() == "wrong"
    blanks = fill(prompt="[1] and [2]", texts=("a", "b", "c"), answers=("C", "A"))
    assert blanks.final_answer() == "[1] = c, [2] = a"
    assert blanks.answer_text(2) == "a"
    stated = choice(solution=Solution(final_answer="A, because"))
    assert stated.final_answer() == "A, because"
    with pytest.raises(KeyError):
        picked.option("Z")
