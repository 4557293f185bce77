"""Rules that are not grading: who may post, how much a server may schedule, and when a
practice session has ended. The store enforces the limits; both take the numbers from here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from fractions import Fraction

from bot.clock import as_utc
from bot.quiz.errors import NotModeratorError, SessionExpiredError

MAX_SCHEDULES = 10
"""Daily quizzes one server may have (active or paused)."""
MAX_TASKS_PER_RUN = 5
"""Tasks one daily quiz may post per day."""
MAX_COOLDOWN_SECONDS = 3600
"""The longest a server may make /quiz wait between posts in one channel."""
MISCONCEPTION_SHARE = Fraction(1, 5)
"""A wrong option picked by this share of those who answered is a group's misconception."""


class PostPolicy(StrEnum):
    """Who may post a quiz with /quiz in a server."""

    ANYONE = "anyone"
    MODS = "mods"


def check_may_post(policy: PostPolicy | str, is_moderator: bool) -> None:
    """Raise NotModeratorError when the server lets only moderators post."""
    if PostPolicy(policy) is PostPolicy.MODS and not is_moderator:
        raise NotModeratorError()


SESSION_IDLE = timedelta(minutes=30)
"""A practice or review session with no click for this long has ended."""


def session_expired(last_active: datetime, now: datetime) -> bool:
    """A session idle for SESSION_IDLE or longer has ended."""
    return as_utc(now) - as_utc(last_active) >= SESSION_IDLE


def check_session_live(
    ended_at: datetime | None, last_active: datetime, now: datetime, kind: str
) -> None:
    """SessionExpiredError for a session that ended or idled out: a click on it records nothing."""
    if ended_at is not None:
        raise SessionExpiredError(idle=False, minutes=_minutes(SESSION_IDLE), kind=kind)
    if session_expired(last_active, now):
        raise SessionExpiredError(idle=True, minutes=_minutes(SESSION_IDLE), kind=kind)


def _minutes(span: timedelta) -> int:
    return int(span.total_seconds() // 60)
