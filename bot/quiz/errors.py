"""Domain errors: each names what went wrong, and the Discord layer turns it into a private
reply (bot/discord_ui/error_texts.py). None is a bug.

An error's `template` is its English message with `{named}` fields, marked for the catalogs with
this module's `N_` and `N_plural` (babel.cfg extracts them: the rules import nothing outside
bot.quiz, so the Discord layer translates), and `params` fill it; `str(error)` is the English,
for logs and the CLI. Typed text is quoted with `!r` (`{name!r}`), so the Discord layer can find
it and show it escaped, never rendered.
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

Template = str | tuple[str, str]
"""A message; a (singular, plural) pair is chosen by its count, the `n` param."""


def N_(message: str) -> str:
    """Marks a message for the catalogs; it is translated where it is shown."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a count, `{n}`, for the catalogs (its plural forms)."""
    return singular, plural


def english(template: Template, params: dict[str, object]) -> str:
    if isinstance(template, tuple):
        template = template[0] if params.get("n") == 1 else template[1]
    return template.format(**params) if params else template


class QuizError(Exception):
    """Base for everything a member or moderator can be told about: `template` filled with
    `params` (numbers among them are shown as the reader's locale writes them: pass an id as
    text). The params named in `MESSAGES` are marked messages themselves, translated too."""

    MESSAGES: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, template: Template = "", /, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(english(template, params))


class InvalidAnswerError(QuizError):
    """An answer of the wrong shape: unknown option or wrong number of blanks."""


class BlankAnswerError(InvalidAnswerError):
    """A submission that picks nothing: refused before grading, so it uses no attempt."""


class UnknownTaskError(QuizError):
    """The task is not in the loaded banks; `gone`: no longer (a post's task since removed)."""

    def __init__(self, task_id: str, *, gone: bool = False) -> None:
        self.task_id = task_id
        self.gone = gone
        if gone:
            super().__init__("task {task_id!r} is no longer in the loaded banks", task_id=task_id)
        else:
            super().__init__("task {task_id!r} is not in the loaded banks", task_id=task_id)


class NoMatchingTaskError(QuizError):
    """No loaded task has the asked topic and difficulty."""

    def __init__(self, topic: str | None, difficulty: str | None) -> None:
        self.topic = topic
        self.difficulty = difficulty
        wanted = " ".join(x for x in (difficulty, topic) if x) or "any"
        super().__init__("There is no {wanted} task in the loaded banks.", wanted=wanted)


class TasksWithheldError(QuizError):
    """Every matching practice task is open on a public post the member can still score on.
    `posts`: (server, channel, message) of a few of them, latest first; `total`: how many."""

    def __init__(self, posts: tuple[tuple[int, int, int], ...] = (), total: int = 0) -> None:
        self.posts = posts
        self.total = total
        super().__init__(
            N_(
                "Every matching task is open on a public post here that you haven't finished. "
                "Answer those first: practising a task in private would give its answer away."
            )
        )


class AnswerableElsewhereError(QuizError):
    """A closed post's free hint or solution, asked for by a member who can still answer its
    task on `post`, (server, channel, message) (`engine.check_free_look`)."""

    def __init__(self, post: tuple[int, int, int | None]) -> None:
        self.post = post
        super().__init__(
            N_(
                "This task is still open for you on another post here, so its hint and "
                "solution aren't free yet: answer it there (its own hint and solution work as "
                "usual)."
            )
        )


class UnknownPostError(QuizError):
    """No posted task has that id in this server."""


class NoHintError(QuizError):
    """/hint on a task that has none: nothing is shown, and nothing is charged."""

    def __init__(self) -> None:
        super().__init__(
            N_(
                "This task has no hint: it's yours to work out, and nothing was taken off your "
                "points."
            )
        )


class NothingPostedError(QuizError):
    """/hint or /solution without a task, in a channel that has had no quiz yet."""

    def __init__(self) -> None:
        super().__init__(
            N_(
                "No quiz has been posted in this channel yet. Choose one with the `task` "
                "option, or post one with /quiz."
            )
        )


class PostClosedError(QuizError):
    """The daily quiz this post belongs to has closed."""


class PrivatePostError(QuizError):
    """A control of another member's private practice or review task."""

    def __init__(self) -> None:
        super().__init__(
            N_("That task belongs to another member's private practice. /practice starts your own.")
        )


def _session_ended(kind: str | None, idle: bool) -> Template:
    # Whole sentences: the kind and the command are words of each, in every language.
    if kind == "practice":
        if idle:
            return N_plural(
                "This practice session ended after {n} minute without activity. /practice "
                "starts a new one.",
                "This practice session ended after {n} minutes without activity. /practice "
                "starts a new one.",
            )
        return N_("This practice session ended. /practice starts a new one.")
    if kind == "review":
        if idle:
            return N_plural(
                "This review session ended after {n} minute without activity. /review starts "
                "a new one.",
                "This review session ended after {n} minutes without activity. /review starts "
                "a new one.",
            )
        return N_("This review session ended. /review starts a new one.")
    return N_("This session has ended. /practice or /review starts a new one.")


