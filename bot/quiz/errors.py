"""Domain errors: each names what went wrong, and the Discord layer turns it into a private
reply (bot/discord_ui/error_texts.py). None is a bug. A message quotes typed text with `!r`, so
the Discord layer can find it and show it escaped, never rendered.
"""

from __future__ import annotations

from enum import Enum


class QuizError(Exception):
    """Base for everything a member or moderator can be told about."""


class InvalidAnswerError(QuizError):
    """An answer of the wrong shape: unknown option or wrong number of blanks."""


class BlankAnswerError(InvalidAnswerError):
    """A submission that picks nothing: refused before grading, so it uses no attempt."""


class UnknownTaskError(QuizError):
    """The task is not (or no longer) in the loaded banks."""


class NoMatchingTaskError(QuizError):
    """No loaded task has the asked topic and difficulty."""

    def __init__(self, topic: str | None, difficulty: str | None) -> None:
        self.topic = topic
        self.difficulty = difficulty
        wanted = " ".join(x for x in (difficulty, topic) if x) or "any"
        super().__init__(f"There is no {wanted} task in the loaded banks.")


class TasksWithheldError(QuizError):
    """Every matching practice task is open on a public post the member can still score on.
    `posts`: (server, channel, message) of a few of them, latest first; `total`: how many."""

    def __init__(self, posts: tuple[tuple[int, int, int], ...] = (), total: int = 0) -> None:
        self.posts = posts
        self.total = total
        super().__init__(
            "Every matching task is open on a public post here that you haven't finished. "
            "Answer those first: practising a task in private would give its answer away."
        )


class AnswerableElsewhereError(QuizError):
    """A closed post's free hint or solution, asked for by a member who can still answer its
    task on `post`, (server, channel, message) (`engine.check_free_look`)."""

    def __init__(self, post: tuple[int, int, int | None]) -> None:
        self.post = post
        super().__init__(
            "This task is still open for you on another post here, so its hint and solution "
            "aren't free yet: answer it there (its own hint and solution work as usual)."
        )


class UnknownPostError(QuizError):
    """No posted task has that id in this server."""


class NoHintError(QuizError):
    """/hint on a task that has none: nothing is shown, and nothing is charged."""

    def __init__(self) -> None:
        super().__init__(
            "This task has no hint: it's yours to work out, and nothing was taken off your "
            "points."
        )


class NothingPostedError(QuizError):
    """/hint or /solution without a task, in a channel that has had no quiz yet."""

    def __init__(self) -> None:
        super().__init__(
            "No quiz has been posted in this channel yet. Choose one with the `task` option, "
            "or post one with /quiz."
        )


class PostClosedError(QuizError):
    """The daily quiz this post belongs to has closed."""


class PrivatePostError(QuizError):
    """A control of another member's private practice or review task."""

    def __init__(self) -> None:
        super().__init__(
            "That task belongs to another member's private practice. /practice starts your own."
        )


class SessionExpiredError(QuizError):
    """A click on a practice or review session (`kind`; None: gone) that has ended: idle too
    long (`idle`), or by its summary or a newer session."""

    def __init__(self, *, idle: bool, minutes: int, kind: str | None = None) -> None:
        self.idle = idle
        why = f" after {minutes} minutes without activity" if idle else ""
        if kind is None:
            text = "This session has ended. /practice or /review starts a new one."
        else:
            text = f"This {kind} session ended{why}. /{kind} starts a new one."
        super().__init__(text)


class SessionMovedOnError(QuizError):
    """A Next on a session's older task message: the session has served another since."""

    def __init__(self) -> None:
        super().__init__(
            "This session has moved on from that task: your newest message from it shows the "
            "current one."
        )


class AttemptLimitError(QuizError):
    """The database refused a fourth attempt (a concurrent click got there first)."""


class NotModeratorError(QuizError):
    """A moderator-only action by someone who is not one."""

    def __init__(self) -> None:
        super().__init__(
            "Only moderators can do that: you need the Manage Server permission "
            "or this server's moderator role."
        )


class ScheduleLimitError(QuizError):
    """The server already has the most daily quizzes it may have."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            f"This server already has {limit} daily quizzes; remove one with "
            "/schedule remove first."
        )


class ScheduleInputError(QuizError):
    """A /schedule or /config value the moderator can correct (time, zone, topic, id)."""


class StoreAction(Enum):
    """What a refused unit of work was doing; its value is what the member lost."""

    READ = ""
    WRITE = "nothing was saved"
    ANSWER = "your answer was not recorded"
    REVEAL = "nothing was shown or saved"
    CHANGE = "your change was not saved"
    POST = "the quiz was not posted"
    DELETE = "nothing was deleted"


class StoreError(QuizError):
    """The database refused a unit of work, which stored nothing: the host's problem, never the
    member's. The message says what the member lost; `fault`, for the log, what went wrong."""

    condition = "unavailable right now"
    advice = "The bot's host has been told."

    def __init__(self, action: StoreAction, fault: str) -> None:
        self.action = action
        self.fault = fault
        lost = f"; {action.value}" if action.value else ""
        super().__init__(f"The quiz database is {self.condition}{lost}. {self.advice}")

    def lost(self, action: StoreAction) -> StoreError:
        """The same refusal, told to a member who lost `action` in it (a group commit mixes)."""
        return self if action is self.action else type(self)(action, self.fault)


class StoreBusyError(StoreError):
    """Another writer held the database's lock for longer than the busy timeout."""

    condition = "busy"
    advice = "Try again in a moment."


class StoreUnavailableError(StoreError):
    """The database cannot be used until the host acts or it comes back (a full disk, say)."""

    condition = "unavailable"
    advice = "Try again in a minute; the bot's host has been told."


class InvalidInputError(QuizError):
    """A value its option does not take (only a raw payload gets past Discord's client)."""

    def __init__(self, option: str, problem: str) -> None:
        self.option = option
        self.problem = problem
        super().__init__(f"The `{option}` option {problem}.")


class ForgedControlError(QuizError):
    """A button or select this bot never put where it was clicked (a forged custom_id)."""

    def __init__(self) -> None:
        super().__init__(
            "That control doesn't belong to this message. Use the buttons on the quiz post."
        )


class BankRefusedError(QuizError):
    """An uploaded bank was refused: `problems` has one line per problem."""

    def __init__(self, filename: str, problems: tuple[str, ...] | list[str]) -> None:
        self.filename = filename
        self.problems = tuple(problems)
        count = len(self.problems)
        # Not bot.wording.plural: the rules import nothing outside bot.quiz.
        super().__init__(
            f"{filename!r} was not stored: {count} problem{'' if count == 1 else 's'}."
        )


class UnknownBankError(QuizError):
    """No uploaded bank of that name in this server."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"This server has no uploaded bank {name!r}. See /bank list.")
