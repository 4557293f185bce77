"""Zone names as moderators type them: resolving and suggesting (pure, no Discord)."""

import pytest

from bot.quiz.errors import ScheduleInputError
from bot.schedule.zones import MAX_CHOICES, ZONE_SUGGESTIONS, resolve_zone, zone_choices


def test_resolve_zone_ignores_case_spaces_and_padding() -> None:
    assert resolve_zone(" europe/BERLIN ") == "Europe/Berlin"
    assert resolve_zone("america/new york") == "America/New_York"
    assert resolve_zone("utc") == "UTC"


def test_an_unknown_zone_says_what_to_use_instead() -> None:
    with pytest.raises(ScheduleInputError, match="'Mars/Olympus' is not a time zone I know"):
        resolve_zone("Mars/Olympus")


def test_zone_choices_prefer_name_and_city_prefixes() -> None:
    assert zone_choices("tokyo") == ["Asia/Tokyo"]
    assert zone_choices("berl")[0] == "Europe/Berlin"
    assert all(len(zone_choices(c)) <= MAX_CHOICES for c in ("", "a", "e", "/"))


def test_with_nothing_typed_the_servers_zone_leads_the_common_ones() -> None:
    others = [z for z in ZONE_SUGGESTIONS if z != "Asia/Tokyo"]
    assert zone_choices("", "Asia/Tokyo") == ["Asia/Tokyo", *others]
    assert zone_choices("") == list(ZONE_SUGGESTIONS)


def test_names_that_are_no_places_zone_are_refused_and_not_suggested() -> None:
    for name in ("localtime", "Factory", "LOCALTIME"):
        with pytest.raises(ScheduleInputError, match="not a time zone I know"):
            resolve_zone(name)
    assert "localtime" not in zone_choices("local")
    assert "Factory" not in zone_choices("fact")
