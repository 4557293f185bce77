"""What members and moderators type, parsed once: each function decides what one kind of
typed value may be and refuses the rest with the domain error the Discord layer turns into a
private reply. A raw payload skips Discord's own checks, so nothing here trusts its input's type.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from bot.quiz.engine import MAX_ID, id_number
from bot.quiz.errors import N_, InvalidInputError, N_plural, ScheduleInputError

E = TypeVar("E", bound=StrEnum)

TEXT_LIMIT = 100
"""The most characters a free-text option takes: also its declared max_length."""

NO_SUCH_SCHEDULE = N_(
    "This server has no daily quiz with that `id`: `/schedule list` shows their numbers."
)


def post_number(text: str) -> int | None:
    """The post id in typed text ("12" or "#12"), else None: text to search the task ids for."""
    return id_number(text.strip().removeprefix("#"))


def search_text(text: str) -> str:
    """Typed text to search task ids for, without control characters (LIKE ends at a NUL)."""
    return "".join(c for c in text if c.isprintable()).strip()


def post_ref(text: str | None) -> int | str | None:
    """/hint's and /solution's `task`: None (the channel's latest post), an id, or search text."""
    text = search_text(text or "")
    if not text:
        return None
    number = post_number(text)
    return text if number is None else number


def schedule_id(value: object) -> int:
    """The `id` option of /schedule remove, pause and resume."""
    if type(value) is not int or not 1 <= value <= MAX_ID:
        raise ScheduleInputError(NO_SUCH_SCHEDULE)
    return value


def text(value: object, option: str, limit: int = TEXT_LIMIT) -> str:
    """A free-text option of at most `limit` characters."""
    # A lone surrogate (from a raw payload's JSON) is no text: the database's encoder would raise.
    if not isinstance(value, str) or (not value.isascii() and _surrogate(value)):
        raise InvalidInputError(option, N_("The `{option}` option takes text."))
    if len(value) > limit:
        raise InvalidInputError(
            option,
            N_plural(
                "The `{option}` option takes at most {n} character.",
                "The `{option}` option takes at most {n} characters.",
            ),
            n=limit,
        )
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
        raise InvalidInputError(
            option,
            N_("The `{option}` option takes a whole number from {low} to {high}."),
            low=low,
            high=high,
        )
    return value


def choice(value: object, option: str, choices: type[E]) -> E:
    """An option offered as choices: exactly one of their values."""
    for member in choices:
        if value == member.value and isinstance(value, str):
            return member
    names = ", ".join(member.value for member in choices)
    raise InvalidInputError(option, N_("The `{option}` option takes one of: {names}."), names=names)


def flag(value: object, option: str) -> bool:
    """A True/False option."""
    if type(value) is not bool:
        raise InvalidInputError(option, N_("The `{option}` option takes True or False."))
    return value
