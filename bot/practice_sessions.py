"""Private practice (/practice) and spaced review (/review): what a session serves next, and
when it is over. Its tasks are private posts, answered on the usual path (`QuizService.answer`).
Neither serves a task the member can still score on in a public post (`withheld`).

Practice adapts (issue 31): among the unsolved tasks it may serve, it prefers the one whose
predicted first-try chance for this member is nearest 0.75 (`ratings.adaptive_pick`, from the
stored Elo ratings; a member not rated yet counts as an average newcomer). Without rated tasks
to choose from, it keeps its order: unsolved first, at random.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Concatenate, ParamSpec, Protocol, TypeVar

from bot.clock import Clock
from bot.quiz import practice, ratings
from bot.quiz.errors import NoMatchingTaskError, StoreAction, TasksWithheldError
from bot.quiz.tasks import Catalog, Difficulty, Task
from bot.store import PostInfo, SessionSummary, Unit, answers, sessions
from bot.store.answers import OpenPost
from bot.store.ratings import PracticeRatings, practice_ratings
from bot.store.review_cards import DueSummary
from bot.store.sessions import SessionState

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from bot.service import PostedTask

T = TypeVar("T")
P = ParamSpec("P")


class SessionsHost(Protocol):
    """What the sessions need of the service (QuizService is one). Named here, so that this
    module sits below the service that builds it, not above it."""

    clock: Clock
    rng: random.Random

    def posted_of(self, post: PostInfo) -> PostedTask: ...

    def catalog_for(self, guild_id: int | None) -> Catalog: ...

    async def run_read(
        self, fn: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T: ...

    async def run_grouped(self, unit: Unit[T]) -> T: ...


PRACTICE = "practice"
REVIEW = "review"
WITHHELD_LINKS = 3
"""Posts linked when every practice task is withheld: where to go first."""
REVIEW_QUEUE = 10_000
"""Due cards read per review step: all of a member's (more than any bank holds tasks), so the
count a member is told is the count of what /review will serve."""


@dataclass(frozen=True, slots=True)
class SessionStep:
    """What a session shows next: a task, or (`posted` None) its end."""

    kind: str
    """PRACTICE or REVIEW."""
    session_id: int | None
    """None only for a /review with nothing due (no session was started)."""
    posted: PostedTask | None
    number: int = 0
    """The task's number in the session, from 1."""
    summary: SessionSummary | None = None
    """Set when the session has just ended."""
    due: DueSummary | None = None
    """Review: the member's due reviews (at the start, counting this task; at the end, what
    is left)."""

    @property
    def ended(self) -> bool:
        return self.posted is None


def _due_summary(
    due: tuple[str, ...],
    upcoming: tuple[tuple[str, datetime], ...],
    withheld: frozenset[str],
    catalog: Catalog,
    served: tuple[str, ...] = (),
) -> DueSummary:
    """What /review tells the member: the reviews it can serve (not yet `served`), those
    held back, and when the next falls due."""
    available = catalog.tasks
    return DueSummary(
        len(practice.due_reviews(due, available, withheld, served)),
        practice.next_due(upcoming, available),
        practice.held_reviews(due, available, withheld),
    )


def _due_left(state: SessionState, catalog: Catalog) -> list[str]:
    """A review session's due tasks it can serve and has not served yet, the most overdue
    first."""
    return practice.due_reviews(state.due, catalog.tasks, state.withheld, state.served)


