"""Rules that are not grading: who may post, and how much a server may schedule.

Pure: the Discord layer supplies what it knows about the member, the store enforces the
limits atomically, and both take the numbers from here.
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction

from bot.quiz.errors import NotModeratorError

MAX_SCHEDULES = 10
"""Daily quizzes one server may have (active or paused)."""
MAX_TASKS_PER_RUN = 5
"""Tasks one daily quiz may post per day."""
MISCONCEPTION_SHARE = Fraction(1, 5)
"""A wrong option is a misconception of the group when at least this share of those who
answered picked it: the close summary of a daily post and /insights both apply it
(bot/schedule/summary.py `misconceptions_among`)."""


class PostPolicy(StrEnum):
    """Who may post a quiz with /quiz in a server."""

    ANYONE = "anyone"
    MODS = "mods"


def check_may_post(policy: PostPolicy | str, is_moderator: bool) -> None:
    """Raise NotModeratorError when the server lets only moderators post."""
    if PostPolicy(policy) is PostPolicy.MODS and not is_moderator:
        raise NotModeratorError()
