"""What the bot says, in the reader's language: gettext catalogs (`bot/locales/`) through Babel.

The one place code imports from:

- `_(message)`: `message` in the current locale; `ngettext(singular, plural, n)` for a count
  (then `.format(n=...)`); `N_(message)` marks a module-level constant for extraction, which is
  translated where it is used, `_(CONSTANT)`. Placeholders are `str.format` style, never `%`:
  `_("{name} solved it").format(name=name)`.
- `speaking(locale)`: the current locale for a block (a ContextVar, so two interactions never
  share it); `speak_for_task(locale)` for an entry point that cannot wrap its handler (each
  interaction runs in its own task, whose context dies with it); `current_locale()`.
- `resolve_locale(tag)`: a Discord locale ("pt-BR", "es-419") to a shipped one, else English;
  `server_locale(configured, guild_locale)`: the one rule for a server's public messages.
- `SHIPPED_LOCALES` and `DISPLAY_NAMES` (each locale's name in itself, for /config language).
- Numbers and dates: `bot.i18n.formats`.

Catalogs are compiled `.mo` files shipped in the package; `QUIZBOT_LOCALE_DIR` (a folder laid out
as `bot/locales/`) is searched first: try a catalog you are writing without reinstalling. A
message a catalog lacks is shown in English. How to update the catalogs: `bot/i18n/catalogs.py`.
"""

from __future__ import annotations

import contextlib
import functools
import gettext
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Final

from babel import Locale
from babel.support import Translations

DOMAIN: Final = "quizbot"
ENGLISH: Final = "en"
SHIPPED_LOCALES: Final = ("en", "de", "es", "fr", "pt_BR")
DISPLAY_NAMES: Final[dict[str, str]] = {
    locale: Locale.parse(locale).get_display_name(locale) or locale for locale in SHIPPED_LOCALES
}
"""Each shipped locale's name in itself: "English", "Deutsch", "español", ..."""
LOCALE_DIR: Final = Path(__file__).resolve().parent.parent / "locales"
LOCALE_DIR_VARIABLE: Final = "QUIZBOT_LOCALE_DIR"

_current: ContextVar[str] = ContextVar("quizbot_locale", default=ENGLISH)


def current_locale() -> str:
    return _current.get()


@contextlib.contextmanager
def speaking(locale: str) -> Iterator[str]:
    """Speak `locale` (a shipped one: see `resolve_locale`) inside the block."""
    token = _current.set(locale)
    try:
        yield locale
    finally:
        _current.reset(token)


def speak_for_task(locale: str) -> None:
    """Speak `locale` until the current asyncio task ends (its context is its own copy)."""
    _current.set(locale)


def resolve_locale(tag: str | None) -> str:
    """The shipped locale for a Discord locale tag: exact ("pt-BR"), then its language
    ("es-419" -> "es"), else English."""
    if not tag:
        return ENGLISH
    exact = tag.replace("-", "_")
    language = exact.split("_")[0].lower()
    for candidate in (exact, language):
        if candidate in SHIPPED_LOCALES:
            return candidate
    return ENGLISH


def server_locale(configured: str | None, guild_locale: str | None) -> str:
    """A server's public language: `/config language`, else the server's own preferred locale
    (Discord's `guild_locale`, set by Community servers), else English."""
    if configured in SHIPPED_LOCALES:
        return configured
    return resolve_locale(guild_locale)


@functools.lru_cache(maxsize=32)
def _catalog(locale: str, override: str | None) -> gettext.NullTranslations:
    for folder in (override, str(LOCALE_DIR)):
        if folder:
            found = Translations.load(folder, [locale], domain=DOMAIN)
            if isinstance(found, Translations):  # else a NullTranslations: none there
                return found
    return gettext.NullTranslations()


def translations(locale: str | None = None) -> gettext.NullTranslations:
    """The catalog of `locale` (default: the current one), cached; English has none."""
    locale = current_locale() if locale is None else locale
    return _catalog(locale, os.environ.get(LOCALE_DIR_VARIABLE) or None)


def _(message: str) -> str:
    locale = current_locale()
    if locale == ENGLISH:
        return message
    return translations(locale).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    locale = current_locale()
    if locale == ENGLISH:
        return singular if n == 1 else plural
    return translations(locale).ngettext(singular, plural, n)


def N_(message: str) -> str:
    return message


def clear_cache() -> None:
    """Forget the loaded catalogs (a test that rewrites one under QUIZBOT_LOCALE_DIR)."""
    _catalog.cache_clear()


__all__ = [
    "DISPLAY_NAMES",
    "ENGLISH",
    "N_",
    "SHIPPED_LOCALES",
    "_",
    "current_locale",
    "ngettext",
    "resolve_locale",
    "server_locale",
    "speak_for_task",
    "speaking",
    "translations",
]
