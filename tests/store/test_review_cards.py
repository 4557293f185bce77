"""The review queue as the store reads it: most overdue first, due counts, aware datetimes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.store import Store, review_cards, sessions
from bot.store.answers import save_cards
from bot.store.review_cards import StoredCard, due_queue, load_cards
from tests.store.conftest import GUILD, NOW
from tests.store_calls import read


def card(task_id: str, due: datetime, user_id: int = 7, guild_id: int = GUILD) -> StoredCard:
    return StoredCard(guild_id, user_id, task_id, 2, None, 2.3, 5.0, due, due - timedelta(days=2))


def test_the_queue_is_most_overdue_first_and_only_what_is_due(store: Store) -> None:
    with store.write() as conn:
        save_cards(
            conn,
            [
                card("b", NOW - timedelta(hours=1)),
                card("a", NOW - timedelta(days=3)),
                card("c", NOW + timedelta(hours=5)),
                card("d", NOW - timedelta(days=1), user_id=8),  # another member's
            ],
        )
    assert read(store, review_cards.due_queue, GUILD, 7, NOW, 25) == ["a", "b"]
    queue = read(store, sessions.review_queue, GUILD, 7, NOW, 10)
    assert queue.due == ("a", "b") and queue.upcoming == (("c", NOW + timedelta(hours=5)),)
    assert read(store, sessions.review_queue, GUILD, 99, NOW, 10).upcoming == ()


def test_saving_a_card_again_replaces_it(store: Store) -> None:
    with store.write() as conn:
        save_cards(conn, [card("a", NOW - timedelta(days=1))])
        save_cards(conn, [card("a", NOW + timedelta(days=4))])
    with store.read() as conn:
        assert due_queue(conn, GUILD, 7, NOW, 10) == []
        (saved,) = load_cards(conn, GUILD, [7], ["a"]).values()
    assert saved.due == datetime(2024, 5, 12, 12, 0, tzinfo=UTC)
