"""Public messages speak the server's language, private replies the member's: a task post
and its footer's redraw after a click, whoever clicks; the pseudo-locale shows which texts went
through the server's catalog (only French has it here: German falls back to the shipped one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.post_view import LiveCounts
from tests.discord_ui.conftest import BUTTON, COMPONENT, BotFactory, Driver
from tests.discord_ui.fakes import (
    GUILD_ID,
    FakeDiscordHTTP,
    ManualSleep,
    Member,
    find_component,
    interaction_payload,
)
from tests.i18n.catalog_files import use_locale_dir
from tests.i18n.code_catalogs import write_code_pseudo
from tests.i18n.pseudo import CLOSE, OPEN, pseudo

GERMAN_MEMBER = Member(4444, "lena")


@pytest.fixture
def sleep() -> ManualSleep:
    return ManualSleep()


@pytest.fixture
async def french_server(
    make_bot: BotFactory,
    sleep: ManualSleep,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> QuizBot:
    """A server whose /config language is French, served by the pseudo-locale."""
    write_code_pseudo(use_locale_dir(tmp_path / "locales", monkeypatch), "fr")
    bot = await make_bot()
    bot.live_counts = LiveCounts(bot, interval=5.0, sleep=sleep)
    bot.languages.remember(GUILD_ID, "fr")
    return bot


def embed_of(message: dict[str, Any]) -> dict[str, Any]:
    return message["embeds"][0]  # type: ignore[no-any-return]


async def test_a_post_speaks_the_servers_language_and_so_does_its_redraw_after_a_click(
    french_server: QuizBot, fake: FakeDiscordHTTP, sleep: ManualSleep
) -> None:
    driver = Driver(french_server, fake)
    message = await driver.post("mc-split")  # posted by an English member
    embed = embed_of(message)
    assert [f["name"] for f in embed["fields"][:3]] == [
        pseudo("Topic"),
        pseudo("Difficulty"),
        pseudo("Attempts"),
    ]
    assert embed["footer"]["text"].startswith(pseudo("{n} answered").format(n=0))
    hint = find_component(message, r"quiz:hint:\d+")
    assert hint["label"] == pseudo("Hint (halves the points)")

    fake.clear()
    button = find_component(message, r"quiz:ans:\d+:A")
    payload = interaction_payload(
        fake,
        kind=COMPONENT,
        data={"custom_id": button["custom_id"], "component_type": BUTTON},
        member=GERMAN_MEMBER,
        message=message,
    )
    payload["locale"] = "de"  # the member's client speaks German
    await driver.dispatch(payload)
    await sleep.until_asleep()
    # The click's private reply is the member's (German, no French pseudo-text in it)...
    reply = fake.last_reply().text
    assert OPEN not in reply and CLOSE not in reply
    # ...and the public footer it redraws stays in the server's language.
    [edit] = fake.edits()
    footer = embed_of(edit.data)["footer"]["text"]
    assert footer.startswith(f"{pseudo('{n} answered').format(n=1)} · ")
    await sleep.run_out(french_server.live_counts.drain())
