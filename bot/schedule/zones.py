"""Time-zone names as moderators type them: the one place that decides which zone a text
means (`resolve_zone`) and what autocomplete suggests (`zone_choices`). Pure: no discord."""

from __future__ import annotations

import functools
from zoneinfo import available_timezones

from bot.quiz.errors import ScheduleInputError

MAX_CHOICES = 25
"""Discord shows at most this many autocomplete suggestions."""
ZONE_SUGGESTIONS = (
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
)
"""Offered before anything is typed."""


NOT_PLACES = frozenset({"localtime", "Factory"})
"""Names tzdata ships that are no place's zone: "localtime" is whatever zone the bot's host is
set to (it would move with the host), "Factory" a placeholder that shows as "-00"."""


@functools.cache
def known_zones() -> dict[str, str]:
    """casefolded name → IANA name, for every place's zone tzdata ships.

    Reads the disk the first time: call it once off the event loop before serving requests.
    """
    return {
        name.casefold(): name for name in sorted(available_timezones()) if name not in NOT_PLACES
    }


def _key(text: str) -> str:
    return text.strip().casefold().replace(" ", "_")


def resolve_zone(text: str) -> str:
    """The IANA name for typed text ("europe/berlin" → "Europe/Berlin"), or a clear error."""
    name = known_zones().get(_key(text))
    if name is None:
        raise ScheduleInputError(
            f"{text!r} is not a time zone I know. Use an IANA name such as Europe/Berlin or "
            "America/New_York (pick one from the list as you type)."
        )
    return name


def zone_choices(current: str, preferred: str | None = None) -> list[str]:
    """Up to 25 zones for autocomplete: name or city prefix first, then any substring.
    With nothing typed, `preferred` (the server's zone) leads the common ones."""
    needle = _key(current)
    zones = known_zones()
    if not needle:
        first = [preferred] if preferred else []
        return list(dict.fromkeys([*first, *ZONE_SUGGESTIONS]))[:MAX_CHOICES]
    prefix = [
        name
        for key, name in zones.items()
        if key.startswith(needle) or key.rsplit("/", 1)[-1].startswith(needle)
    ]
    anywhere = [name for key, name in zones.items() if needle in key and name not in prefix]
    return (prefix + anywhere)[:MAX_CHOICES]
