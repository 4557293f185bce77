"""What the service answers with: a post with its task, and the outcome of each member action.

Plain frozen values (no I/O), so the Discord layer can render them and tests can build them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.quiz.engine import Outcome, Progress, SolutionAccess
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
class AnswerReply:
    posted: PostedTask
    outcome: Outcome


@dataclass(frozen=True, slots=True)
class HintReply:
    posted: PostedTask
    progress: Progress
    """The member's progress after seeing the hint."""
    free: bool
    """It cost nothing: the member had finished, or the post had closed."""


@dataclass(frozen=True, slots=True)
class SolutionReply:
    posted: PostedTask
    access: SolutionAccess

    @property
    def shown(self) -> bool:
        return self.access.shown

    @property
    def forfeited_now(self) -> bool:
        return self.access.forfeited_now

    @property
    def progress(self) -> Progress:
        return self.access.progress


@dataclass(frozen=True, slots=True)
class MemberView:
    """A post and one member's progress on it, read together."""

    posted: PostedTask
    progress: Progress
