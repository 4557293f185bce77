"""Tasks built in code, through one factory, so a test states only what it is about and no
test depends on the shipped banks. Options are given as texts and labelled A, B, C…"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from fractions import Fraction

from bot.content.matching_parts import matching_options
from bot.quiz.tasks import (
    FULL_CREDIT,
    OPTION_LABELS,
    Difficulty,
    Kind,
    MistakeNote,
    Option,
    Solution,
    Task,
    equal_weights,
)


def options(*texts: str) -> tuple[Option, ...]:
    return tuple(Option(OPTION_LABELS[i], text) for i, text in enumerate(texts))


def note(text: str, *labels: str) -> MistakeNote:
    """A mistake note tied to the options `labels`; general to the task without any."""
    return MistakeNote(text, tuple(labels))


def choice(  # `hints` (the ladder, maybe empty) rather than the one `hint`
    id: str = "t-choice",
    *,
    prompt: str = "Which one?",
    texts: Sequence[str] = ("right", "wrong", "also wrong"),
    answer: str = "A",
    hint: str = "It is the first.",
    hints: Sequence[str] | None = None,
    solution: Solution | None = None,
    mistakes: Sequence[MistakeNote] = (),
    topic: str = "Testing",
    difficulty: Difficulty = Difficulty.EASY,
) -> Task:
    return Task(
        id=id,
        topic=topic,
        kind=Kind.CHOICE,
        difficulty=difficulty,
        prompt=prompt,
        options=options(*texts),
        answers=(answer,),
        hints=(hint,) if hints is None else tuple(hints),
        solution=solution or Solution(final_answer=answer),
        mistakes=tuple(mistakes),
    )


def fill(
    id: str = "t-fill",
    *,
    prompt: str,
    texts: Sequence[str],
    answers: Sequence[str],
    hint: str = "Look at each blank on its own.",
    hints: Sequence[str] | None = None,
    solution: Solution | None = None,
    mistakes: Sequence[MistakeNote] = (),
    instruction: str = "Fill the blanks.",
    topic: str = "Testing",
    difficulty: Difficulty = Difficulty.HARD,
) -> Task:
    return Task(
        id=id,
        topic=topic,
        kind=Kind.FILL,
        difficulty=difficulty,
        prompt=prompt,
        options=options(*texts),
        answers=tuple(answers),
        hints=(hint,) if hints is None else tuple(hints),
        solution=solution or Solution(explanation="The answer."),
        mistakes=tuple(mistakes),
        instruction=instruction,
    )


def multi(
    id: str = "t-multi",
    *,
    prompt: str = "Which are right?",
    texts: Sequence[str] = ("right", "also right", "wrong", "far off"),
    answers: Sequence[str] = ("A", "B"),
    weights: Sequence[float | str] | None = None,
    show_count: bool = False,
    single: bool = False,
    hint: str = "Two of them.",
    mistakes: Sequence[MistakeNote] = (),
    topic: str = "Testing",
    difficulty: Difficulty = Difficulty.MEDIUM,
) -> Task:
    """A multi task: `answers` share 100% (each wrong pick takes a share), unless `weights`
    (percent, one per option) are given. `single`: one pick; the right options are those at
    100%."""
    opts = options(*texts)
    labels = tuple(o.label for o in opts)
    if weights is None:
        weighted = equal_weights(labels, tuple(answers))
    else:
        weighted = tuple(Fraction(str(w)) for w in weights)
    return Task(
        id=id,
        topic=topic,
        kind=Kind.MULTI,
        difficulty=difficulty,
        prompt=prompt,
        options=opts,
        answers=tuple(
            label
            for label, w in zip(labels, weighted, strict=True)
            if (w == FULL_CREDIT if single else w > 0)
        ),
        hints=(hint,) if hint else (),
        solution=Solution(explanation="The first two."),
        mistakes=tuple(mistakes),
        weights=weighted,
        show_count=show_count,
        single=single,
    )


CAPITALS = (("France", "Paris"), ("Italy", "Rome"), ("Spain", "Madrid"))


def matching(
    id: str = "t-matching",
    *,
    pairs: Sequence[tuple[str, str]] = CAPITALS,
    distractors: Sequence[str] = ("Lyon",),
    hints: Sequence[str] = ("Where the governments sit.",),
    mistakes: Sequence[MistakeNote] = (),
    topic: str = "Testing",
    difficulty: Difficulty = Difficulty.MEDIUM,
) -> Task:
    """A matching task, its options made as the content check makes them (alphabetical): by
    default Lyon, Madrid, Paris, Rome are A-D, and the right picks are C, D, B."""
    opts, answers = matching_options([a for _, a in pairs], list(distractors))
    return Task(
        id=id,
        topic=topic,
        kind=Kind.MATCHING,
        difficulty=difficulty,
        prompt="Match each country to its capital.",
        options=opts,
        answers=answers,
        hints=tuple(hints),
        solution=Solution(explanation="Paris, Rome, Madrid."),
        mistakes=tuple(mistakes),
        stems=tuple(s for s, _ in pairs),
    )


def choice_task(difficulty: Difficulty = Difficulty.EASY) -> Task:
    """Three options, a note tied to B and a general one: the engine's and summaries' case."""
    return choice(
        prompt="Which splits the data?",
        texts=("data parallelism", "model parallelism", "pipeline flushing"),
        hint="Think about what gets copied.",
        solution=Solution(
            final_answer="data parallelism -> Option A", explanation="Data is split."
        ),
        mistakes=(
            note("Model parallelism splits the model, not the data.", "B"),
            note("Read the question twice."),
        ),
        difficulty=difficulty,
    )


def fill_task() -> Task:
    """Three blanks over four options, two of them with notes."""
    return fill(
        prompt="x = {d: total [1] len([2]) for d in [3]}",
        texts=("//", "devices", "device_list", "/"),
        answers=("A", "C", "C"),
        hint="Integer division.",
        solution=Solution(explanation="Use // over device_list."),
        mistakes=(note("'/' gives a float.", "D"), note("'devices' is not defined here.", "B")),
        instruction="Fill all three blanks.",
    )


class Clock:
    """A controllable clock: the service's and the scheduler's `clock=`; set `now` or
    `advance` it, never sleep."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: float) -> None:
        self.now += timedelta(**kwargs)


def bank_yaml(
    task_id: str = "net-1",
    *,
    bank: str = "Networking",
    question: str = "Which layer is IP?",
    answer: str = "A",
    tasks: int = 1,
    extra: str = "",
) -> str:
    """A bank file as a moderator uploads it: `tasks` choice tasks of topic Networking (ids
    `task_id`, or `task_id-0`, `task_id-1`… for several), then `extra` text."""
    body = "".join(
        f"""  - id: {task_id}{"" if tasks == 1 else f"-{n}"}
    kind: choice
    difficulty: easy
    question: {question}
    options: [Network, Transport]
    answer: {answer}
    hint: Below TCP.
    solution:
      final_answer: Network
"""
        for n in range(tasks)
    )
    return f"bank: {bank}\ntopic: Networking\ntasks:\n{body}{extra}"
