"""Spaced review, the pure part: what a finished task rates, and whether it rates today.

FSRS itself (what a rating does to a card, `StoredCard`) is `bot/review_scheduler.py`, a pure
function below the store; the store's write unit applies both when a member finishes a post
and stores the result in the same transaction (`bot/store/answers.py`). Decided here:

- the rating of an outcome: `rating_for` (the table in the README);
- whether a finish rates the card: `rates_today` (at most once per task per local day, unless
  the card is due).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from zoneinfo import ZoneInfo

from bot.clock import as_utc, local_date
from bot.quiz.engine import Progress


class ReviewRating(Enum):
    """The FSRS ratings quizbot gives (Easy is never given: a quiz cannot tell it from Good)."""

    GOOD = "good"
    HARD = "hard"
    AGAIN = "again"


@dataclass(frozen=True, slots=True)
class StoredCard:
    """One member's card for one task: fsrs.Card's fields, datetimes aware UTC. A plain
    value, so FSRS (`bot.review_scheduler`) works on it below the store that keeps it
    (`bot.store.review_cards`)."""

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
    if due is not None and as_utc(due) <= as_utc(now):
        return True
    return local_date(last_review, zone) < local_date(now, zone)
