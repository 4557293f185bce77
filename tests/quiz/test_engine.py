from datetime import UTC, datetime, timedelta

import pytest

from bot.quiz import engine
from bot.quiz.engine import Progress, Status, check_free_look, score
from bot.quiz.errors import (
    AnswerableElsewhereError,
    InvalidAnswerError,
    NotModeratorError,
    PostClosedError,
)
from bot.quiz.rules import PostPolicy, check_may_post
from bot.quiz.tasks import Difficulty
from tests.factories import choice, choice_task, fill, fill_task, note

FOUR_OPTIONS = choice(
    texts=("right", "wrong", "also wrong", "far off"),
    mistakes=(note("B is the classic slip.", "B"), note("Read the question twice.")),
)
"""Three different wrong answers: enough for three misses (a repeat is not graded)."""


def play(task, *answers, progress=None):
    progress = progress or Progress()
    outcomes = []
    for picks in answers:
        outcome = engine.grade(task, progress, picks)
        outcomes.append(outcome)
        progress = outcome.progress
    return outcomes


@pytest.mark.parametrize(
    ("wrong_first", "points"), [(0, 10), (1, 7), (2, 3)], ids=["1st", "2nd", "3rd"]
)
def test_right_on_the_nth_try_scores_by_wrong_tries(wrong_first: int, points: int) -> None:
    task = choice_task()
    outcomes = play(task, *[("B",), ("C",)][:wrong_first], ("A",))
    last = outcomes[-1]
    assert last.status is Status.CORRECT and last.correct
    assert last.points == points == last.progress.points
    assert last.progress.finished  # the answer and solution may be shown
    assert last.progress.first_try == (wrong_first == 0)
    assert [o.status for o in outcomes[:-1]] == [Status.WRONG] * wrong_first


@pytest.mark.parametrize(
    ("elsewhere", "here", "points"),
    [(1, 0, 7), (2, 0, 3), (1, 1, 3), (2, 1, 0), (3, 0, 0)],
    ids=["1+0", "2+0", "1+1", "2+1", "3+0"],
)
def test_misses_on_another_post_of_the_task_count_as_if_made_here(
    elsewhere: int, here: int, points: int
) -> None:
    """A task's misses count once, wherever made: its points go by the member's misses on
    all its posts in the server, and none are left after three."""
    start = Progress(wrong_elsewhere=elsewhere)
    *misses, solve = play(FOUR_OPTIONS, *[("B",), ("C",)][:here], ("A",), progress=start)
    assert [m.status for m in misses] == [Status.WRONG] * here  # this post's attempts stay
    assert solve.status is Status.CORRECT and solve.points == points
    assert solve.progress.scores_none == (points == 0)
    assert not solve.progress.first_try


def test_a_hint_seen_on_another_post_halves_the_points_once() -> None:
    (solve,) = play(choice_task(), ("A",), progress=Progress(hints_elsewhere=1))
    assert solve.points == 5
    (both,) = play(choice_task(), ("A",), progress=Progress(hints_elsewhere=1, hints_seen=1))
    assert both.points == 5


def test_wrong_answer_gives_the_tied_note_and_attempts_left_but_never_the_answer() -> None:
    task = choice_task()
    (outcome,) = play(task, ("B",))
    assert outcome.status is Status.WRONG
    assert outcome.notes == ("Model parallelism splits the model, not the data.",)
    assert outcome.attempts_left == 2
    assert not outcome.progress.finished  # no answer shown yet
    assert outcome.wrong_blanks == (1,)
    assert outcome.points == 0


def test_wrong_option_without_its_own_note_falls_back_to_general_notes() -> None:
    (outcome,) = play(choice_task(), ("C",))
    assert outcome.notes == ("Read the question twice.",)


def test_three_misses_fail_and_reveal_the_solution_with_zero_points() -> None:
    outcomes = play(FOUR_OPTIONS, ("B",), ("C",), ("D",))
    assert [o.status for o in outcomes] == [Status.WRONG, Status.WRONG, Status.FAILED]
    assert [o.attempts_left for o in outcomes] == [2, 1, 0]
    assert [o.progress.finished for o in outcomes] == [False, False, True]
    assert outcomes[-1].progress.finished and outcomes[-1].points == 0


