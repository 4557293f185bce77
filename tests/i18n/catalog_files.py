"""Catalogs written for a test, into a folder used as QUIZBOT_LOCALE_DIR."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from babel.messages import Catalog, mofile

from bot import i18n
from bot.i18n.catalogs import mo_path


def write_catalog(
    folder: Path, locale: str, messages: Mapping[str | tuple[str, str], str | tuple[str, ...]]
) -> Path:
    """Compile `messages` (msgid: msgstr; a plural's (singular, plural): its forms) for `locale`."""
    catalog = Catalog(locale=locale, domain=i18n.DOMAIN)
    for msgid, msgstr in messages.items():
        catalog.add(msgid, msgstr)
    path = mo_path(locale, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as file:
        mofile.write_mo(file, catalog)
    i18n.clear_cache()
    return path


def use_locale_dir(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Search `folder` (QUIZBOT_LOCALE_DIR) before the shipped catalogs, for this test."""
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv(i18n.LOCALE_DIR_VARIABLE, str(folder))
    i18n.clear_cache()
    return folder
