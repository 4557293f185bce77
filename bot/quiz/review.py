"""Spaced review: what a finished task rates (`rating_for`, the README's table), whether a finish
rates the card today (`rates_today`), and what a rating does to the card (`review`, FSRS). Pure
functions; the answer's write unit applies them and stores the card in the same transaction.

FSRS without learning steps or fuzzing: a study group meets daily, and tests stay reproducible.
An AGAIN card is due at once (FSRS would say tomorrow): the queue brings back what was just got
wrong. Every `fsrs.Card` gets the constant CARD_ID (the row's key identifies the card): left
out, fsrs stamps the time and sleeps a millisecond, under the write lock.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from zoneinfo import ZoneInfo

from fsrs import Card, Rating, Scheduler, State

from bot.clock import local_date
from bot.quiz.engine import Progress


class ReviewRating(Enum):
    """The FSRS ratings quizbot gives (Easy is never given: a quiz cannot tell it from Good)."""

    GOOD = "good"
    HARD = "hard"
    AGAIN = "again"


@dataclass(frozen=True, slots=True)
class StoredCard:
    """One member's card for one task: fsrs.Card's fields, datetimes aware UTC; a plain value
    that crosses threads (`bot.store.review_cards` keeps it)."""

    guild_id: int
    user_id: int
    task_id: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


@dataclass(frozen=True, slots=True)
class CardUpdate:
    """What finishing a task did to the member's review card for it, as the same write unit
    stored it: what the member is told after a practice or review answer."""

    rating: ReviewRating | None
    """The rating it was given; None: the card was rated earlier this local day and is not
    due (`rates_today`), so this finish left it as it was."""
    due: datetime
    """When the card falls due now (aware UTC)."""


def rating_for(solved: bool, wrong_tries: int, hint_seen: bool, forfeited: bool) -> ReviewRating:
    """The rating of a finished task:

    | outcome                                                     | rating |
    |-------------------------------------------------------------|--------|
    | solved on the first try without the hint                    | Good   |
    | solved after the hint (no miss)                             | Hard   |
    | solved after one or more misses, failed, or solution first  | Again  |
    """
    if forfeited or not solved or wrong_tries > 0:
        return ReviewRating.AGAIN
    return ReviewRating.HARD if hint_seen else ReviewRating.GOOD


def rating_of(progress: Progress) -> ReviewRating:
    """`rating_for` a member's finished progress on a post, with their misses and hint on the
    task's other public posts (`Progress.task_wrong_tries`)."""
    return rating_for(
        progress.solved, progress.task_wrong_tries, progress.task_hint_seen, progress.forfeited
    )


def rates_today(
    last_review: datetime | None, due: datetime | None, now: datetime, zone: ZoneInfo
) -> bool:
    """Whether finishing a task now rates its card: when the card has never been reviewed
    (or does not exist), when its last review was on an earlier local day in `zone`, or when
    it is due (the queue asked for it: a missed task is due at once, and a same-day review of
    it must reschedule it)."""
    if last_review is None:
        return True
    if due is not None and due <= now:
        return True
    return local_date(last_review, zone) < local_date(now, zone)


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
    now = now.astimezone(UTC)  # fsrs takes only datetime.UTC itself, not ZoneInfo("UTC")
    current = Card(card_id=CARD_ID) if card is None else _fsrs_card(card)
    after, _ = SCHEDULER.review_card(current, _RATINGS[rating], now)
    due = now if rating is ReviewRating.AGAIN else after.due
    return StoredCard(
        guild_id=guild_id,
        user_id=user_id,
        task_id=task_id,
        state=int(after.state),
        step=after.step,
        stability=after.stability,
        difficulty=after.difficulty,
        due=due,
        last_review=after.last_review,
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