@pytest.mark.parametrize("after", [("A",), ("B",)])
def test_answering_after_finishing_changes_nothing(after: tuple[str, ...]) -> None:
    task = FOUR_OPTIONS
    for history in ([("A",)], [("B",), ("C",), ("D",)]):
        *_, last = play(task, *history)
        again = engine.grade(task, last.progress, after)
        assert again.status is Status.ALREADY_FINISHED
        assert again.progress == last.progress
        assert again.points == last.progress.points


def test_the_same_wrong_answer_again_is_not_graded_and_uses_no_attempt() -> None:
    """A double click, or a click retried after "This interaction failed": the member is
    told again why it is wrong, and keeps their attempts."""
    first, again = play(choice_task(), ("B",), ("B",))
    assert first.status is Status.WRONG and first.recorded
    assert again.status is Status.REPEATED and not again.recorded and not again.correct
    assert again.progress == first.progress  # nothing changes
    assert again.attempts_left == 2 and not again.progress.finished
    assert again.notes == first.notes == ("Model parallelism splits the model, not the data.",)
    assert (again.wrong_blanks, again.points) == ((1,), 0)


def test_a_repeat_never_takes_the_last_attempt_and_the_others_are_graded() -> None:
    outcomes = play(FOUR_OPTIONS, ("B",), ("C",), ("B",), ("C",), ("A",))
    assert [o.status for o in outcomes] == [
        Status.WRONG,
        Status.WRONG,
        Status.REPEATED,
        Status.REPEATED,
        Status.CORRECT,
    ]
    assert [o.attempts_left for o in outcomes[:4]] == [2, 1, 1, 1]
    assert outcomes[2].notes == ("B is the classic slip.",)
    assert outcomes[3].notes == ("Read the question twice.",)  # C has no note of its own
    assert outcomes[-1].points == score(Difficulty.EASY, 2, hints_seen=0) == 3


def test_a_repeat_is_the_same_picks_in_the_engines_form() -> None:
    """Picks compare as `normalise_picks` returns them: a list and a tuple of the same labels
    are one answer, and `Outcome.picks` (what the store keeps) is that form."""
    task = fill_task()
    first, again, other = play(task, ["A", "B", "C"], ("A", "B", "C"), ("A", "B", "D"))
    assert first.picks == again.picks == ("A", "B", "C") == engine.normalise_picks(task, "ABC")
    assert first.progress.tried == {("A", "B", "C")}
    assert again.status is Status.REPEATED and again.wrong_blanks == (2,)
    assert again.notes == first.notes == ("'devices' is not defined here.",)
    assert other.status is Status.WRONG and other.attempts_left == 1  # blank 3 differs
    assert other.wrong_blanks == (2, 3)
    assert other.progress.tried == {("A", "B", "C"), ("A", "B", "D")}


def test_a_repeat_after_finishing_is_already_finished() -> None:
    *_, failed = play(FOUR_OPTIONS, ("B",), ("C",), ("D",))
    assert engine.grade(FOUR_OPTIONS, failed.progress, ("D",)).status is Status.ALREADY_FINISHED


def test_hint_seen_before_solving_halves_the_points() -> None:
    task = choice_task(Difficulty.MEDIUM)
    progress = engine.see_hint(task, Progress()).progress
    assert progress.hint_seen
    (outcome,) = play(task, ("A",), progress=progress)
    assert outcome.points == 10
    assert engine.score(Difficulty.HARD, 1, hints_seen=1) == 10


def test_hint_after_finishing_costs_nothing() -> None:
    (outcome,) = play(choice_task(), ("A",))
    seen = engine.see_hint(choice_task(), outcome.progress)
    assert seen.progress == outcome.progress and seen.free and not seen.charged


