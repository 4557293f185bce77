"""FSRS review cards as rows: read the queue, read and save cards.

What a rating does to a card is decided above the store (FSRS itself); this module only moves
cards in and out of `review_card`, with aware UTC datetimes (FSRS requires them; the column type
stores them naive). Both queue reads are range reads of `ix_review_card_due`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, bindparam, select

from bot.clock import zone_or
from bot.quiz.review import StoredCard as StoredCard  # the rules' value, kept here as rows
from bot.store import dialect
from bot.store.learning_tables import ReviewCard
from bot.store.tables import GuildConfig, table_of

_card = table_of(ReviewCard)
_config = table_of(GuildConfig)

CardKey = tuple[int, int, str]
"""(guild id, user id, task id): one member's card for one task."""


@dataclass(frozen=True, slots=True)
class DueSummary:
    """How many reviews /review would serve the member now (`practice.due_reviews`), and when
    their next card falls due."""

    due_now: int
    next_due: datetime | None
    """The earliest due time after now of a card /review can serve; None when none waits."""
    held: int = 0
    """Due cards held back: their task is open on a public post the member hasn't finished."""


def _card_of(row: Any) -> StoredCard:
    return StoredCard(
        guild_id=row.guild_id,
        user_id=row.user_id,
        task_id=row.task_id,
        state=row.state,
        step=row.step,
        stability=row.stability,
        difficulty=row.difficulty,
        due=row.due,
        last_review=row.last_review,
    )


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
    cards = (_card_of(row) for row in rows)
    return {(card.user_id, card.task_id): card for card in cards}


def save_cards(conn: Connection, cards: Sequence[StoredCard]) -> None:
    """Insert or replace these cards (one statement)."""
    if not cards:
        return
    rows = [
        {
            "guild_id": card.guild_id,
            "user_id": card.user_id,
            "task_id": card.task_id,
            "state": card.state,
            "step": card.step,
            "stability": card.stability,
            "difficulty": card.difficulty,
            "due": card.due,
            "last_review": card.last_review,
        }
        for card in cards
    ]
    conn.execute(_upsert(conn), rows)


def _upsert(conn: Connection) -> Any:
    """`save_cards`' statement: built once per engine (it runs in the answers' write unit)."""
    key = ("guild_id", "user_id", "task_id")
    return dialect.built_once(conn, "review_card upsert", lambda c: dialect.upsert(c, _card, key))


# Three plain INs (like the answers' progress read): they seek the primary key on every
# engine; the cross pairs they also match are dropped in Python.
_CARDS_WITH_ZONES = (
    select(_card, _config.c.timezone.label("zone"))
    .select_from(_card.outerjoin(_config, _config.c.guild_id == _card.c.guild_id))
    .where(
        _card.c.guild_id.in_(bindparam("guilds", expanding=True)),
        _card.c.user_id.in_(bindparam("users", expanding=True)),
        _card.c.task_id.in_(bindparam("tasks", expanding=True)),
    )
)


def load_cards_with_zones(
    conn: Connection, keys: Iterable[CardKey]
) -> tuple[dict[CardKey, StoredCard], dict[int, ZoneInfo]]:
    """The existing cards of these (guild, user, task) keys, across servers, in one read; and
    the configured zone of each server that has one of them (a card's "local day" needs it; a
    missing card needs none). A server without a (known) configured zone is left out."""
    wanted = set(keys)
    if not wanted:
        return {}, {}
    params = {
        "guilds": sorted({g for g, _, _ in wanted}),
        "users": sorted({u for _, u, _ in wanted}),
        "tasks": sorted({t for _, _, t in wanted}),
    }
    cards: dict[CardKey, StoredCard] = {}
    zones: dict[int, ZoneInfo] = {}
    for row in conn.execute(_CARDS_WITH_ZONES, params).all():
        key = (row.guild_id, row.user_id, row.task_id)
        if key not in wanted:
            continue
        cards[key] = _card_of(row)
        if row.guild_id not in zones and (zone := zone_or(row.zone, None)) is not None:
            zones[row.guild_id] = zone
    return cards, zones
