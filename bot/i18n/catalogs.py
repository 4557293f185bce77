"""Keep the catalogs in step with the code: `python -m bot.i18n.catalogs update` extracts the
template (`bot/locales/quizbot.pot`), merges it into each locale's `.po` and compiles the `.mo`
files a wheel ships (when `check` finds something to do); `check` changes nothing and says
what is out of date (exit status 1).

`update` runs Babel's own commands, as these would from the repository's root:

    pybabel extract -F babel.cfg -k N_ -k ngettext:1,2 -c TRANSLATORS: --add-location=file \
        --sort-output -o bot/locales/quizbot.pot bot
    pybabel update -i bot/locales/quizbot.pot -d bot/locales -D quizbot --no-fuzzy-matching
    pybabel compile -d bot/locales -D quizbot

A new language: add it to `SHIPPED_LOCALES` (bot/i18n/__init__.py) and run `update`.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages import Catalog, mofile, pofile
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import CommandLineInterface, parse_mapping_cfg

from bot.i18n import DOMAIN, ENGLISH, LOCALE_DIR, SHIPPED_LOCALES

ROOT = LOCALE_DIR.parent.parent
MAPPING = ROOT / "babel.cfg"
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
TRANSLATED = tuple(locale for locale in SHIPPED_LOCALES if locale != ENGLISH)
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "ngettext": (1, 2)}
COMMENT_TAGS = ("TRANSLATORS:",)


def po_path(locale: str, folder: Path = LOCALE_DIR) -> Path:
    return folder / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(locale: str, folder: Path = LOCALE_DIR) -> Path:
    return po_path(locale, folder).with_suffix(".mo")


def extracted_ids() -> set[str | tuple[str, str]]:
    """The msgids the code holds now (singular, or (singular, plural)), extracted in memory."""
    with MAPPING.open() as config:
        methods, options = parse_mapping_cfg(config)  # type: ignore[no-untyped-call]
    found: set[str | tuple[str, str]] = set()
    package = LOCALE_DIR.parent
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(package), methods, options, keywords=KEYWORDS, comment_tags=COMMENT_TAGS
    ):
        found.add(message if isinstance(message, str) else (message[0], message[1]))
    return found


def ids(catalog: Catalog) -> set[str | tuple[str, str]]:
    """A catalog's msgids, in `extracted_ids`' form (the header left out)."""
    return {
        message.id if isinstance(message.id, str) else (message.id[0], message.id[1])
        for message in catalog
        if message.id
    }


def read_po(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as file:
        return pofile.read_po(file, locale=locale, domain=DOMAIN)


Served = set[tuple[object, object]]


def served(mo: bytes) -> Served:
    """The (msgid, msgstr) pairs a compiled catalog serves."""
    def frozen(value: object) -> object:  # a plural's forms come back as a list
        return tuple(value) if isinstance(value, list) else value

    return {(frozen(m.id), frozen(m.string)) for m in mofile.read_mo(io.BytesIO(mo)) if m.id}


def compiled(catalog: Catalog) -> Served:
    """What `catalog` compiles to (translated, not fuzzy messages), as `served` reads it."""
    buffer = io.BytesIO()
    mofile.write_mo(buffer, catalog)
    return served(buffer.getvalue())


def problems() -> list[str]:
    """What `update` would change, one line each; empty when the catalogs are current."""
    found: list[str] = []
    template = read_po(TEMPLATE)
    code = extracted_ids()
    if (stale := code ^ ids(template)) != set():
        found.append(f"{TEMPLATE.relative_to(ROOT)} is out of date ({len(stale)} messages differ)")
    for locale in TRANSLATED:
        po = po_path(locale)
        if not po.exists():
            found.append(f"{po.relative_to(ROOT)} is missing")
            continue
        catalog = read_po(po, locale)
        if missing := ids(template) - ids(catalog):
            found.append(f"{po.relative_to(ROOT)} lacks {len(missing)} messages of the template")
        mo = mo_path(locale)
        if not mo.exists() or compiled(catalog) != served(mo.read_bytes()):
            found.append(f"{mo.relative_to(ROOT)} is not compiled from its .po")
    return found


def _pybabel(*arguments: str) -> None:
    CommandLineInterface().run(["pybabel", "--quiet", *arguments])  # type: ignore[no-untyped-call]


def update() -> None:
    template, locales = str(TEMPLATE.relative_to(ROOT)), str(LOCALE_DIR.relative_to(ROOT))
    with contextlib.chdir(ROOT):  # the catalogs name files from the repository's root
        _pybabel(
            "extract", "-F", MAPPING.name, "-k", "N_", "-k", "ngettext:1,2",
            "-c", COMMENT_TAGS[0], "--add-location=file", "--sort-output",
            "--project", "quizbot", "-o", template, LOCALE_DIR.parent.name,
        )  # fmt: skip
        for locale in TRANSLATED:
            verb = "update" if po_path(locale).exists() else "init"
            # Fuzzy matching guesses a translation from a similar message: wrong more often
            # than not.
            extra = ["--no-fuzzy-matching"] if verb == "update" else []
            _pybabel(verb, "-i", template, "-d", locales, "-D", DOMAIN, "-l", locale, *extra)
        _pybabel("compile", "-d", locales, "-D", DOMAIN)


def main(argv: Iterable[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["update"]:
        if problems():  # else nothing to do: rewriting would only change the dates
            update()
        return 0
    if arguments == ["check"]:
        for line in (found := problems()):
            print(f"quizbot: {line}; run `python -m bot.i18n.catalogs update`", file=sys.stderr)
        return 1 if found else 0
    print("usage: python -m bot.i18n.catalogs update|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
