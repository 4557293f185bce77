"""FSRS, in one place: what a rating does to a member's review card.

The rating itself is a rule (`bot.quiz.review`); this module turns it into the card's next
state with the `fsrs` package, and converts between the rules' `StoredCard` and `fsrs.Card`. A
pure function of the card, the rating and the time, below the store: the store's write unit
calls `review` when a member finishes a post and stores its result in the same transaction
(bot/store/answers.py), without the rating reaching back up into anything above the store.

The scheduler has no learning or relearning steps and no fuzzing: a study group meets daily,
so minute-level steps make no sense, and without steps a Good answer moves a card days ahead
(a new card: 2.3 days) while keeping the schedule reproducible in tests.

A task the member missed or forfeited (an AGAIN rating) is due at once: FSRS would put it a
day ahead, but the point of the queue is to bring back what was just got wrong, so `/review`
offers it right away. Its stability and difficulty stay as FSRS computed them, so the next
(same-day) Good moves it about a day ahead.

A card is identified by its row's key (server, member, task), never by fsrs's `card_id`, so
every `fsrs.Card` here gets the constant CARD_ID: left out, fsrs stamps the creation time and
sleeps a millisecond to keep ids apart, and this runs in the answers' write unit, once per
finished task, under the write lock.
"""

from __future__ import annotations

from datetime import datetime

from fsrs import Card, Rating, Scheduler, State

from bot.clock import as_utc
from bot.quiz.review import ReviewRating, StoredCard

SCHEDULER = Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)

CARD_ID = 0
"""fsrs.Card's id, unused (see above): given, so that building a Card never sleeps."""

_RATINGS = {
    ReviewRating.GOOD: Rating.Good,
    ReviewRating.HARD: Rating.Hard,
    ReviewRating.AGAIN: Rating.Again,
}


def review(
    card: StoredCard | None,
    rating: ReviewRating,
    now: datetime,
    *,
    guild_id: int,
    user_id: int,
    task_id: str,
) -> StoredCard:
    """The card after rating it `rating` at `now` (a new card when `card` is None)."""
    now = as_utc(now)
    current = Card(card_id=CARD_ID) if card is None else _fsrs_card(card)
    after, _ = SCHEDULER.review_card(current, _RATINGS[rating], now)
    due = now if rating is ReviewRating.AGAIN else as_utc(after.due)
    return StoredCard(
        guild_id=guild_id,
        user_id=user_id,
        task_id=task_id,
        state=int(after.state),
        step=after.step,
        stability=after.stability,
        difficulty=after.difficulty,
        due=due,
        last_review=None if after.last_review is None else as_utc(after.last_review),
    )


def _fsrs_card(card: StoredCard) -> Card:
    return Card(
        card_id=CARD_ID,
        state=State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )
