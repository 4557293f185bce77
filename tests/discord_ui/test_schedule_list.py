"""/schedule list's lines in the moderator's language: counted tasks, dates as the locale
writes them, and the stored error shown as it was written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.clock import discord_timestamp
from bot.discord_ui import schedule_list
from bot.i18n import speaking
from bot.store.schedule_records import ScheduleInfo
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import pseudo

NOW = datetime(2025, 3, 1, 12, tzinfo=UTC)
NEXT = datetime(2025, 3, 2, 8, tzinfo=UTC)  # Sunday 09:00 in Berlin


def schedule(**changes: object) -> ScheduleInfo:
    fields: dict[str, object] = {
        "id": 3,
        "guild_id": 1,
        "channel_id": 10,
        "local_time": "09:00",
        "timezone": "Europe/Berlin",
        "topic": None,
        "difficulty": None,
        "count": 2,
        "paused": False,
        "open_thread": False,
        "created_by": 5,
        "created_at": NOW,
        "active_since": NOW,
    }
    return ScheduleInfo(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_schedule_in_english() -> None:
    lines = schedule_list.schedule_lines(schedule(), NEXT, NOW).split("\n")
    assert lines[0] == (
        "**#3** · <#10> · daily at **09:00** Europe/Berlin · 2 tasks · any topic · any difficulty"
    )
    assert lines[1].startswith("Next: <t:") and "(Sun 02 Mar 09:00 Europe/Berlin)" in lines[1]
    assert schedule_list.what(schedule(count=1, topic="SQL")) == "1 task · SQL · any difficulty"


def test_a_schedule_goes_through_the_catalogs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_code_pseudo(use_locale_dir(tmp_path, monkeypatch), "de")
    failing = schedule(
        last_error="Discord refused in <#10> (Missing Permissions)",
        last_error_at=NOW,
        retry_at=NOW + timedelta(minutes=2),
    )
    with speaking("de"):
        lines = schedule_list.schedule_lines(failing, NEXT, NOW).split("\n")
        empty = schedule_list.list_embed([])
    tasks = pseudo("{n} tasks").format(n=2)
    what = f"{tasks} · {pseudo('any topic')} · {pseudo('any difficulty')}"
    head = pseudo("**#{id}** · {channel} · daily at **{time}** {zone} · {what}")
    assert lines[0] == head.format(
        id=3, channel="<#10>", time="09:00", zone="Europe/Berlin", what=what
    )
    # The stored error is shown as it was written; the words around it are translated.
    error = pseudo("⚠️ Error {when}: {error}.").format(
        when=discord_timestamp(NOW, "R"), error=failing.last_error
    )
    retry = pseudo("Retrying {when}.").format(
        when=discord_timestamp(NOW + timedelta(minutes=2), "R")
    )
    assert lines[2] == f"{error} {retry}"
    assert empty.title == pseudo("📅 Daily quizzes")


def test_a_german_moderators_list() -> None:
    with speaking("de"):
        lines = schedule_list.schedule_lines(schedule(), NEXT, NOW).split("\n")
    assert "2 Aufgaben · jedes Thema · jede Schwierigkeit" in lines[0]
    assert "(So., 02. März, 09:00 Europe/Berlin)" in lines[1]
