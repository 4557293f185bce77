"""Rules that are not grading: who may post, and how much a server may schedule.

Pure: the Discord layer supplies what it knows about the member, the store enforces the
limits atomically, and both take the numbers from here.
"""

from __future__ import annotations

from enum import StrEnum

from bot.quiz.errors import NotModeratorError

MAX_SCHEDULES = 10
"""Daily quizzes one server may have (active or paused)."""
MAX_TASKS_PER_RUN = 5
"""Tasks one daily quiz may post per day."""


class PostPolicy(StrEnum):
    """Who may post a quiz with /quiz in a server."""

    ANYONE = "anyone"
    MODS = "mods"


def check_may_post(policy: PostPolicy | str, is_moderator: bool) -> None:
    """Raise NotModeratorError when the server lets only moderators post."""
    if PostPolicy(policy) is PostPolicy.MODS and not is_moderator:
        raise NotModeratorError()
