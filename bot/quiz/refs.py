"""What members and moderators type or send, parsed once: each function here is the one place
that decides what one kind of typed value may be, and refuses anything else with the domain
error the Discord layer turns into a private reply (bot/discord_ui/errors.py).

Discord's client checks option types, choices, lengths and ranges before an interaction
reaches the bot, but a raw payload or a forged custom_id skips all of that. So nothing here
trusts the type it is given either, and no id outside what SQLite can store reaches a query.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from bot.quiz.errors import (
    InvalidAnswerError,
    InvalidInputError,
    ScheduleInputError,
    UnknownPostError,
)
from bot.quiz.tasks import MAX_BLANKS, OPTION_LABELS

E = TypeVar("E", bound=StrEnum)

MAX_ID = 2**63 - 1
"""The largest id SQLite's INTEGER (signed 64 bits) holds: posts and schedules are 1..MAX_ID."""
MAX_ID_DIGITS = len(str(MAX_ID))
TEXT_LIMIT = 100
"""The most characters a free-text option takes (topic, task, time, time zone): the options
declare it as their max_length, so Discord's client enforces it too."""

NO_SUCH_SCHEDULE = (
    "This server has no daily quiz with that `id`: `/schedule list` shows their numbers."
)


def _id_number(text: str) -> int | None:
    """ASCII digits naming an id SQLite can hold, or None ("²" and "١٢" are digits to Python's
    str.isdigit and int, but no id is written with them)."""
    if not (0 < len(text) <= MAX_ID_DIGITS and text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if 1 <= number <= MAX_ID else None


# -- posts -------------------------------------------------------------------------------------


def post_number(text: str) -> int | None:
    """The post id in typed text ("12" or "#12"), or None when the text is not one: then it is
    text to search the task ids for. A number no post can have is not a post id either."""
    return _id_number(text.strip().removeprefix("#"))


def search_text(text: str) -> str:
    """Typed text to search the posts' task ids for: trimmed, without control characters
    (which no one types, and SQLite's LIKE would end a pattern at a NUL)."""
    return "".join(c for c in text if c.isprintable()).strip()


def post_ref(text: str | None) -> int | str | None:
    """What the `task` option of /hint and /solution names: None (nothing typed: the channel's
    latest post), a post id (the autocomplete's values, or "#12" typed), or text to search for."""
    text = search_text(text or "")
    if not text:
        return None
    number = post_number(text)
    return text if number is None else number


def post_id(text: str) -> int:
    """The post id field of a custom_id. Anything that is not an id a post can have names no
    post: the same UnknownPostError as a post that does not exist."""
    number = _id_number(text)
    if number is None:
        raise UnknownPostError("the custom_id names no post id")
    return number


def option_label(text: str) -> str:
    """The option field of an answer button's custom_id: one option letter. Whether the task
    has that option is the engine's check (`engine.normalise_picks`)."""
    if len(text) != 1 or text not in OPTION_LABELS:
        raise InvalidAnswerError("the custom_id names no option")
    return text


def blank_number(text: str) -> int:
    """The blank field of a picker select's custom_id: 1..MAX_BLANKS. Whether the task has that
    blank is the engine's check (`engine.check_partial_picks`)."""
    number = int(text) if len(text) == 1 and text.isascii() and text.isdigit() else 0
    if not 1 <= number <= MAX_BLANKS:
        raise InvalidAnswerError("the custom_id names no blank")
    return number


# -- schedules ---------------------------------------------------------------------------------


def schedule_id(value: object) -> int:
    """The `id` option of /schedule remove, pause and resume: a whole number an id can be."""
    if type(value) is not int or not 1 <= value <= MAX_ID:
        raise ScheduleInputError(NO_SUCH_SCHEDULE)
    return value


# -- option values -----------------------------------------------------------------------------


def text(value: object, option: str, limit: int = TEXT_LIMIT) -> str:
    """A free-text option: text of at most `limit` characters."""
    # A lone surrogate ("\ud800" in a raw payload's JSON) is no text: the database's UTF-8
    # encoder would raise on it.
    if not isinstance(value, str) or (not value.isascii() and _surrogate(value)):
        raise InvalidInputError(option, "takes text")
    if len(value) > limit:
        raise InvalidInputError(option, f"takes at most {limit} characters")
    return value


def _surrogate(value: str) -> bool:
    try:
        value.encode()
    except UnicodeEncodeError:
        return True
    return False


def whole_number(value: object, option: str, low: int, high: int) -> int:
    """A whole-number option within [low, high] (a bool is not a number here)."""
    if type(value) is not int or not low <= value <= high:
        raise InvalidInputError(option, f"takes a whole number from {low} to {high}")
    return value


def choice(value: object, option: str, choices: type[E]) -> E:
    """An option offered as choices: exactly one of their values."""
    for member in choices:
        if value == member.value and isinstance(value, str):
            return member
    names = ", ".join(member.value for member in choices)
    raise InvalidInputError(option, f"takes one of: {names}")


def flag(value: object, option: str) -> bool:
    """A True/False option."""
    if type(value) is not bool:
        raise InvalidInputError(option, "takes True or False")
    return value
