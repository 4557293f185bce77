"""Cloze grading as Moodle grades multianswer: each part's credit times its weight, over the
weights; MULTICHOICE by the option's credit, SHORTANSWER as a short task (wildcards, case),
NUMERICAL as a numerical task (tolerance). One submission of every part is one attempt; a blank
or non-number part uses none; the same answer again is a repeat; the stored picks read back."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.content.cloze_syntax import parse
from bot.quiz import cloze, engine
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from bot.quiz.numeric import NotANumberError
from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import Difficulty, Kind, Solution, Task
from tests.factories import fill_task

# Moodle's own example question (qtype_multianswer's test helper, "twosubq"), with a
# NUMERICAL part of weight 2 added.
TEXT = (
    "The {1:SHORTANSWER:Dog#Wrong, silly!~=Owl#Well done!~*#Wrong answer} and the "
    "{1:MULTICHOICE:Bow-wow#You seem to have a dog obsessions!~Wiggly worm#Now you are just "
    "being ridiculous!~=Pussy-cat#Well done!} went to sea, {2:NUMERICAL:=3.14:0.01#Right~"
    "%50%3:0.2#Roughly~*#Not pi} miles."
)


def cloze_task(text: str = TEXT, difficulty: Difficulty = Difficulty.HARD) -> Task:
    prompt, parts = parse(text)
    return Task(
        id="owl",
        topic="Verse",
        kind=Kind.CLOZE,
        difficulty=difficulty,
        prompt=prompt,
        options=(),
        answers=(),
        hints=(),
        solution=Solution(final_answer="Owl, Pussy-cat, 3.14"),
        parts=parts,
    )


def test_every_part_right_is_correct_with_the_full_points() -> None:
    outcome = engine.grade(cloze_task(), Progress(), ("owl", "C", "3.14"))
    assert outcome.status is Status.CORRECT and outcome.credit == 1
    assert outcome.points == 30


@pytest.mark.parametrize(
    ("answers", "credit", "wrong", "notes"),
    [
        # Hand-computed: (1·0 + 1·1 + 2·1) / 4 = 3/4; the SA part's 0% answer brings its note.
        (("Dog", "C", "3.14"), Fraction(3, 4), (1,), ("Wrong, silly!",)),
        # `*` at 0% is the catch-all note; NUMERICAL 3.1 is within 3 ± 0.2: 50% of weight 2.
        (("Cat", "C", "3.1"), Fraction(1 * 0 + 1 * 1 + 2 * Fraction(1, 2), 4), (1, 3),
         ("Wrong answer", "Roughly")),
        (("Owl", "A", "7"), Fraction(1, 4), (2, 3),
         ("You seem to have a dog obsessions!", "Not pi")),
    ],
)  # fmt: skip
def test_a_miss_has_moodles_weighted_credit_and_each_wrong_parts_note(
    answers: tuple[str, ...], credit: Fraction, wrong: tuple[int, ...], notes: tuple[str, ...]
) -> None:
    outcome = engine.grade(cloze_task(), Progress(), answers)
    assert outcome.status is Status.WRONG
    assert outcome.credit == credit
    assert outcome.wrong_blanks == wrong
    assert outcome.notes == notes
    assert outcome.points == 0 and outcome.progress.wrong_tries == 1


def test_the_last_attempt_earns_its_credits_share_of_the_points() -> None:
    tried = Progress(wrong_tries=2)
    outcome = engine.grade(cloze_task(), tried, ("Dog", "C", "3.14"))
    assert outcome.status is Status.FAILED
    # 30 points × 1/3 (two misses) × 3/4 credit = 7.5, rounded half up.
    assert outcome.points == 8


def test_shortanswer_c_compares_case_and_shortanswer_does_not() -> None:
    task = cloze_task("{1:SAC:=NaCl} and {1:SA:=water}")
    assert engine.grade(task, Progress(), ("NaCl", "WATER")).correct
    outcome = engine.grade(task, Progress(), ("nacl", "water"))
    assert outcome.wrong_blanks == (1,) and outcome.credit == Fraction(1, 2)


@pytest.mark.parametrize(
    "answers", [("", "C", "3.14"), ("Owl", "", "3.14"), ("Owl", "C", "   "), ("", "", "")]
)
def test_a_blank_part_uses_no_attempt(answers: tuple[str, ...]) -> None:
    # Moodle's interactive mode asks for every part before it grades ("Please answer all parts").
    with pytest.raises(BlankAnswerError):
        engine.grade(cloze_task(), Progress(), answers)


def test_a_numerical_part_that_is_no_number_uses_no_attempt() -> None:
    with pytest.raises(NotANumberError):
        engine.grade(cloze_task(), Progress(), ("Owl", "C", "about three"))


@pytest.mark.parametrize(
    "answers", [("Owl", "D", "3"), ("Owl", "C"), ("Owl", "C", "3", "4"), ("x" * 201, "C", "3")]
)
def test_answers_that_fit_no_part_are_refused(answers: tuple[str, ...]) -> None:
    with pytest.raises(InvalidAnswerError):
        engine.grade(cloze_task(), Progress(), answers)


def test_the_same_answer_again_read_back_from_the_store_is_a_repeat() -> None:
    task = cloze_task()
    first = engine.grade(task, Progress(), ("Lyon, Paris", "A", "3,1"))
    assert first.status is Status.WRONG
    stored = ",".join(first.picks)  # the store joins the picks at commas and splits them again
    again = Progress(wrong_tries=1, tried=frozenset({tuple(stored.split(","))}))
    repeat = engine.grade(task, again, ("lyon,  paris", "A", "3,1"))
    assert repeat.status is Status.REPEATED and repeat.progress == again
    assert engine.describe_answer(task, tuple(stored.split(","))) == (
        "[1] Lyon, Paris, [2] Bow-wow, [3] 3,1"
    )


@given(st.lists(st.text(alphabet=",\\ab ", max_size=6), min_size=1, max_size=5))
def test_encoded_answers_come_back_from_the_stores_comma_split(answers: list[str]) -> None:
    stored = ",".join(cloze.encode(answers))
    assert cloze.decode(tuple(stored.split(","))) == tuple(answers)


@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.sampled_from([0, 25, 50, 100])), min_size=1, max_size=5
    )
)
def test_the_credit_is_the_weighted_mean_of_the_parts(parts: list[tuple[int, int]]) -> None:
    text = " ".join(f"{{{w}:MC:=right~%{c}%pick~wrong}}" for w, c in parts)
    task = cloze_task(text)
    got = cloze.credit(task.parts, ["B"] * len(parts))
    assert got == Fraction(sum(w * c for w, c in parts), 100 * sum(w for w, _ in parts))


def test_a_cloze_version_round_trips_and_other_kinds_keep_their_hash() -> None:
    task = cloze_task()
    content, _ = encode_task(task)
    assert decode_task(content) == task
    assert '"parts"' in content
    # The key is a cloze task's only: a fill task's stored version (and its hash) is unchanged.
    assert '"parts"' not in encode_task(fill_task())[0]
