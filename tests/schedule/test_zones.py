"""Zone names as moderators type them: resolving and suggesting (pure, no Discord)."""

import random
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.quiz.errors import ScheduleInputError
from bot.schedule.zones import (
    MAX_CHOICES,
    NOT_PLACES,
    ZONE_SUGGESTIONS,
    AmbiguousZoneError,
    NotAPlaceError,
    known_zones,
    resolve_zone,
    zone_choices,
)


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


# -- cities and tzdata's backward names (issue 26, class 10) ---------------------------------

@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("berlin", "Europe/Berlin"),  # the README's own example
        ("BERLIN", "Europe/Berlin"),
        (" Berlin ", "Europe/Berlin"),
        ("new york", "America/New_York"),
        ("New_York", "America/New_York"),
        ("tokyo", "Asia/Tokyo"),
        ("argentina/cordoba", "America/Argentina/Cordoba"),  # a trailing part of the name
        ("Kiev", "Europe/Kiev"),  # a backward name (a link to Europe/Kyiv) is still a zone
        ("kyiv", "Europe/Kyiv"),
        ("europe/kiev", "Europe/Kiev"),
        ("us/eastern", "US/Eastern"),
    ],
)
def test_a_city_or_any_case_of_a_name_is_its_zone(typed: str, zone: str) -> None:
    assert resolve_zone(typed) == zone
    ZoneInfo(resolve_zone(typed))  # and it loads


def test_two_names_of_one_zone_are_that_zone_not_a_question() -> None:
    # America/Buenos_Aires is tzdata's link to America/Argentina/Buenos_Aires.
    assert resolve_zone("buenos aires") == "America/Argentina/Buenos_Aires"
    assert resolve_zone("Istanbul") == "Europe/Istanbul"  # Asia/Istanbul is its link


def test_an_ambiguous_city_lists_the_zones_it_could_be() -> None:
    with pytest.raises(AmbiguousZoneError) as caught:
        resolve_zone("central")
    assert caught.value.candidates == ["Canada/Central", "US/Central"]
    assert "'central' could be any of Canada/Central, US/Central: give the full name" in str(
        caught.value
    )


@pytest.mark.parametrize(
    "name",
    [
        "localtime",
        "LocalTime",
        "Factory",
        "posixrules",
        "posix/Europe/Berlin",
        "right/UTC",
        "../zoneinfo/Europe/Berlin",
        "/usr/share/zoneinfo/Europe/Berlin",
        "Europe",
        "Europe/",
        "",
    ],
)
def test_names_that_are_files_but_no_places_zone_are_refused(name: str) -> None:
    with pytest.raises(ScheduleInputError, match="not a time zone I know"):
        resolve_zone(name)


def test_localtime_is_refused_saying_why() -> None:
    with pytest.raises(NotAPlaceError, match="whatever zone the host is set to"):
        resolve_zone("localtime")


def test_every_zone_tzdata_ships_resolves_to_itself_links_included() -> None:
    names = available_timezones() - set(NOT_PLACES)
    assert "Europe/Kiev" in names and "US/Pacific" in names  # backward names are listed
    assert {name for name in names if resolve_zone(name) != name} == set()
    assert set(known_zones().values()) == names


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(available_timezones() - set(NOT_PLACES))), st.randoms())
def test_any_case_and_spaces_for_underscores_reach_the_same_zone(
    name: str, rnd: random.Random
) -> None:
    typed = "".join(c.upper() if rnd.random() < 0.5 else c.lower() for c in name)
    typed = typed.replace("_", " ")
    assert resolve_zone(f"  {typed} ") == name
