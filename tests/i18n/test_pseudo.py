"""The pseudo-locale (tests/i18n/pseudo.py) that shows any English bypassing the catalogs:
every message comes out bracketed and accented, with what the code and Discord read intact."""

from __future__ import annotations

import string
from pathlib import Path

from bot.i18n import _, ngettext, speaking
from bot.i18n.catalogs import TEMPLATE, read_po
from tests.i18n.pseudo import CLOSE, OPEN, pseudo, write_pseudo


def fields(text: str) -> list[str | None]:
    return [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]


def test_letters_are_accented_and_what_is_read_stays() -> None:
    text = "**{name}** solved it in <#12>: see `/quiz` and <t:1:R>\nor /leaderboard"
    assert pseudo(text) == (
        "⟦**{name}** šölvéd ît îñ <#12>: šéé `/quiz` áñd <t:1:R>\nör /leaderboard⟧"
    )


def test_every_template_message_comes_out_bracketed(locale_dir: Path) -> None:
    write_pseudo(locale_dir, "de")
    template = [m for m in read_po(TEMPLATE) if m.id]
    assert template
    with speaking("de"):
        for message in template:
            if isinstance(message.id, str):
                shown = _(message.id)
                assert shown.startswith(OPEN) and shown.endswith(CLOSE), message.id
                assert fields(shown) == fields(message.id)
            else:
                singular, plural = message.id[0], message.id[1]
                assert ngettext(singular, plural, 1) == pseudo(singular)
                assert ngettext(singular, plural, 5) == pseudo(plural)