def test_forfeit_before_finishing_ends_the_task_with_zero_points() -> None:
    task = choice_task()
    (wrong,) = play(task, ("B",))
    forfeited = engine.forfeit(wrong.progress)
    assert forfeited.finished and forfeited.forfeited and forfeited.points == 0
    assert forfeited.attempts_left == 0
    assert engine.grade(task, forfeited, ("A",)).status is Status.ALREADY_FINISHED


def test_forfeit_after_solving_keeps_the_points() -> None:
    (outcome,) = play(choice_task(), ("A",))
    assert engine.forfeit(outcome.progress).points == 10


@pytest.mark.parametrize(
    ("picks", "wrong_blanks", "notes"),
    [
        (("D", "C", "C"), (1,), ("'/' gives a float.",)),
        (("A", "B", "C"), (2,), ("'devices' is not defined here.",)),
        (("A", "C", "B"), (3,), ("'devices' is not defined here.",)),
        (("D", "B", "B"), (1, 2, 3), ("'/' gives a float.", "'devices' is not defined here.")),
    ],
)
def test_each_wrong_blank_of_a_fill_task_is_named_with_its_note(picks, wrong_blanks, notes) -> None:
    (outcome,) = play(fill_task(), picks)
    assert outcome.status is Status.WRONG
    assert outcome.wrong_blanks == wrong_blanks
    assert outcome.notes == notes


def test_one_option_may_fill_several_blanks() -> None:
    (outcome,) = play(fill_task(), ("A", "C", "C"))
    assert outcome.status is Status.CORRECT
    assert outcome.points == 30


@pytest.mark.parametrize("picks", [("A", "C"), ("A", "C", "Z"), ()])
def test_answers_of_the_wrong_shape_are_refused(picks: tuple[str, ...]) -> None:
    with pytest.raises(InvalidAnswerError):
        engine.grade(fill_task(), Progress(), picks)


def test_describe_answer_names_picks_in_words() -> None:
    assert engine.describe_answer(choice_task(), ("B",)) == "B · model parallelism"
    assert engine.describe_answer(fill_task(), ("A", "B", "C")) == (
        "[1] //, [2] devices, [3] device_list"
    )


def test_fill_template_renders_picks_and_solution() -> None:
    task = fill_task()
    assert task.filled({1: "A"}) == "x = {d: total // len([2]) for d in [3]}"
    assert task.solved_template() == "x = {d: total // len(device_list) for d in device_list}"
    assert task.final_answer() == "[1] = //, [2] = device_list, [3] = device_list"


@pytest.mark.parametrize("picks", [{4: "A"}, {0: "A"}, {1: "Z"}])
def test_the_picker_refuses_a_blank_the_task_does_not_have_or_an_unknown_option(picks) -> None:
    """A forged picker click for blank 4 of a three-blank task (or blank 0) is refused, as an
    unknown option is; the task's own blanks and options are taken."""
    task = fill_task()
    with pytest.raises(InvalidAnswerError):
        engine.check_partial_picks(task, picks)
    engine.check_partial_picks(task, {1: "A", 3: "D"})


def test_a_closed_posts_free_look_waits_only_for_a_member_who_can_still_answer_elsewhere() -> None:
    elsewhere = (1, 2, 3)
    unfinished, finished = Progress(), Progress(solved=True, points=10)
    with pytest.raises(AnswerableElsewhereError) as refused:
        check_free_look(True, unfinished, elsewhere)
    assert refused.value.post == elsewhere
    # Free as before: nothing open elsewhere, the member finished here or finished the task
    # on another post (the open one would score nothing), or the post is open (its own hint
    # and solution cost points there).
    check_free_look(True, unfinished, None)
    check_free_look(True, finished, elsewhere)
    check_free_look(True, Progress(finished_elsewhere=True), elsewhere)  # no points left to win
    check_free_look(True, Progress(wrong_elsewhere=3), elsewhere)  # nor here: tries used up
    check_free_look(False, unfinished, elsewhere)


