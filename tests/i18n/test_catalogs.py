"""The catalogs are in step with the code: the template holds every message the code has, each
shipped catalog has every message of the template with the same placeholders and plural forms,
and its committed `.mo` is what its `.po` compiles to (a wheel serves the `.mo`)."""

from __future__ import annotations

import string

import pytest
from babel.messages import Catalog, Message

from bot.i18n import SHIPPED_LOCALES
from bot.i18n.catalogs import (
    TEMPLATE,
    TRANSLATED,
    compiled,
    extracted_ids,
    ids,
    main,
    mo_path,
    po_path,
    read_po,
    served,
)


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def texts(message: Message) -> list[str]:
    value = message.string
    return [value] if isinstance(value, str) else list(value)


def test_every_shipped_locale_but_english_has_a_catalog() -> None:
    assert set(TRANSLATED) == set(SHIPPED_LOCALES) - {"en"}
    assert all(po_path(locale).exists() and mo_path(locale).exists() for locale in TRANSLATED)


def test_the_template_holds_exactly_the_messages_of_the_code() -> None:
    code, template = extracted_ids(), ids(read_po(TEMPLATE))
    assert code - template == set(), "run `python -m bot.i18n.catalogs update`"
    assert template - code == set(), "run `python -m bot.i18n.catalogs update`"


def test_the_slash_commands_descriptions_are_in_the_template() -> None:
    template = ids(read_po(TEMPLATE))
    assert {"Post a practice task in this channel.", "Follow each member"} <= template


@pytest.fixture(params=TRANSLATED)
def catalog(request: pytest.FixtureRequest) -> tuple[str, Catalog]:
    return request.param, read_po(po_path(request.param), request.param)


def test_each_catalog_has_every_template_message(catalog: tuple[str, Catalog]) -> None:
    _, messages = catalog
    assert ids(read_po(TEMPLATE)) - ids(messages) == set()


def test_each_translation_keeps_the_placeholders_and_plural_forms(
    catalog: tuple[str, Catalog],
) -> None:
    _, messages = catalog
    wrong = []
    for message in messages:
        if not message.id:
            continue
        msgids = [message.id] if isinstance(message.id, str) else list(message.id)
        wanted = set().union(*map(placeholders, msgids))
        forms = texts(message)
        if not isinstance(message.id, str) and len(forms) != messages.num_plurals:
            wrong.append(f"{message.id!r}: {len(forms)} plural forms")
        wrong += [f"{message.id!r}: {t!r}" for t in forms if t and placeholders(t) != wanted]
    assert wrong == []


def test_each_committed_mo_is_its_po_compiled(catalog: tuple[str, Catalog]) -> None:
    locale, messages = catalog
    assert served(mo_path(locale).read_bytes()) == compiled(messages)


def test_each_catalog_translates_every_message(catalog: tuple[str, Catalog]) -> None:
    _, messages = catalog
    untranslated = [m.id for m in messages if m.id and not all(texts(m))]
    assert untranslated == []


def test_the_check_command_finds_the_catalogs_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 0
    assert capsys.readouterr().err == ""
