"""Which language the bot speaks: a Discord locale resolved to a shipped one, the server's
rule, each task its own locale, a missing translation shown in English, numbers as the reader
writes them."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.i18n import (
    DISPLAY_NAMES,
    SHIPPED_LOCALES,
    _,
    current_locale,
    formats,
    ngettext,
    resolve_locale,
    server_locale,
    speak_for_task,
    speaking,
)
from tests.i18n.catalog_files import write_catalog


@pytest.mark.parametrize(
    ("tag", "locale"),
    [
        ("de", "de"),
        ("pt-BR", "pt_BR"),
        ("es-419", "es"),
        ("es-ES", "es"),
        ("en-US", "en"),
        ("en-GB", "en"),
        ("fr", "fr"),
        ("ja", "en"),
        ("pt-PT", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_a_discord_locale_resolves_to_a_shipped_one(tag: str | None, locale: str) -> None:
    assert resolve_locale(tag) == locale


def test_the_server_language_is_the_configured_one_else_discords_else_english() -> None:
    assert server_locale("fr", "de") == "fr"
    assert server_locale(None, "pt-BR") == "pt_BR"
    assert server_locale(None, "ja") == "en"
    assert server_locale(None, None) == "en"


def test_each_locale_is_offered_by_its_own_name() -> None:
    assert DISPLAY_NAMES["de"] == "Deutsch"
    assert DISPLAY_NAMES["es"] == "español"
    assert set(DISPLAY_NAMES) == set(SHIPPED_LOCALES)


def test_the_shipped_catalog_translates_and_a_missing_message_stays_english() -> None:
    with speaking("de"):
        assert _("Language") == "Sprache"
        assert _("A sentence no catalog has.") == "A sentence no catalog has."
    assert _("Language") == "Language"


def test_speaking_ends_with_its_block() -> None:
    assert current_locale() == "en"
    with speaking("fr"):
        with speaking("de"):
            assert current_locale() == "de"
        assert current_locale() == "fr"
    assert current_locale() == "en"


async def test_two_concurrent_interactions_each_speak_their_own_language() -> None:
    both = asyncio.Barrier(2)

    async def interaction(tag: str) -> list[str]:
        speak_for_task(resolve_locale(tag))
        heard = [_("Language")]
        await both.wait()  # the other task has set its own locale meanwhile
        heard.append(_("Language"))
        return heard

    german, spanish = await asyncio.gather(interaction("de"), interaction("es-419"))
    assert german == ["Sprache", "Sprache"]
    assert spanish == ["Idioma", "Idioma"]
    assert current_locale() == "en"  # nothing leaked into the caller


def test_plural_forms_follow_the_locale(locale_dir: Path) -> None:
    write_catalog(
        locale_dir,
        "pt_BR",
        # Portuguese: one (0 and 1), many (whole millions: "de"), other.
        {("{n} task", "{n} tasks"): ("{n} tarefa", "{n} de tarefas", "{n} tarefas")},
    )
    with speaking("pt_BR"):
        words = [ngettext("{n} task", "{n} tasks", n).format(n=n) for n in (0, 1, 2, 10**6)]
        assert words == ["0 tarefa", "1 tarefa", "2 tarefas", "1000000 de tarefas"]
    assert ngettext("{n} task", "{n} tasks", 1).format(n=1) == "1 task"
    assert ngettext("{n} task", "{n} tasks", 0).format(n=0) == "0 tasks"


def test_a_catalog_in_the_locale_dir_comes_before_the_shipped_one(locale_dir: Path) -> None:
    write_catalog(locale_dir, "de", {"Language": "Sprache (Entwurf)"})
    with speaking("de"):
        assert _("Language") == "Sprache (Entwurf)"
    with speaking("fr"):  # none there: the shipped one
        assert _("Language") == "Langue"


def test_numbers_and_dates_are_written_as_the_reader_writes_them() -> None:
    moment = dt.datetime(2026, 12, 7, 12, 0, tzinfo=dt.UTC)
    with speaking("en"):
        assert (formats.number(1200), formats.decimal(3.456), formats.percent(0.25)) == (
            "1,200",
            "3.5",
            "25%",
        )
        assert formats.datetime(moment, ZoneInfo("Europe/Berlin")) == "Dec 7, 2026, 1:00\u202fPM"
    with speaking("de"):
        assert (formats.number(1200), formats.decimal(3.456), formats.percent(0.25)) == (
            "1.200",
            "3,5",
            "25\xa0%",
        )
        assert formats.date(moment.date()) == "07.12.2026"
        assert formats.time(dt.time(13, 5)) == "13:05"
