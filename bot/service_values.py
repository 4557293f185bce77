"""What the service answers with: a post with its task, and the outcome of each member action.

Plain frozen values (no I/O), so the Discord layer can render them and tests can build them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.quiz.engine import Outcome, Progress, SolutionAccess
from bot.quiz.review import CardUpdate
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
    card: CardUpdate | None = None
    """What the answer did to the member's review card, as the same transaction stored it
    (when it finished the post): a practice or review reply says so, and when it is due."""


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
    card: CardUpdate | None = None
    """What forfeiting did to the member's review card, as the same transaction stored it."""

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
