"""Domain errors, in one place: each names what went wrong, and the Discord layer turns each
into a private, friendly reply (bot/discord_ui/error_texts.py). None of them is a bug.

A message that quotes what a member or moderator typed quotes it with `!r` (`f"{text!r} is
not ..."`): the Discord layer finds those quotes and shows them cut and escaped, so typed
markdown or mentions are shown as typed, never rendered.
"""

from __future__ import annotations

from enum import Enum


class QuizError(Exception):
    """Base for everything a member or moderator can be told about."""


class InvalidAnswerError(QuizError):
    """An answer of the wrong shape: unknown option or wrong number of blanks."""


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
    """Practice found matching tasks, but every one is open on a public post that the member
    can still score on (`practice.next_task`'s withheld tasks)."""

    def __init__(self, posts: tuple[tuple[int, int, int], ...] = (), total: int = 0) -> None:
        """`posts`: (server, channel, message) of a few of those posts, the latest first, for
        links; `total`: how many there are."""
        self.posts = posts
        self.total = total
        super().__init__(
            "Every matching task is open on a public post here that you haven't finished. "
            "Answer those first: practising a task in private would give its answer away."
        )


class AnswerableElsewhereError(QuizError):
    """A closed post's free hint or solution, asked for by a member who can still answer the
    same task on another public post in the server (`engine.check_free_look`)."""

    def __init__(self, post: tuple[int, int, int | None]) -> None:
        """`post`: (server, channel, message) of that post, for a link; the message is None
        until it was sent."""
        self.post = post
        super().__init__(
            "This task is still open for you on another post here, so its hint and solution "
            "aren't free yet: answer it there (its own hint and solution work as usual)."
        )


class UnknownPostError(QuizError):
    """No posted task has that id in this server."""


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
    """A control of another member's private practice or review task (a forged custom_id, or
    a task id typed into /hint or /solution)."""

    def __init__(self) -> None:
        super().__init__(
            "That task belongs to another member's private practice. /practice starts your own."
        )


class SessionExpiredError(QuizError):
    """A click on a practice or review session that has ended: idle too long (`idle`), or
    ended by its summary or by a newer session."""

    def __init__(self, *, idle: bool, minutes: int, kind: str | None = None) -> None:
        """`kind`: the session's ("practice" or "review"), so the member is pointed to the
        command that starts another; None when the session is gone."""
        self.idle = idle
        why = f" after {minutes} minutes without activity" if idle else ""
        if kind is None:
            text = "This session has ended. /practice or /review starts a new one."
        else:
            text = f"This {kind} session ended{why}. /{kind} starts a new one."
        super().__init__(text)


class SessionMovedOnError(QuizError):
    """A Next on a session's older task message: the session has served another task since
    (a second click on the same Next, or one scrolled back to)."""

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
    """What a unit of work was doing when the database refused it. Its value is what the
    member lost, the middle of a StoreError's message (a read lost nothing)."""

    READ = ""
    WRITE = "nothing was saved"
    ANSWER = "your answer was not recorded"
    REVEAL = "nothing was shown or saved"
    CHANGE = "your change was not saved"
    POST = "the quiz was not posted"


class StoreError(QuizError):
    """The database refused a unit of work, which stored nothing: the host's problem (a held
    lock, a full disk, a damaged file), never the member's. The message, decided here, says
    what the member lost; `fault` says what went wrong, for the host's log."""

    condition = "unavailable right now"
    advice = "The bot's host has been told."

    def __init__(self, action: StoreAction, fault: str) -> None:
        self.action = action
        self.fault = fault
        lost = f"; {action.value}" if action.value else ""
        super().__init__(f"The quiz database is {self.condition}{lost}. {self.advice}")

    def lost(self, action: StoreAction) -> StoreError:
        """The same refusal, told to a member who lost `action` in it (a group commit holds
        several kinds of work in one transaction)."""
        return self if action is self.action else type(self)(action, self.fault)


class StoreBusyError(StoreError):
    """Another writer held the database's lock for longer than the busy timeout."""

    condition = "busy"
    advice = "Try again in a moment."


class StoreUnavailableError(StoreError):
    """The database cannot be written (or read) until the host acts or it comes back: a full
    disk, a damaged or read-only file, an I/O error, a database server that cannot be
    reached."""

    condition = "unavailable"
    advice = "Try again in a minute; the bot's host has been told."


class InvalidInputError(QuizError):
    """A value outside what its option takes: too long, not one of the choices, out of range,
    or of the wrong kind. Discord's client prevents these; a raw payload or a forged custom_id
    does not, so `bot.quiz.refs` refuses them, naming the option (`option`)."""

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
    """An uploaded bank was refused: `problems` lists every problem, one line each, with the
    file's line (bot/content/uploads.py)."""

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
