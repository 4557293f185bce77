"""`short` tasks: a typed answer graded against the accepted ones, as Moodle grades it
(wildcards, case, partial credit), with the opt-in typo tolerance and notes on known mistakes."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.quiz import engine, typed
from bot.quiz.engine import Progress, Status
from bot.quiz.errors import BlankAnswerError, InvalidAnswerError
from bot.quiz.task_codec import decode_task, encode_task
from bot.quiz.tasks import Difficulty, Kind, MistakeNote, Solution, Task
from bot.quiz.typed import Accepted, ShortAnswers, TypedMistake


def short(
    *accepted: Accepted | str,
    case_sensitive: bool = False,
    typos: int = 0,
    mistakes: tuple[TypedMistake, ...] = (),
    general: str | None = "Think of the Eiffel Tower.",
) -> Task:
    answers = tuple(a if isinstance(a, Accepted) else Accepted(a) for a in accepted)
    return Task(
        id="t-short",
        topic="geo",
        kind=Kind.SHORT,
        difficulty=Difficulty.EASY,
        prompt="The capital of France?",
        options=(),
        answers=(),
        hints=("On the Seine.",),
        solution=Solution(explanation="It is Paris."),
        mistakes=(MistakeNote(general),) if general else (),
        short=ShortAnswers(answers or (Accepted("Paris"),), case_sensitive, typos, mistakes),
    )


def test_the_accepted_answer_is_right_whatever_its_case_and_spacing() -> None:
    outcome = engine.grade(short("Paris"), Progress(), ["  pARis \n"])
    assert outcome.status is Status.CORRECT and outcome.points == 10
    assert outcome.picks == ("pARis",)  # what is stored: normalised, as typed
    assert outcome.expected is None


def test_case_sensitive_answers_refuse_another_case() -> None:
    task = short("NaCl", case_sensitive=True)
    assert engine.grade(task, Progress(), ["nacl"]).status is Status.WRONG
    assert engine.grade(task, Progress(), ["NaCl"]).correct


def test_unicode_forms_compare_equal() -> None:
    task = short("Zürich")
    assert engine.grade(task, Progress(), ["Zu\u0308rich"]).correct  # NFD typed


def test_the_wildcard_matches_any_text_as_in_moodle() -> None:
    task = short("*Eiffel*")
    assert engine.grade(task, Progress(), ["the Eiffel tower"]).correct
    assert engine.grade(task, Progress(), ["Louvre"]).status is Status.WRONG
    literal = short("a\\*b")
    assert engine.grade(literal, Progress(), ["a*b"]).correct
    assert not engine.grade(literal, Progress(), ["axb"]).correct


def test_a_typo_is_forgiven_only_when_the_task_opts_in_and_the_reply_names_the_spelling() -> None:
    assert engine.grade(short("Paris"), Progress(), ["Pairs"]).status is Status.WRONG
    forgiving = short("Paris", typos=1)
    outcome = engine.grade(forgiving, Progress(), ["Pairs"])  # a swap is one edit
    assert outcome.correct and outcome.expected == "Paris"
    assert engine.grade(forgiving, Progress(), ["Praiss"]).status is Status.WRONG


def test_answers_under_five_letters_forgive_no_typo() -> None:
    task = short("Rome", typos=2)
    assert engine.grade(task, Progress(), ["Rime"]).status is Status.WRONG


def test_a_known_mistake_brings_its_note_and_is_never_forgiven_as_a_typo() -> None:
    task = short("Paris", typos=1, mistakes=(TypedMistake(("Parma",), "Parma is in Italy."),))
    outcome = engine.grade(task, Progress(), ["parma"])
    assert outcome.status is Status.WRONG
    assert outcome.notes == ("Parma is in Italy.",)


def test_any_other_wrong_answer_brings_the_catch_all_note() -> None:
    outcome = engine.grade(short("Paris"), Progress(), ["Nice"])
    assert outcome.notes == ("Think of the Eiffel Tower.",)


def test_partial_credit_is_a_miss_that_earns_its_share_on_the_last_attempt() -> None:
    task = short("Paris", Accepted("Paname", Fraction(50)))
    first = engine.grade(task, Progress(), ["Paname"])
    assert first.status is Status.WRONG and first.credit == Fraction(1, 2)
    assert first.expected is None  # no typo: nothing to correct
    last = engine.grade(
        task, Progress(wrong_tries=2, tried=frozenset({("x",), ("y",)})), ["Paname"]
    )
    assert last.status is Status.FAILED
    assert last.points == 2  # 10 × 1/3 × 50%, rounded half up


def test_the_same_wrong_answer_again_uses_no_attempt_even_read_back_split_at_commas() -> None:
    task = short("Paris")
    first = engine.grade(task, Progress(), ["Lyon, France"])
    again = engine.grade(task, first.progress, [" lyon,  france"])
    assert again.status is Status.REPEATED
    stored = Progress(wrong_tries=1, tried=frozenset({("Lyon", " France")}))
    assert engine.grade(task, stored, ["Lyon, France"]).status is Status.REPEATED


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_a_blank_answer_is_refused_before_any_attempt(blank: str) -> None:
    with pytest.raises(BlankAnswerError):
        engine.grade(short("Paris"), Progress(), [blank])


def test_an_overlong_answer_is_refused() -> None:
    with pytest.raises(InvalidAnswerError):
        engine.grade(short("Paris"), Progress(), ["x" * (typed.MAX_TYPED + 1)])


def test_a_short_task_survives_its_stored_version() -> None:
    task = short(
        "Paris",
        Accepted("Paname", Fraction(50)),
        typos=1,
        mistakes=(TypedMistake(("Lyon",), "Not the capital."),),
    )
    assert decode_task(encode_task(task)[0]) == task
    assert task.final_answer() == "Paris"


def test_damerau_levenshtein_counts_a_swap_as_one_edit() -> None:
    assert typed.distance("ab", "ba") == 1
    assert typed.distance("kitten", "sitting") == 3
    assert typed.distance("", "abc") == 3


words = st.text(st.characters(categories=("L", "N", "Zs")), max_size=30)


@given(words)
def test_every_answer_matches_itself_however_it_is_spaced(text: str) -> None:
    answer = typed.normalise(text)
    if not answer or "*" in answer:
        return
    spec = ShortAnswers((Accepted(answer),))
    assert typed.match(spec, f"  {text.casefold()}\t ").accepted is not None  # ß is ss too
    assert typed.match(spec, text).accepted is not None


@given(words, words)
def test_distance_is_a_metric(a: str, b: str) -> None:
    assert typed.distance(a, b) == typed.distance(b, a)
    assert (typed.distance(a, b) == 0) == (a == b)
    assert typed.distance(a, b) <= max(len(a), len(b))


@given(st.lists(words, min_size=1, max_size=4))
def test_three_wrong_answers_finish_the_task_and_never_score(tries: list[str]) -> None:
    task = short("Paris")
    progress = Progress()
    for text in [*tries, "a", "b", "c", "d"]:
        clean = typed.normalise(text)
        if not clean or clean.casefold() == "paris" or progress.finished:
            continue
        outcome = engine.grade(task, progress, [text])
        progress = outcome.progress
        assert progress.points == 0
        assert progress.wrong_tries <= 3
    assert progress.finished and progress.wrong_tries == 3
