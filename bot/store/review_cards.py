"""Review cards read: the member's queue (range reads of `ix_review_card_due`) and cards.
An answer's finish saves them (`answers.save_cards`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, bindparam, select

from bot.quiz.review import StoredCard as StoredCard  # the rules' value, kept here as rows
from bot.store.answers import card_of
from bot.store.learning_tables import ReviewCard
from bot.store.tables import GuildConfig, table_of

_card = table_of(ReviewCard)
_config = table_of(GuildConfig)


@dataclass(frozen=True, slots=True)
class DueSummary:
    """How many reviews /review would serve the member now (`practice.due_reviews`), and when
    their next card falls due."""

    due_now: int
    next_due: datetime | None
    """The earliest due time after now of a card /review can serve; None when none waits."""
    held: int = 0
    """Due cards held back: their task is open on a public post the member hasn't finished."""


_OF_MEMBER = (_card.c.guild_id == bindparam("g"), _card.c.user_id == bindparam("u"))
# Built once (building a statement costs more than running it; these run on every /review
# and every Next of a review session). Both read `ix_review_card_due`'s range for the member.
_DUE_QUEUE = (
    select(_card.c.task_id)
    .where(*_OF_MEMBER, _card.c.due <= bindparam("at"))
    .order_by(_card.c.due, _card.c.task_id)
    .limit(bindparam("limit"))
)
_UPCOMING = (
    select(_card.c.task_id, _card.c.due)
    .where(*_OF_MEMBER, _card.c.due > bindparam("at"))
    .order_by(_card.c.due, _card.c.task_id)
    .limit(bindparam("limit"))
)


def due_queue(
    conn: Connection, guild_id: int, user_id: int, now: datetime, limit: int
) -> list[str]:
    """The task ids of the member's due cards, the most overdue first (ties by task id, so
    the order is stable). Ids only: every Next of a review session reads this, and what it
    chooses needs no more (the card itself is read when an answer rates it)."""
    params = {"g": guild_id, "u": user_id, "at": now, "limit": limit}
    return [task_id for (task_id,) in conn.execute(_DUE_QUEUE, params).all()]


def upcoming(
    conn: Connection, guild_id: int, user_id: int, now: datetime, limit: int
) -> list[tuple[str, datetime]]:
    """(task id, due) of the member's cards not due yet, the soonest first, up to `limit`."""
    params = {"g": guild_id, "u": user_id, "at": now, "limit": limit}
    return [(task_id, due) for task_id, due in conn.execute(_UPCOMING, params).all()]


def load_cards(
    conn: Connection, guild_id: int, user_ids: Iterable[int], task_ids: Iterable[str]
) -> dict[tuple[int, str], StoredCard]:
    """The existing cards of these members for these tasks, by (user id, task id)."""
    users, tasks = sorted(set(user_ids)), sorted(set(task_ids))
    if not users or not tasks:
        return {}
    rows = conn.execute(
        select(_card).where(
            _card.c.guild_id == guild_id,
            _card.c.user_id.in_(users),
            _card.c.task_id.in_(tasks),
        )
    )
    cards = (card_of(row) for row in rows)
    return {(card.user_id, card.task_id): card for card in cards}