class PracticeSessions:
    def __init__(self, service: SessionsHost) -> None:
        self.service = service

    @staticmethod
    def _candidates(catalog: Catalog, topic: str | None, difficulty: str | None) -> list[str]:
        level = next((d for d in Difficulty if d.value == difficulty), None)
        try:
            tasks = catalog.matching(topic, level)
        except NoMatchingTaskError:
            return []
        return [task.id for task in tasks]

    async def start_practice(
        self,
        guild_id: int,
        channel_id: int,
        user_id: int,
        topic: str | None = None,
        difficulty: Difficulty | None = None,
    ) -> SessionStep:
        """A new practice session (ending the member's open one) with its first task.
        NoMatchingTaskError when the server has no such task."""
        service = self.service
        catalog = service.catalog_for(guild_id)
        candidates = [task.id for task in catalog.matching(topic, difficulty)]
        solved, open_posts, rated = await service.run_read(
            _choices, guild_id, user_id, service.clock()
        )
        withheld = {post.task_id for post in open_posts}
        task_id = next_practice_task(candidates, solved, (), service.rng, withheld, rated)
        if task_id is None:  # `matching` never returns an empty list: all are withheld
            matching = set(candidates)
            blocking = [p for p in open_posts if p.task_id in matching]
            links = tuple(
                (guild_id, p.channel_id, p.message_id) for p in blocking if p.message_id is not None
            )
            raise TasksWithheldError(links[:WITHHELD_LINKS], len(blocking))
        task, now = catalog.get_or_raise(task_id), service.clock()
        level = None if difficulty is None else difficulty.value
        post = await service.run_grouped(
            Unit(
                lambda conn: _open(
                    conn, guild_id, user_id, PRACTICE, channel_id, task, now, topic, level
                ),
                StoreAction.POST,
            )
        )
        return SessionStep(PRACTICE, post.session_id, self.service.posted_of(post), number=1)

    async def start_review(self, guild_id: int, channel_id: int, user_id: int) -> SessionStep:
        """A new review session with the most overdue task; with nothing due, no session,
        and `due` says when the next review falls due."""
        service = self.service
        now = service.clock()
        catalog = service.catalog_for(guild_id)
        cards = await service.run_read(sessions.review_queue, guild_id, user_id, now, REVIEW_QUEUE)
        due = practice.due_reviews(cards.due, catalog.tasks, cards.withheld)
        summary = _due_summary(cards.due, cards.upcoming, cards.withheld, catalog)
        if not due:
            return SessionStep(REVIEW, None, None, due=summary)
        task = catalog.get_or_raise(due[0])
        post = await service.run_grouped(
            Unit(
                lambda conn: _open(conn, guild_id, user_id, REVIEW, channel_id, task, now),
                StoreAction.POST,
            )
        )
        return SessionStep(
            REVIEW,
            post.session_id,
            self.service.posted_of(post),
            number=1,
            due=summary,
        )

    async def next(
        self,
        session_id: int,
        guild_id: int,
        channel_id: int,
        user_id: int,
        *,
        shown: int | None = None,
    ) -> SessionStep:
        """The session's next task (the Next button of the message showing post `shown`), or
        its end and summary. Raises PrivatePostError (another member's session),
        SessionExpiredError (it ended) or SessionMovedOnError (`shown` is not its current task).
        Read, chosen and written in one unit (`sessions.advance`) of the next group commit."""
        service = self.service
        catalog = service.catalog_for(guild_id)

        def choose(conn: Connection, state: SessionState) -> Task | None:
            # Runs in the writer thread, inside the unit: the pick sees the state it commits with.
            if state.session.kind == REVIEW:
                due_left = _due_left(state, catalog)
                return catalog.get_or_raise(due_left[0]) if due_left else None
            session = state.session
            candidates = self._candidates(catalog, session.topic, session.difficulty)
            rated = practice_ratings(conn, guild_id, user_id)
            task_id = next_practice_task(
                candidates, state.solved, state.served, service.rng, state.withheld, rated
            )
            return None if task_id is None else catalog.get_or_raise(task_id)

        now = service.clock()
        done = await service.run_grouped(
            Unit(
                lambda conn: sessions.advance(
                    conn,
                    session_id,
                    guild_id,
                    user_id,
                    channel_id,
                    now,
                    partial(choose, conn),
                    queue=REVIEW_QUEUE,
                    shown=shown,
                ),
                StoreAction.POST,
            )
        )
        state = done.state
        kind = state.session.kind
        review = kind == REVIEW
        if done.post is None:
            # Ending the session changes no card: the due reviews are as the unit read them.
            due = (
                _due_summary(state.due, state.upcoming, state.withheld, catalog) if review else None
            )
            return SessionStep(kind, session_id, None, summary=done.summary, due=due)
        # The cards are as the state read them: adding a post changes none.
        step_due = (
            _due_summary(state.due, state.upcoming, state.withheld, catalog, state.served)
            if review
            else None
        )
        return SessionStep(
            kind,
            session_id,
            self.service.posted_of(done.post),
            number=len(state.served) + 1,
            due=step_due,
        )

    async def current_task(self, guild_id: int, user_id: int) -> PostedTask | None:
        """The task the member's live session in this server shows now: what /hint and
        /solution without a task mean while they practise or review."""
        service = self.service
        now = service.clock()
        post = await service.run_read(sessions.live_session_post, guild_id, user_id, now)
        return None if post is None else self.service.posted_of(post)

    async def review_status(
        self, guild_id: int, user_id: int, now: datetime | None = None
    ) -> DueSummary:
        """How many reviews /review would serve the member now, and when the next card falls
        due: what /review says and what a reminder counts."""
        service = self.service
        now = service.clock() if now is None else now
        cards = await service.run_read(sessions.review_queue, guild_id, user_id, now, REVIEW_QUEUE)
        catalog = service.catalog_for(guild_id)
        return _due_summary(cards.due, cards.upcoming, cards.withheld, catalog)


def next_practice_task(
    candidates: list[str],
    solved: Collection[str],
    served: Collection[str],
    rng: random.Random,
    withheld: Collection[str],
    rated: PracticeRatings,
) -> str | None:
    """The adaptive pick among the unsolved tasks practice may serve (never served nor
    withheld); without one, `practice.next_task`'s order."""
    fresh = set(candidates) - set(served) - set(withheld) - set(solved)
    skill = rated.member or ratings.Rating()
    adaptive = ratings.adaptive_pick(skill, rated.tasks, sorted(fresh))
    if adaptive is not None:
        return adaptive
    return practice.next_task(candidates, solved, served, rng, withheld=withheld)


def _choices(
    conn: Connection, guild_id: int, user_id: int, now: datetime
) -> tuple[set[str], list[OpenPost], PracticeRatings]:
    """The tasks the member solved in this server, the open public posts whose tasks
    practice withholds, and the ratings it chooses by: one read."""
    return (
        sessions.solved_tasks(conn, guild_id, user_id),
        answers.unfinished_public_posts(conn, guild_id, user_id, now),
        practice_ratings(conn, guild_id, user_id),
    )


def _open(
    conn: Connection,
    guild_id: int,
    user_id: int,
    kind: str,
    channel_id: int,
    task: Task,
    now: datetime,
    topic: str | None = None,
    difficulty: str | None = None,
) -> PostInfo:
    """Start the member's session of `kind`, ending their open one, with `task` as its first
    private post."""
    session = sessions.start_session(
        conn, guild_id, user_id, kind, topic=topic, difficulty=difficulty, now=now
    )
    return sessions.add_post(conn, session, channel_id, task, now)
