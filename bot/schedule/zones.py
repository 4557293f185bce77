"""Time-zone names as moderators and hosts type them: the one place that decides which zone a
text means (`resolve_zone`: /schedule, /config, /reminders and QUIZBOT_TIMEZONE all use it) and
what autocomplete suggests (`zone_choices`). Pure: no discord."""

from __future__ import annotations

import functools
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources
from zoneinfo import available_timezones

from bot.i18n import N_
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
MAX_LISTED = 6
"""An ambiguous city's reply names at most this many zones."""


NOT_PLACES: dict[str, str] = {
    # TRANSLATORS: why a tzdata name is refused as a time zone; it follows "... is not a time
    # zone I know:", so it starts in lower case.
    "localtime": N_("it is whatever zone the host is set to, and moves with it"),
    "Factory": N_("it is tzdata's placeholder, which shows as -00"),
    "posixrules": N_("it is a copy of America/New_York kept for old POSIX TZ strings"),
}
"""Names tzdata ships that are no place's zone, and why each is refused."""


class ZoneError(ScheduleInputError):
    """Typed text that names no zone, or more than one: a whole message with the advice (one
    sentence for the catalogs each). `problem` is its English without the advice, for places
    that give their own (a setting's fix)."""

    MESSAGES = frozenset({"why"})

    def __init__(self, template: str, problem: str, /, **params: object) -> None:
        super().__init__(template, **params)
        self.problem = problem


class UnknownZoneError(ZoneError):
    def __init__(self, text: str) -> None:
        super().__init__(
            N_(
                "{zone!r} is not a time zone I know. Use an IANA name such as Europe/Berlin or "
                "America/New_York, or a city such as Berlin (pick one from the list as you type)."
            ),
            f"{text!r} is not a time zone I know",
            zone=text,
        )


class NotAPlaceError(ZoneError):
    """One of NOT_PLACES: tzdata has the file, but it is no zone to keep a schedule in."""

    def __init__(self, text: str, why: str) -> None:
        super().__init__(
            N_(
                "{zone!r} is not a time zone I know: {why}. Use an IANA name such as "
                "Europe/Berlin or America/New_York, or a city such as Berlin (pick one from the "
                "list as you type)."
            ),
            f"{text!r} is not a time zone I know: {why}",
            zone=text,
            why=why,
        )


class AmbiguousZoneError(ZoneError):
    def __init__(self, text: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:MAX_LISTED]) + (", …" if len(candidates) > MAX_LISTED else "")
        super().__init__(
            N_(
                "{zone!r} could be any of {zones}: give the full name. Use an IANA name such as "
                "Europe/Berlin or America/New_York, or a city such as Berlin (pick one from the "
                "list as you type)."
            ),
            f"{text!r} could be any of {shown}: give the full name",
            zone=text,
            zones=shown,
        )
        self.candidates = candidates


@dataclass(frozen=True)
class _Tables:
    names: dict[str, str]
    """casefolded name → IANA name."""
    tails: dict[str, tuple[str, ...]]
    """Every trailing part of a name ("berlin", "argentina/buenos_aires") → the zones whose
    name ends with it: a city alone is what a moderator types first."""
    links: dict[str, str]
    """tzdata's backward names → the zone each stands for."""


@functools.cache
def _tables() -> _Tables:
    names = {
        name.casefold(): name for name in sorted(available_timezones()) if name not in NOT_PLACES
    }
    tails: defaultdict[str, list[str]] = defaultdict(list)
    for key, name in names.items():
        parts = key.split("/")
        for start in range(1, len(parts)):
            tails["/".join(parts[start:])].append(name)
    return _Tables(names, {tail: tuple(found) for tail, found in tails.items()}, _link_targets())


def known_zones() -> dict[str, str]:
    """casefolded name → IANA name for every zone tzdata ships, links (Europe/Kiev) included.
    Reads the disk the first time: call it once off the event loop before serving requests."""
    return _tables().names


def _link_targets() -> dict[str, str]:
    """The "L target name" lines of the tzdata package's tzdata.zi. Empty without the
    package: an ambiguous city is then listed rather than chosen."""
    try:
        text = resources.files("tzdata").joinpath("zoneinfo", "tzdata.zi").read_text("utf-8")
    except (ImportError, OSError, UnicodeDecodeError):
        return {}
    links = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "L":
            links[parts[2]] = parts[1]
    return links


def _key(text: str) -> str:
    # IANA names are ASCII: "São Paulo" and "Zürich", as people write them, are typed for
    # America/Sao_Paulo and Europe/Zurich.
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.strip().casefold().replace(" ", "_")


def resolve_zone(text: str) -> str:
    """The IANA name for typed text ("europe/berlin" → "Europe/Berlin", "new york" →
    "America/New_York", "kiev" → "Europe/Kiev"), or a ZoneError that says why not."""
    key = _key(text)
    tables = _tables()
    zones = tables.names
    if key in zones:
        return zones[key]
    candidates = tables.tails.get(key, ())
    if not candidates:
        for name, why in NOT_PLACES.items():
            if key == name.casefold():
                raise NotAPlaceError(text, why)
        raise UnknownZoneError(text)
    if len(candidates) == 1:
        return candidates[0]
    # Two names for one zone (America/Buenos_Aires is a link to America/Argentina/
    # Buenos_Aires) are one answer, not a question: the zone itself.
    targets = {tables.links.get(name, name) for name in candidates}
    if len(targets) == 1 and (target := next(iter(targets))).casefold() in zones:
        return zones[target.casefold()]
    raise AmbiguousZoneError(text.strip(), sorted(candidates))


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
