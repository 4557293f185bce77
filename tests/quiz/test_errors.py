"""What a member or moderator reads when the rules refuse them: the errors whose own message is
the reply (bot/discord_ui/error_texts.py passes `str(error)` on for these), word for word, and what
they carry for the reply's links."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.quiz.errors import (
    AnswerableElsewhereError,
    BankRefusedError,
    ForgedControlError,
    InvalidInputError,
    NoMatchingTaskError,
    NothingPostedError,
    NotModeratorError,
    PrivatePostError,
    QuizError,
    ScheduleLimitError,
    SessionExpiredError,
    SessionMovedOnError,
    StoreAction,
    StoreBusyError,
    StoreUnavailableError,
    TasksWithheldError,
    UnknownBankError,
)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: AnswerableElsewhereError((1, 2, 3)),
            "This task is still open for you on another post here, so its hint and solution "
            "aren't free yet: answer it there (its own hint and solution work as usual).",
        ),
        (
            lambda: TasksWithheldError(),
            "Every matching task is open on a public post here that you haven't finished. "
            "Answer those first: practising a task in private would give its answer away.",
        ),
        (
            lambda: PrivatePostError(),
            "That task belongs to another member's private practice. /practice starts your own.",
        ),
        (
            lambda: NothingPostedError(),
            "No quiz has been posted in this channel yet. Choose one with the `task` option, "
            "or post one with /quiz.",
        ),
        (
            lambda: SessionMovedOnError(),
            "This session has moved on from that task: your newest message from it shows the "
            "current one.",
        ),
        (
            lambda: NotModeratorError(),
            "Only moderators can do that: you need the Manage Server permission "
            "or this server's moderator role.",
        ),
        (
            lambda: ScheduleLimitError(5),
            "This server already has 5 daily quizzes; remove one with /schedule remove first.",
        ),
        (
            lambda: InvalidInputError(
                "hour", "The `{option}` option takes {low} to {high}.", low=0, high=23
            ),
            "The `hour` option takes 0 to 23.",
        ),
        (
            lambda: ForgedControlError(),
            "That control doesn't belong to this message. Use the buttons on the quiz post.",
        ),
        (lambda: BankRefusedError("a.yaml", ["x"]), "'a.yaml' was not stored: 1 problem."),
        (lambda: BankRefusedError("b.yaml", ("x", "y")), "'b.yaml' was not stored: 2 problems."),
        (lambda: UnknownBankError("py"), "This server has no uploaded bank 'py'. See /bank list."),
        (
            lambda: NoMatchingTaskError("gpu", "hard"),
            "There is no hard gpu task in the loaded banks.",
        ),
        (
            lambda: SessionExpiredError(idle=True, minutes=30, kind="review"),
            "This review session ended after 30 minutes without activity. /review starts a new "
            "one.",
        ),
        (
            lambda: SessionExpiredError(idle=False, minutes=30, kind="practice"),
            "This practice session ended. /practice starts a new one.",
        ),
        (
            lambda: SessionExpiredError(idle=True, minutes=30),
            "This session has ended. /practice or /review starts a new one.",
        ),
        (
            lambda: SessionExpiredError(idle=True, minutes=1, kind="practice"),
            "This practice session ended after 1 minute without activity. /practice starts a "
            "new one.",
        ),
        (
            lambda: ScheduleLimitError(1),
            "This server already has 1 daily quiz; remove one with /schedule remove first.",
        ),
    ],
    ids=lambda value: "" if isinstance(value, str) else type(value()).__name__,
)
def test_each_refusal_says_what_to_do(make: Callable[[], QuizError], message: str) -> None:
    # Built here, not at collection, so that a change to the error's code is what runs.
    assert str(make()) == message


def test_the_errors_carry_what_the_reply_links_and_names() -> None:
    elsewhere = AnswerableElsewhereError((1, 2, None))
    assert elsewhere.post == (1, 2, None)
    withheld = TasksWithheldError(((1, 2, 3),), total=4)
    assert (withheld.posts, withheld.total) == (((1, 2, 3),), 4)
    refused = BankRefusedError("a.yaml", ["line 1: x", "line 2: y"])
    assert (refused.filename, refused.problems) == ("a.yaml", ("line 1: x", "line 2: y"))
    bad = InvalidInputError("hour", "The `{option}` option takes {low} to {high}.", low=0, high=23)
    assert bad.option == "hour"
    assert bad.params == {"option": "hour", "low": 0, "high": 23}
    assert ScheduleLimitError(5).limit == 5
    assert UnknownBankError("py").name == "py"
    missing = NoMatchingTaskError("gpu", None)
    assert (missing.topic, missing.difficulty) == ("gpu", None)
    assert SessionExpiredError(idle=True, minutes=30).idle is True
    assert SessionExpiredError(idle=False, minutes=30).idle is False


def test_a_store_refusal_says_what_each_member_lost() -> None:
    """One refused group commit holds several members' work: each is told what they lost,
    and the host's log keeps the one fault."""
    busy = StoreBusyError(StoreAction.ANSWER, "database is locked")
    assert str(busy) == (
        "The quiz database is busy; your answer was not recorded. Try again in a moment."
    )
    assert busy.lost(StoreAction.ANSWER) is busy
    posted = busy.lost(StoreAction.POST)
    assert type(posted) is StoreBusyError and posted.fault == "database is locked"
    assert posted.action is StoreAction.POST
    assert str(posted) == (
        "The quiz database is busy; the quiz was not posted. Try again in a moment."
    )
    down = StoreUnavailableError(StoreAction.READ, "disk I/O error")
    assert str(down) == (
        "The quiz database is unavailable. Try again in a minute; the bot's host has been told."
    )
    assert str(down.lost(StoreAction.CHANGE)) == (
        "The quiz database is unavailable; your change was not saved. Try again in a minute; "
        "the bot's host has been told."
    )


def test_an_error_carries_its_template_and_params_for_the_reader_language() -> None:
    """The Discord layer translates `template` and fills it with `params`; str() is the
    English fill, for logs and the CLI."""
    refused = BankRefusedError("a.yaml", ["x", "y"])
    assert refused.template == (
        "{filename!r} was not stored: {n} problem.",
        "{filename!r} was not stored: {n} problems.",
    )
    assert refused.params == {"filename": "a.yaml", "n": 2}
    busy = StoreBusyError(StoreAction.POST, "database is locked")
    assert busy.template == "The quiz database is busy; {lost}. Try again in a moment."
    assert busy.params == {"lost": "the quiz was not posted"}
    assert "lost" in busy.MESSAGES  # itself a message, translated too
    plain = QuizError("no posted task {5} here")  # a detail for the log: no params, no format
    assert str(plain) == "no posted task {5} here"
