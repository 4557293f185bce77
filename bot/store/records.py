"""Values that leave the store: frozen, ORM-free, so they can cross threads."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime

from bot.clock import as_utc
from bot.quiz.engine import Outcome, Progress, SolutionAccess, check_owner, post_closed
from bot.quiz.errors import SessionExpiredError, UnknownTaskError
from bot.quiz.review import CardUpdate
from bot.quiz.rules import check_session_live
from bot.quiz.tasks import Task


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A member's private practice or review session (`practice_session`); aware UTC times."""

    id: int
    guild_id: int
    user_id: int
    kind: str
    """'practice' or 'review'."""
    topic: str | None
    difficulty: str | None
    started_at: datetime
    last_active_at: datetime
    ended_at: datetime | None = None

    def check_member(self, user_id: int, now: datetime) -> None:
        """The one check that a member may click in this session: its owner
        (`engine.check_owner`, else PrivatePostError), while it lasts
        (`rules.check_session_live`, else SessionExpiredError)."""
        check_owner(self.user_id, user_id)
        check_session_live(self.ended_at, self.last_active_at, as_utc(now), self.kind)


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What a session did: its tasks served and finished, solved, solved on the first try."""

    served: int
    finished: int
    solved: int
    first_try: int


@dataclass(frozen=True, slots=True)
class PostInfo:
    """A posted task. Timestamps are aware UTC datetimes.

    `task` is the task exactly as it was posted (its stored version), whatever the banks say
    now; None only for a post from before versions (0.1.0) whose task was not loaded when the
    service last pinned (`pin_unversioned`): nothing can grade or show it (`graded_task`)."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    task_id: str
    posted_by: int | None
    posted_at: datetime
    schedule_id: int | None = None
    closes_at: datetime | None = None
    closed_at: datetime | None = None
    task_version_id: int | None = None
    task: Task | None = field(default=None, repr=False, compare=False)
    """Decoded from the version `task_version_id` names (so equal ids mean equal tasks)."""
    session_id: int | None = None
    """The private practice or review session the post belongs to; None for a post in a
    channel."""
    session: SessionInfo | None = field(default=None, compare=False)
    """That session, read with the post (None if its row is gone)."""

    def graded_task(self) -> Task:
        """The task this post grades with: its stored version. A post without one (its task
        was gone from the banks when the service pinned) is refused with UnknownTaskError,
        as 0.1.0 refused it: there is no task left to grade it on."""
        if self.task is None:
            raise UnknownTaskError(f"task {self.task_id!r} is no longer in the loaded banks")
        return self.task

    @property
    def private(self) -> bool:
        """A practice or review task: one member's, never shown in the channel, never scored
        on the leaderboard."""
        return self.session_id is not None

    def is_closed(self, now: datetime) -> bool:
        """Closed explicitly, or past its closing time (the rule: `engine.post_closed`)."""
        return post_closed(self.closed_at, self.closes_at, as_utc(now))

    def check_member(self, user_id: int, now: datetime) -> None:
        """A private post is its owner's alone, and only while its session lasts
        (`SessionInfo.check_member`); a public post takes anyone."""
        if self.session is not None:
            self.session.check_member(user_id, now)
        elif self.session_id is not None:  # its session's row is gone: nobody's any more
            raise SessionExpiredError(idle=False, minutes=0)


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    post_id: int
    guild_id: int
    user_id: int
    member_name: str
    picks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Answered:
    """A graded answer and the post it was given on, as the write unit read it; the service
    answers with it as is (`QuizService.posted_of` adds the post's task for the reply)."""

    post: PostInfo
    outcome: Outcome
    card: CardUpdate | None = None
    """What the answer did to the member's review card, when it finished the post."""


@dataclass(frozen=True, slots=True)
class HintSeen:
    """A hint seen, as the write unit recorded it (the service answers with it as is)."""

    post: PostInfo
    progress: Progress
    """The member's progress after seeing the hint."""
    free: bool
    """It cost nothing: the member had finished, or the post had closed."""


@dataclass(frozen=True, slots=True)
class SolutionSeen:
    """The solution asked for: shown, or first the forfeit to confirm (`access.shown`); the
    service answers with it as is."""

    post: PostInfo
    access: SolutionAccess
    card: CardUpdate | None = None
    """What forfeiting the post did to the member's review card (None unless forfeited now)."""


@dataclass(frozen=True, slots=True)
class PostCounts:
    """Distinct members who answered, solved, and solved on the first try."""

    answered: int
    solved: int
    first_try: int


@dataclass(frozen=True, slots=True)
class Rank:
    rank: int
    user_id: int
    name: str
    points: int
    solved: int


@dataclass(frozen=True, slots=True)
class Leaderboard:
    rows: list[Rank]
    me: Rank | None
    """The asking member's rank, even outside `rows`; None without points in the period."""
    zone: str
    """The zone whose local days and weeks it counted (the server's): its footer names it."""


@dataclass(frozen=True, slots=True)
class MemberStats:
    tried: int
    """Distinct posts answered at least once or finished (a forfeit counts)."""
    solved: int
    first_try: int
    first_try_rate: float
    """Posts solved on the first try / posts tried; 0.0 when none tried."""
    points: int
    """On public posts: the leaderboard's points."""
    practice_points: int
    """On private posts (/practice, /review): the member's own, never on the leaderboard."""
    streak_days: int
    """Consecutive local days, ending today or yesterday, with at least one answer."""
    last_active: datetime | None
    """Latest answer or finish, aware UTC."""


@dataclass(frozen=True, slots=True)
class TriedPost:
    """A post a member tried (as `MemberStats.tried` counts them), with its task version."""

    post: PostInfo
    first_try: bool
    """Solved on the first try; False while the member has not finished it."""


@dataclass(frozen=True, slots=True)
class MemberActivity:
    """A member's answers per local day over a span ending today, and every post they tried."""

    first_day: date
    """The local date counted by `attempts_per_day[0]`."""
    attempts_per_day: tuple[int, ...]
    """Answers given on each local day from `first_day` to today, both included."""
    tried: tuple[TriedPost, ...]


@dataclass(frozen=True, slots=True)
class GuildConfigInfo:
    guild_id: int
    timezone: str | None = None
    mod_role_id: int | None = None
    post_policy: str = "anyone"
    cooldown_seconds: int = 30
