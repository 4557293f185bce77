"""A member's private replies speak their client's language (`interaction.locale`) whatever
the server's: a German member's miss is answered in German, with the picked option's own note
as the bank wrote it; counts take each language's plural forms, numbers its digit grouping."""

from __future__ import annotations

from typing import Any

import pytest

from bot.discord_ui import picker, replies, typed
from bot.i18n import _, speaking
from bot.quiz.engine import Progress
from tests.discord_ui.conftest import BUTTON, COMPONENT, Driver, fill_two_task
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    FakeDiscordHTTP,
    Member,
    find_component,
    interaction_payload,
)


async def click_as(
    driver: Driver, message: dict[str, Any], pattern: str, member: Member, locale: str
) -> None:
    """`driver.click`, from a member whose Discord client speaks `locale`."""
    button = find_component(message, pattern)
    data = {"custom_id": button["custom_id"], "component_type": BUTTON}
    payload = interaction_payload(
        driver.fake, kind=COMPONENT, data=data, member=member, message=message
    )
    payload["locale"] = locale
    await driver.dispatch(payload)


async def test_a_german_members_miss_is_answered_in_german_with_the_options_note(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    message = await driver.post("mc-split")  # a server whose language is English

    await click_as(driver, message, r"quiz:ans:\d+:A", ALICE, "de")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text.startswith(
        "Nicht ganz: **A · model parallelism** ist es nicht. Du hast noch **2** Versuche."
    )
    with speaking("de"):
        why, nudge = _("Why not?"), _("Stuck? The 💡 Hint button can help.")
    assert why != "Why not?" and nudge != "Stuck? The 💡 Hint button can help."
    assert reply.data["embeds"][0]["fields"][0]["name"] == why
    assert nudge in reply.data["content"]
    # The note tied to option A is bank content: shown as the bank wrote it.
    assert "Model parallelism splits the model itself." in reply.text

    # The next member's client is English: nothing of Alice's language stays behind.
    await click_as(driver, message, r"quiz:ans:\d+:C", BOB, "en-US")
    english = fake.last_reply()
    assert english.text.startswith("Not quite: **C · pipeline flushing** isn't it.")
    assert "Flushing is about pipeline bubbles." in english.text


@pytest.mark.parametrize(
    ("locale", "counts"),
    [
        ("en", {0: "**0** points", 1: "**1** point", 2: "**2** points"}),
        ("de", {0: "**0** Punkte", 1: "**1** Punkt", 2: "**2** Punkte"}),
        # French counts 0 as singular.
        ("fr", {0: "**0** point", 1: "**1** point", 2: "**2** points"}),
    ],
)
def test_points_take_the_languages_plural_forms(locale: str, counts: dict[int, str]) -> None:
    with speaking(locale):
        assert {n: replies.points_text(n) for n in counts} == counts


@pytest.mark.parametrize(
    ("locale", "one", "two"),
    [
        ("de", "Du hast noch **1** Versuch.", "Du hast noch **2** Versuche."),
        ("fr", "Il te reste **1** essai.", "Il te reste **2** essais."),
    ],
)
def test_attempts_left_take_the_languages_plural_forms(locale: str, one: str, two: str) -> None:
    with speaking(locale):
        assert replies.attempts_sentence(Progress(wrong_tries=2)) == one
        assert replies.attempts_sentence(Progress(wrong_tries=1)) == two


def test_a_count_is_grouped_as_the_reader_writes_numbers() -> None:
    with speaking("de"):
        assert replies.points_text(1200) == "**1.200** Punkte"
    with speaking("en"):
        assert replies.points_text(1200) == "**1,200** points"


def test_a_pickers_notice_lists_the_blanks_as_the_language_does() -> None:
    task = fill_two_task()
    with speaking("de"):
        assert picker.missing_notice(task, [1, 2]).startswith(
            "Wähle zuerst eine Option für die Lücken [1] und [2]."
        )
        assert picker.missing_notice(task, [2]).startswith(
            "Wähle zuerst eine Option für Lücke [2]."
        )
    with speaking("fr"):
        assert picker.missing_notice(task, [1, 2]).startswith(
            "Choisis d'abord une option pour les trous [1] et [2]."
        )


def test_the_answer_form_is_titled_in_the_members_language() -> None:
    with speaking("de"):
        modal = typed.answer_modal(1)
    assert modal.title == "Deine Antwort"
