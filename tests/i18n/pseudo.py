"""A pseudo-locale: every message of the template with its letters accented and wrapped in
⟦ ⟧, so an English sentence that bypasses the catalogs stands out in any reply. What the code
fills in or Discord reads stays as it is: `{placeholders}`, Markdown markers, mentions and
timestamps (`<@1>`, `<t:1:R>`), `code`, /command names, links and line breaks.

    python -m tests.i18n.pseudo DIR [LOCALE]   # then QUIZBOT_LOCALE_DIR=DIR
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from babel.messages import Catalog

from bot.i18n.catalogs import TEMPLATE, read_po
from tests.i18n.catalog_files import write_catalog

OPEN, CLOSE = "⟦", "⟧"
ACCENTS = str.maketrans(
    "aceinosuyzACEINOSUYZ",
    "áçéîñöšüýžÁÇÉÎÑÖŠÜÝŽ",
)
KEPT = re.compile(
    r"\{[^{}]*\}"  # str.format placeholders
    r"|<[@#:tra/][^<>\s]*>"  # mentions, channels, emoji, timestamps
    r"|`[^`]*`"  # code
    r"|https?://\S+"
    r"|(?<![\w/])/[a-z][a-z-]*"  # a command (names stay English)
    r"|\*\*|__|~~|\|\||\n"
)


def pseudo(text: str) -> str:
    """`text` accented and bracketed, with what must stay intact left as it is."""
    out, last = [], 0
    for kept in KEPT.finditer(text):
        out += [text[last : kept.start()].translate(ACCENTS), kept.group()]
        last = kept.end()
    out.append(text[last:].translate(ACCENTS))
    return f"{OPEN}{''.join(out)}{CLOSE}"


def pseudo_messages(
    template: Catalog, plurals: int = 2
) -> dict[str | tuple[str, str], str | tuple[str, ...]]:
    """Every message of `template`; a plural one with `plurals` forms (its locale's count)."""
    messages: dict[str | tuple[str, str], str | tuple[str, ...]] = {}
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, str):
            messages[message.id] = pseudo(message.id)
        else:
            singular, plural = message.id[0], message.id[1]
            messages[(singular, plural)] = (pseudo(singular),) + (pseudo(plural),) * (plurals - 1)
    return messages


def write_pseudo(folder: Path, locale: str = "de") -> Path:
    """Compile the pseudo-locale as `locale`'s catalog under `folder` (a QUIZBOT_LOCALE_DIR)."""
    plurals = Catalog(locale=locale).num_plurals
    return write_catalog(folder, locale, pseudo_messages(read_po(TEMPLATE), plurals))


if __name__ == "__main__":
    print(write_pseudo(Path(sys.argv[1]), *sys.argv[2:3]))
