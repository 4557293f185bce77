"""What the service answers with about a post: the post with its task.

Plain frozen values (no I/O), so the Discord layer can render them and tests can build them.
A member action's outcome is the store's own value (`Answered`, `HintSeen`, `SolutionSeen`),
answered as is: one set of result types.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.quiz.engine import Progress
from bot.quiz.tasks import Task
from bot.store import PostInfo


@dataclass(frozen=True, slots=True)
class PostedTask:
    post: PostInfo
    task: Task
    closed: bool = False
    """Whether the post had closed when it was read (`PostInfo.is_closed`): the Discord layer
    shows this and never decides it again."""


@dataclass(frozen=True, slots=True)
class MemberView:
    """A post and one member's progress on it, read together."""

    posted: PostedTask
    progress: Progress
