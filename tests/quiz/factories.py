"""Small tasks built in code, so engine tests don't depend on the shipped banks."""

from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Option, Solution, Task


def choice_task(difficulty: Difficulty = Difficulty.EASY) -> Task:
    return Task(
        id="t-choice",
        topic="Testing",
        kind=Kind.CHOICE,
        difficulty=difficulty,
        prompt="Which splits the data?",
        options=(
            Option("A", "data parallelism"),
            Option("B", "model parallelism"),
            Option("C", "pipeline flushing"),
        ),
        answers=("A",),
        hint="Think about what gets copied.",
        solution=Solution(
            final_answer="data parallelism -> Option A", explanation="Data is split."
        ),
        mistakes=(
            MistakeNote("Model parallelism splits the model, not the data.", ("B",)),
            MistakeNote("Read the question twice."),
        ),
    )


def fill_task() -> Task:
    return Task(
        id="t-fill",
        topic="Testing",
        kind=Kind.FILL,
        difficulty=Difficulty.HARD,
        prompt="x = {d: total [1] len([2]) for d in [3]}",
        options=(
            Option("A", "//"),
            Option("B", "devices"),
            Option("C", "device_list"),
            Option("D", "/"),
        ),
        answers=("A", "C", "C"),
        hint="Integer division.",
        solution=Solution(explanation="Use // over device_list."),
        mistakes=(
            MistakeNote("'/' gives a float.", ("D",)),
            MistakeNote("'devices' is not defined here.", ("B",)),
        ),
        instruction="Fill all three blanks.",
    )
