"""Run a store unit function in its own transaction, as the service does: for tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection

from bot.quiz.errors import StoreAction
from bot.quiz.tasks import Task
from bot.store import (
    Answered,
    AnswerRequest,
    HintSeen,
    PostInfo,
    SolutionSeen,
    Store,
    answers,
    posts,
    review_cards,
)
from bot.store import guild_config as config_unit
from bot.store.review_cards import StoredCard

T = TypeVar("T")


def read(store: Store, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(conn, *args)` in a read unit of work."""
    with store.read() as conn:
        return fn(conn, *args, **kwargs)


def write(
    store: Store,
    fn: Callable[..., T],
    *args: Any,
    action: StoreAction = StoreAction.WRITE,
    **kwargs: Any,
) -> T:
    """`fn(conn, *args)` in a write unit of work; `action` is what a refusal loses."""
    with store.write(action) as conn:
        return fn(conn, *args, **kwargs)


def create_post(
    store: Store,
    guild_id: int,
    channel_id: int,
    task: Task,
    *,
    now: datetime,
    posted_by: int | None = None,
    closes_at: datetime | None = None,
    schedule_id: int | None = None,
) -> PostInfo:
    """A post of `task` in its own write unit; `posted_by` is the member whose /quiz made it."""
    return write(
        store,
        posts.create_post,
        guild_id,
        channel_id,
        task,
        posted_by,
        schedule_id=schedule_id,
        closes_at=closes_at,
        now=now,
        action=StoreAction.POST,
    )


def answer_batch(
    store: Store, requests: Sequence[AnswerRequest], now: datetime
) -> list[Answered | Exception]:
    """The answers in one group commit, each slot its result or its error."""
    return store.commit_group(requests, now, ()).answered


def answer(store: Store, request: AnswerRequest, now: datetime) -> Answered:
    """A group commit of one answer: raises what its slot holds."""
    (result,) = answer_batch(store, [request], now)
    if isinstance(result, Exception):
        raise result
    return result


def reveal_hint(
    store: Store, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
) -> HintSeen:
    """A member's /hint, in the write unit the service opens for it."""
    return write(
        store,
        answers.reveal_hint,
        post_id,
        guild_id,
        user_id,
        name,
        now,
        action=StoreAction.REVEAL,
    )


def reveal_solution(
    store: Store, post_id: int, guild_id: int, user_id: int, name: str, now: datetime
) -> SolutionSeen:
    """A member's confirmed /solution, in the write unit the service opens for it."""
    return write(
        store,
        answers.reveal_solution,
        post_id,
        guild_id,
        user_id,
        name,
        now,
        confirmed=True,
        action=StoreAction.REVEAL,
    )


def review_card(store: Store, guild_id: int, user_id: int, task_id: str) -> StoredCard | None:
    """The member's review card for the task, if they have one."""
    cards = read(store, review_cards.load_cards, guild_id, [user_id], [task_id])
    return cards.get((user_id, task_id))


def configure(store: Store, guild_id: int, rezone: Any = None, **changes: Any) -> Any:
    """Change a server's settings as the service does: checked before the write lock."""
    config_unit.check_changes(changes)

    def change(conn: Connection) -> Any:
        return config_unit.update_guild_config(conn, guild_id, changes, rezone=rezone)

    return write(store, change, action=StoreAction.CHANGE)