class SessionExpiredError(QuizError):
    """A click on a practice or review session (`kind`; None: gone) that has ended: idle too
    long (`idle`), or by its summary or a newer session."""

    def __init__(self, *, idle: bool, minutes: int, kind: str | None = None) -> None:
        self.idle = idle
        template = _session_ended(kind, idle)
        super().__init__(template, **({"n": minutes} if isinstance(template, tuple) else {}))


class SessionMovedOnError(QuizError):
    """A Next on a session's older task message: the session has served another since."""

    def __init__(self) -> None:
        super().__init__(
            N_(
                "This session has moved on from that task: your newest message from it shows "
                "the current one."
            )
        )


class AttemptLimitError(QuizError):
    """The database refused a fourth attempt (a concurrent click got there first)."""


class NotModeratorError(QuizError):
    """A moderator-only action by someone who is not one."""

    def __init__(self) -> None:
        super().__init__(
            N_(
                "Only moderators can do that: you need the Manage Server permission "
                "or this server's moderator role."
            )
        )


class ScheduleLimitError(QuizError):
    """The server already has the most daily quizzes it may have."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            N_plural(
                "This server already has {n} daily quiz; remove one with /schedule remove first.",
                "This server already has {n} daily quizzes; remove one with /schedule remove "
                "first.",
            ),
            n=limit,
        )


class ScheduleInputError(QuizError):
    """A /schedule or /config value the moderator can correct (time, zone, topic, id)."""


class StoreAction(Enum):
    """What a refused unit of work was doing; its value is what the member lost."""

    READ = ""
    # TRANSLATORS: what a member lost when the database refused; it follows "The quiz
    # database is busy;" (or unavailable), so it starts in lower case.
    WRITE = N_("nothing was saved")
    ANSWER = N_("your answer was not recorded")
    REVEAL = N_("nothing was shown or saved")
    CHANGE = N_("your change was not saved")
    POST = N_("the quiz was not posted")
    DELETE = N_("nothing was deleted")


class StoreError(QuizError):
    """The database refused a unit of work, which stored nothing: the host's problem, never the
    member's. The message says what the member lost; `fault`, for the log, what went wrong."""

    MESSAGES = frozenset({"lost"})
    told = N_("The quiz database is unavailable right now. The bot's host has been told.")
    told_lost = N_(
        "The quiz database is unavailable right now; {lost}. The bot's host has been told."
    )

    def __init__(self, action: StoreAction, fault: str) -> None:
        self.action = action
        self.fault = fault
        if action.value:
            super().__init__(self.told_lost, lost=action.value)
        else:
            super().__init__(self.told)

    def lost(self, action: StoreAction) -> StoreError:
        """The same refusal, told to a member who lost `action` in it (a group commit mixes)."""
        return self if action is self.action else type(self)(action, self.fault)


class StoreBusyError(StoreError):
    """Another writer held the database's lock for longer than the busy timeout."""

    told = N_("The quiz database is busy. Try again in a moment.")
    told_lost = N_("The quiz database is busy; {lost}. Try again in a moment.")


class StoreUnavailableError(StoreError):
    """The database cannot be used until the host acts or it comes back (a full disk, say)."""

    told = N_(
        "The quiz database is unavailable. Try again in a minute; the bot's host has been told."
    )
    told_lost = N_(
        "The quiz database is unavailable; {lost}. Try again in a minute; the bot's host has "
        "been told."
    )


class InvalidInputError(QuizError):
    """A value its option does not take (only a raw payload gets past Discord's client):
    `template` a whole sentence naming the `{option}`, e.g. N_("The `{option}` option takes
    text.")."""

    def __init__(self, option: str, template: Template, /, **params: object) -> None:
        self.option = option
        super().__init__(template, option=option, **params)


class ForgedControlError(QuizError):
    """A button or select this bot never put where it was clicked (a forged custom_id)."""

    def __init__(self) -> None:
        super().__init__(
            N_("That control doesn't belong to this message. Use the buttons on the quiz post.")
        )


class BankRefusedError(QuizError):
    """An uploaded bank was refused: `problems` has one line per problem."""

    def __init__(self, filename: str, problems: tuple[str, ...] | list[str]) -> None:
        self.filename = filename
        self.problems = tuple(problems)
        super().__init__(
            N_plural(
                "{filename!r} was not stored: {n} problem.",
                "{filename!r} was not stored: {n} problems.",
            ),
            filename=filename,
            n=len(self.problems),
        )


class UnknownBankError(QuizError):
    """No uploaded bank of that name in this server."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            N_("This server has no uploaded bank {name!r}. See /bank list."), name=name
        )