def test_a_post_closes_at_its_closing_moment_not_after_it() -> None:
    """A daily post whose closing time is 09:00 refuses an answer clicked at 09:00 sharp; at
    08:59:59.999999 it still takes it. An explicit close wins whatever the time."""
    closes = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    assert engine.post_closed(None, closes, closes)
    assert not engine.post_closed(None, closes, closes - timedelta(microseconds=1))
    assert engine.post_closed(None, closes, closes + timedelta(seconds=1))
    assert not engine.post_closed(None, None, closes)
    assert engine.post_closed(closes - timedelta(days=1), None, closes - timedelta(days=2))


def test_a_solution_opened_after_finishing_is_free_and_counted_in_the_results() -> None:
    """The results export's `solution` column counts every view on an open post, the free
    one after finishing included; a closed post's solution is everyone's and is not counted;
    before finishing it takes a confirmation and forfeits."""
    solved = Progress(solved=True, points=10)
    after = engine.open_solution(solved, closed=False, confirmed=False)
    assert (after.shown, after.recorded, after.forfeited_now) == (True, True, False)
    assert after.progress == solved  # free: the points stay

    closed = engine.open_solution(Progress(), closed=True, confirmed=False)
    assert (closed.shown, closed.recorded, closed.progress) == (True, False, Progress())

    asked = engine.open_solution(Progress(), closed=False, confirmed=False)
    assert (asked.shown, asked.recorded, asked.progress) == (False, False, Progress())

    given_up = engine.open_solution(Progress(wrong_tries=1), closed=False, confirmed=True)
    assert (given_up.shown, given_up.recorded, given_up.forfeited_now) == (True, True, True)
    assert given_up.progress.finished and given_up.progress.points == 0


def test_a_closed_post_refuses_an_answer_but_not_a_finished_member() -> None:
    with pytest.raises(PostClosedError):
        engine.check_open(True, Progress(wrong_tries=1))
    engine.check_open(True, Progress(solved=True, points=10))  # told ALREADY_FINISHED instead
    engine.check_open(False, Progress())


def test_a_hint_costs_half_only_while_it_can_still_score() -> None:
    task = choice_task()
    assert engine.see_hint(task, Progress()).progress.hint_seen
    assert engine.see_hint(task, Progress(), closed=True).progress == Progress()  # closed: free
    solved = Progress(solved=True, points=10)
    assert engine.see_hint(task, solved).progress == solved  # finished: free


def test_a_one_blank_fill_answer_is_described_like_a_choice() -> None:
    task = fill("one", prompt="x = [1]", texts=("len", "size"), answers=("A",))
    assert engine.describe_answer(task, ("B",)) == "B · size"


def test_a_right_answer_keeps_the_picks_the_store_records() -> None:
    """The attempt stored for a right answer holds its picks (the results export and
    `Progress.tried` read them), in the engine's one form."""
    outcome = engine.grade(fill_task(), Progress(), ["A", "C", "C"])
    assert outcome.correct and outcome.picks == ("A", "C", "C")
    (wrong,) = play(choice_task(), ["B"])
    assert wrong.picks == ("B",)


def test_only_moderators_post_where_the_server_says_so() -> None:
    with pytest.raises(NotModeratorError):
        check_may_post(PostPolicy.MODS, is_moderator=False)
    with pytest.raises(NotModeratorError):
        check_may_post("mods", is_moderator=False)  # as stored in the server's settings
    check_may_post(PostPolicy.MODS, is_moderator=True)
    check_may_post(PostPolicy.ANYONE, is_moderator=False)


@pytest.mark.parametrize(
    "progress",
    [Progress(finished_elsewhere=True), Progress(wrong_elsewhere=3)],
    ids=["finished-elsewhere", "tries-used-elsewhere"],
)
def test_a_task_finished_or_out_of_tries_elsewhere_solves_here_for_no_points(
    progress: Progress,
) -> None:
    """A task's points are earned once in a server: solving it again on another post counts
    as solved (for stats and the review card) but scores 0."""
    (outcome,) = play(choice_task(), ("A",), progress=progress)
    assert outcome.correct and outcome.progress.solved
    assert outcome.points == outcome.progress.points == 0
