"""A stored zone name becomes a zone in one place: unset or no longer known falls back."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from bot.clock import zone_or
from bot.store.guild_config import check_changes

BERLIN = ZoneInfo("Europe/Berlin")


def test_a_known_zone_is_used() -> None:
    assert zone_or("America/New_York", BERLIN) == ZoneInfo("America/New_York")


def test_an_unset_or_unknown_zone_falls_back_to_the_default() -> None:
    assert zone_or(None, BERLIN) is BERLIN
    assert zone_or("", BERLIN) is BERLIN
    assert zone_or("Mars/Olympus_Mons", BERLIN) is BERLIN
    assert zone_or("../etc/passwd", None) is None  # ZoneInfo refuses paths with ValueError
    # tzdata opens the name as a file: a folder of zones, an overlong name.
    assert zone_or("Europe", BERLIN) is BERLIN
    assert zone_or("x" * 300, BERLIN) is BERLIN


def test_a_servers_zone_set_to_a_folder_of_zones_is_refused_as_unknown() -> None:
    with pytest.raises(ValueError, match="unknown time zone 'America'"):
        check_changes({"timezone": "America"})
