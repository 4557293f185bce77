"""What the /stats picture shows, grouped from the store's facts: answers per local day and
progress per topic. Pure: the service reads the facts and says which topic each post's task has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from bot.i18n import N_
from bot.store import PostInfo, TriedPost

ACTIVITY_WEEKS = 12
"""How far back /stats shows activity: this calendar week and the 11 before it."""
# TRANSLATORS: the /stats picture's topic for answers to tasks that are no longer loaded.
OTHER_TOPIC = N_("other")
"""Where progress counts a post whose task is not known (from before task versions, with its
task no longer loaded); translated where it is used (`QuizService.stats_progress`)."""


@dataclass(frozen=True, slots=True)
class TopicProgress:
    topic: str
    tried: int
    first_try: int
    """Of `tried`, solved on the first try."""
    due: int = 0
    """Reviews due in this topic (`QuizService.reviews_due_by_topic`, passed to
    `QuizService.stats_progress` by /stats)."""


@dataclass(frozen=True, slots=True)
class MemberProgress:
    """What the /stats picture shows: answers per local day and progress per topic."""

    first_day: date
    """The Monday `ACTIVITY_WEEKS` weeks back, counted by `attempts_per_day[0]`."""
    today: date
    attempts_per_day: tuple[int, ...]
    """Answers on each local day from `first_day` to `today`, both included."""
    topics: tuple[TopicProgress, ...]
    """Most tried first, then by name."""

    @property
    def active_days(self) -> int:
        return sum(1 for n in self.attempts_per_day if n)


def topic_progress(
    tried: Iterable[TriedPost], topic_of: Callable[[PostInfo], str], due: Mapping[str, int]
) -> tuple[TopicProgress, ...]:
    """Posts tried, grouped by their task's topic; `due` adds topics with reviews only."""
    counts: dict[str, list[int]] = {}
    for item in tried:
        tally = counts.setdefault(topic_of(item.post), [0, 0])
        tally[0] += 1
        tally[1] += item.first_try
    for topic, n in due.items():
        if n:
            counts.setdefault(topic, [0, 0])
    topics = [
        TopicProgress(topic, tried_n, first, due.get(topic, 0))
        for topic, (tried_n, first) in counts.items()
    ]
    return tuple(sorted(topics, key=lambda p: (-p.tried, p.topic.casefold())))
