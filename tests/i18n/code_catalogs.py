"""Catalogs for tests of texts the code holds now, whether or not the template has them yet:
the pseudo-locale of every extracted message (tests/i18n/pseudo.py's, from the code instead of
`bot/locales/quizbot.pot`), and whether a shipped catalog translates a message."""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from babel.messages import Catalog

from bot import i18n
from bot.i18n.catalogs import extracted_ids
from tests.i18n.catalog_files import write_catalog
from tests.i18n.pseudo import pseudo_messages


@functools.cache
def code_template() -> Catalog:
    """Every message the code holds, as a template (extracted once per test process)."""
    # In a thread of its own: the commands' extractor runs an event loop, and an async test's
    # is running already.
    with ThreadPoolExecutor(1) as thread:
        found = thread.submit(extracted_ids).result()
    catalog = Catalog(domain=i18n.DOMAIN)
    for message in sorted(found, key=str):
        catalog.add(message)
    return catalog


def write_code_pseudo(folder: Path, locale: str = "de") -> Path:
    """Compile the pseudo-locale of every message in the code as `locale`'s catalog under
    `folder` (a QUIZBOT_LOCALE_DIR)."""
    plurals = Catalog(locale=locale).num_plurals
    return write_catalog(folder, locale, pseudo_messages(code_template(), plurals))


def shipped(locale: str, *messages: str | tuple[str, str]) -> bool:
    """Whether the catalog of `locale` (the shipped one, or QUIZBOT_LOCALE_DIR's) translates
    every one of `messages` (a plural one as (singular, plural)): a test of a literal
    translation runs once it does."""
    catalog = i18n.translations(locale)
    for message in messages:
        if isinstance(message, str):
            if catalog.gettext(message) == message:
                return False
        elif catalog.ngettext(message[0], message[1], 2) == message[1]:
            return False
    return True


PSEUDO = "pseudo"
"""`speaking_in`'s name for the pseudo-locale (served as German: Babel formats it so)."""
LOCALES_AND_PSEUDO = (*i18n.SHIPPED_LOCALES, PSEUDO)


@contextlib.contextmanager
def speaking_in(locale: str) -> Iterator[str]:
    """Speak a shipped locale, or `PSEUDO`: the pseudo-locale of the code's messages, as
    German, from a folder of its own for the block (no fixture: it runs inside a Hypothesis
    test too)."""
    if locale != PSEUDO:
        with i18n.speaking(locale):
            yield locale
        return
    before = os.environ.get(i18n.LOCALE_DIR_VARIABLE)
    with tempfile.TemporaryDirectory() as folder:
        write_code_pseudo(Path(folder), "de")
        os.environ[i18n.LOCALE_DIR_VARIABLE] = folder
        i18n.clear_cache()
        try:
            with i18n.speaking("de"):
                yield "de"
        finally:
            if before is None:
                del os.environ[i18n.LOCALE_DIR_VARIABLE]
            else:
                os.environ[i18n.LOCALE_DIR_VARIABLE] = before
            i18n.clear_cache()
