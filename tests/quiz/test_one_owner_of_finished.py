"""Finished, forfeited, attempts left and "can still score" have one definition, the engine's
(`Progress`). The store folds its rows with `Progress.of_record` and `with_other_posts`, applies
an answer recorded in its batch to the member's other posts with `after_answer_elsewhere`, and
the Discord layer shows `scoring_attempts_left`. These properties tie each of them to the
others over generated histories of one member on a task's public posts, so two definitions
cannot drift apart again."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.quiz import engine
from bot.quiz.engine import Outcome, Progress
from bot.quiz.tasks import MAX_ATTEMPTS
from tests.factories import choice

TASK = choice(
    texts=("right", "wrong", "also wrong", "far off", "way off"), hints=("First.", "Second.")
)
POSTS = 3


@dataclass
class Rows:
    """What the store keeps of one member on one post: attempts, reveals, the score row."""

    wrong: list[tuple[str, ...]] = field(default_factory=list)
    solved: bool = False
    hints: int = 0
    solution: bool = False
    score: int | None = None

    def progress(self) -> Progress:
        return Progress.of_record(
            wrong_tries=len(self.wrong),
            solved=self.solved,
            hints_seen=self.hints,
            solution_seen=self.solution,
            points=self.score or 0,
            tried=frozenset(self.wrong),
        )


def read(rows: list[Rows], post: int) -> Progress:
    """A post's progress as the store reads it: its rows, with the task's other posts'."""
    others = [r.progress() for i, r in enumerate(rows) if i != post]
    return rows[post].progress().with_other_posts(others)


def record(rows: Rows, outcome: Outcome) -> None:
    """What the store writes for a recorded answer."""
    if outcome.correct:
        rows.solved = True
    else:
        rows.wrong.append(outcome.picks)
    if outcome.progress.finished:
        rows.score = outcome.progress.points


ACTIONS = st.tuples(
    st.integers(0, POSTS - 1),
    st.sampled_from(["A", "B", "C", "D", "E", "hint", "solution", "peek"]),
)
"""(post, what the member does there): an answer, the hint, the solution confirmed, or the
solution asked for without confirming."""


def play(actions: list[tuple[int, str]]) -> list[Rows]:
    rows = [Rows() for _ in range(POSTS)]
    for post, action in actions:
        progress = read(rows, post)
        if action == "hint":
            after = engine.see_hint(TASK, progress).progress
            if after != progress:
                rows[post].hints = max(rows[post].hints, after.hints_seen)
        elif action in ("solution", "peek"):
            access = engine.open_solution(progress, closed=False, confirmed=action == "solution")
            rows[post].solution |= access.recorded
            if access.forfeited_now:
                rows[post].score = access.progress.points
        else:
            outcome = engine.grade(TASK, progress, (action,))
            if outcome.recorded:
                record(rows[post], outcome)
    return rows


HISTORIES = st.lists(ACTIONS, max_size=12)


@settings(max_examples=300, deadline=None)
@given(HISTORIES, ACTIONS)
def test_an_answer_spread_in_the_batch_is_what_reading_it_back_gives(
    history: list[tuple[int, str]], answer: tuple[int, str]
) -> None:
    """`after_answer_elsewhere` (the batch's) and `with_other_posts` (the next read's) agree."""
    rows = play(history)
    post, picks = answer
    if picks not in TASK.labels:
        return
    before = [read(rows, i) for i in range(POSTS)]
    outcome = engine.grade(TASK, before[post], (picks,))
    if not outcome.recorded:
        return
    record(rows[post], outcome)
    after = read(rows, post)
    assert (after.finished, after.attempts_left, after.points) == (
        outcome.progress.finished,
        outcome.attempts_left,
        outcome.progress.points,
    )
    for other in range(POSTS):
        if other == post:
            continue
        spread, read_back = before[other].after_answer_elsewhere(outcome), read(rows, other)
        if read_back.finished_elsewhere:
            # Known and kept: the batch leaves the misses and picks it had counted, where a
            # read drops them (only a later click on that post in the same batch could tell).
            assert decided(spread) == decided(read_back)
        else:
            assert spread == read_back


def decided(progress: Progress) -> tuple[object, ...]:
    """What the engine decides from a progress, as members see it."""
    return (
        progress.finished,
        progress.finished_elsewhere,
        progress.scores_none,
        progress.can_score,
        progress.attempts_left,
        progress.scoring_attempts_left,
        progress.points,
    )


@settings(max_examples=300, deadline=None)
@given(HISTORIES)
def test_finished_can_score_and_attempts_left_agree_with_the_rows(
    history: list[tuple[int, str]],
) -> None:
    """What the rows say, stated directly (what `posts._SCORES_NONE` computed in SQL, and
    `answers` and `replies` computed by hand), against the engine's one definition."""
    rows = play(history)
    task_misses = sum(len(r.wrong) for r in rows)
    for post, own in enumerate(rows):
        progress = read(rows, post)
        finished_here = own.score is not None
        assert progress.finished == finished_here
        assert progress.forfeited == (
            own.solution and not own.solved and len(own.wrong) < MAX_ATTEMPTS
        )
        finished_anywhere = any(r.score is not None for r in rows)
        assert progress.can_score == (not finished_anywhere and task_misses < MAX_ATTEMPTS)
        assert progress.can_score == (progress.scoring_attempts_left > 0)
        assert progress.attempts_left == (0 if finished_here else MAX_ATTEMPTS - len(own.wrong))
        if progress.can_score:
            assert progress.scoring_attempts_left == MAX_ATTEMPTS - task_misses
            assert progress.scoring_attempts_left <= progress.attempts_left


def test_a_solution_seen_after_finishing_is_a_free_look_not_a_forfeit() -> None:
    solved = Progress.of_record(solved=True, solution_seen=True, points=10)
    failed = Progress.of_record(wrong_tries=MAX_ATTEMPTS, solution_seen=True)
    early = Progress.of_record(wrong_tries=1, solution_seen=True)
    assert not solved.forfeited and not failed.forfeited
    assert early.forfeited and early.finished and early.attempts_left == 0


def test_a_finish_on_another_post_ends_scoring_here_but_not_its_attempts() -> None:
    here = Progress(wrong_tries=1).with_other_posts([Progress(solved=True, points=10)])
    assert here.finished_elsewhere and not here.can_score
    assert here.attempts_left == MAX_ATTEMPTS - 1 and here.scoring_attempts_left == 0
    misses = Progress(wrong_tries=1).with_other_posts([Progress(wrong_tries=1)])
    assert misses.scoring_attempts_left == MAX_ATTEMPTS - 2 < misses.attempts_left
