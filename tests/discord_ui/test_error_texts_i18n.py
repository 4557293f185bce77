"""A refusal in the member's language: the domain's errors and Discord's failures reach a member
through the catalogs (the pseudo-locale shows every word did), counts in each language's plural
forms and numbers as it writes them, typed text still quoted escaped; the English stays the
log's. The reminder DM, with no member's language, speaks the server's."""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages import Catalog

from bot import i18n
from bot.discord_ui.checks import ModeratorCheckFailure
from bot.discord_ui.client import QuizBot
from bot.discord_ui.error_texts import SOMETHING_WENT_WRONG, friendly_message, translated
from bot.i18n import _, speaking
from bot.quiz import refs
from bot.quiz.errors import (
    BankRefusedError,
    InvalidInputError,
    NotModeratorError,
    StoreAction,
    StoreBusyError,
    UnknownBankError,
)
from tests.discord_ui import test_reminders_cog as reminder_tests
from tests.discord_ui.conftest import COMMAND, COMPONENT, Driver
from tests.discord_ui.fakes import (
    ALICE,
    GUILD_ID,
    FakeDiscordHTTP,
    command_data,
    find_component,
    interaction_payload,
)
from tests.discord_ui.test_reminders_cog import NOW, Members, due_card, sent_dms
from tests.i18n.catalog_files import use_locale_dir, write_catalog
from tests.i18n.code_catalogs import code_template, write_code_pseudo
from tests.i18n.pseudo import CLOSE, OPEN, pseudo

clocked = reminder_tests.clocked  # the reminder DM's fixtures: a server named, DMs open
dms = reminder_tests.dms


@pytest.fixture
def pseudo_german(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """German served by the pseudo-locale of every message the code holds."""
    write_code_pseudo(use_locale_dir(tmp_path / "locales", monkeypatch), "de")
    yield
    i18n.clear_cache()


def in_german(payload: dict[str, Any]) -> dict[str, Any]:
    payload["locale"] = "de"
    return payload


def bracketed(text: str) -> bool:
    return text.startswith(OPEN) and text.endswith(CLOSE)


@pytest.mark.usefixtures("pseudo_german")
async def test_a_german_members_refusal_comes_through_the_catalogs(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    typed = "no_such*task"
    payload = interaction_payload(fake, kind=COMMAND, data=command_data("quiz", task=typed))
    german = (await driver.one_reply(in_german(payload))).text
    assert bracketed(german)
    assert r"'no\_such\*task'" in german  # quoted back escaped, as in English
    english = (await driver.one_reply(interaction_payload(
        fake, kind=COMMAND, data=command_data("quiz", task=typed)
    ))).text  # fmt: skip
    assert english.startswith("I couldn't find a matching task (task 'no\\_such\\*task'")


@pytest.mark.usefixtures("pseudo_german")
async def test_a_german_members_click_on_a_post_not_here_is_refused_in_german(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = copy.deepcopy(await driver.post("mc-split"))
    button = find_component(message, r"quiz:ans:\d+:A")
    button["custom_id"] = "quiz:ans:999999:A"
    data = {"custom_id": button["custom_id"], "component_type": 2}
    payload = interaction_payload(fake, kind=COMPONENT, data=data, message=message)
    reply = await driver.one_reply(in_german(payload))
    assert reply.ephemeral
    with speaking("de"):
        assert reply.text == _(
            "I can't find that quiz in this server. Pick one from the list, perhaps?"
        )
    assert bracketed(reply.text)


@pytest.mark.usefixtures("pseudo_german")
async def test_a_bug_is_apologised_for_in_german_and_logged_in_english(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(bot.service, "leaderboard", boom)
    payload = interaction_payload(fake, kind=COMMAND, data=command_data("leaderboard"))
    reply = await driver.one_reply(in_german(payload))
    assert reply.text == pseudo(SOMETHING_WENT_WRONG)
    (record,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.getMessage().startswith("unhandled error in /leaderboard")


@pytest.mark.usefixtures("pseudo_german")
def test_each_part_of_a_store_refusal_is_translated_and_str_stays_english() -> None:
    busy = StoreBusyError(StoreAction.ANSWER, "database is locked")
    with speaking("de"):
        shown = translated(busy)
    assert shown == pseudo("The quiz database is busy; {lost}. Try again in a moment.").format(
        lost=pseudo("your answer was not recorded")
    )
    assert str(busy) == (
        "The quiz database is busy; your answer was not recorded. Try again in a moment."
    )


@pytest.mark.usefixtures("pseudo_german")
def test_a_moderators_refusal_is_the_domains_message_translated() -> None:
    with speaking("de"):
        shown = friendly_message(ModeratorCheckFailure())
    assert shown == pseudo(str(NotModeratorError()))


def test_numbers_in_a_refusal_are_written_as_the_readers_language_writes_them() -> None:
    with pytest.raises(InvalidInputError) as refused:
        refs.whole_number(5000, "seconds", 0, 3600)
    assert str(refused.value) == "The `seconds` option takes a whole number from 0 to 3600."
    assert translated(refused.value) == (
        "The `seconds` option takes a whole number from 0 to 3,600."
    )
    with speaking("de"):
        assert "3.600" in translated(refused.value)


@pytest.mark.parametrize(
    ("locale", "problems", "form"),
    [("de", 0, 1), ("de", 1, 0), ("de", 2, 1), ("fr", 0, 0), ("fr", 1, 0), ("fr", 2, 2)],
)
def test_a_count_takes_its_languages_plural_form(
    locale: str, problems: int, form: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """French says "0 problème" like "1 problème"; German "0 Probleme" like "2" (French's
    form 1 is for millions)."""
    refused = BankRefusedError("a.yaml", ["line 1: x"] * problems)
    assert isinstance(refused.template, tuple)
    forms = tuple(
        f"{{filename!r}}: {{n}} (form {i})" for i in range(Catalog(locale=locale).num_plurals)
    )
    write_catalog(use_locale_dir(tmp_path, monkeypatch), locale, {refused.template: forms})
    with speaking(locale):
        shown = translated(refused)
    i18n.clear_cache()
    assert shown == forms[form].format(filename="a.yaml", n=problems)


def test_the_rules_messages_are_marked_for_the_catalogs() -> None:
    """bot/quiz/errors.py's own `N_` and `N_plural` are extracted (babel.cfg's keywords)."""
    template = {message.id for message in code_template() if message.id}
    assert UnknownBankError("x").template in template
    refused = BankRefusedError("a.yaml", [])
    assert isinstance(refused.template, tuple) and refused.template in template


def test_a_german_member_is_told_in_german_who_may_do_that() -> None:
    with speaking("de"):
        assert translated(NotModeratorError()) == (
            "Das dürfen nur Moderatoren: Du brauchst die Berechtigung „Server verwalten“ "
            "oder die Moderatorenrolle dieses Servers."
        )


@pytest.mark.usefixtures("dms", "pseudo_german")
async def test_the_reminder_dm_speaks_the_servers_language(
    clocked: QuizBot, fake: FakeDiscordHTTP, dms: Members
) -> None:
    clocked.languages.remember(GUILD_ID, "de")
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    await clocked.reminders.tick(NOW)
    (dm,) = sent_dms(fake)
    assert OPEN in dm.text and "Study group" in dm.text
