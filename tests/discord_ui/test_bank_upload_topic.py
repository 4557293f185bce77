"""/bank upload's topic option: a topic that could never be chosen, or would show as broken
text (NUL, a line break, only invisible characters, over 100 characters), is refused in a
kind private reply before the file is downloaded; a good one is given to the imported tasks."""

from __future__ import annotations

import logging

import pytest

from bot.discord_ui.client import QuizBot
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import GUILD_ID, MOD, FakeDiscordHTTP, interaction_payload
from tests.discord_ui.test_bank_cog import ATTACHMENT, CDN, STRING, sub

GIFT = b"::net-1:: Which layer routes packets? {=network ~link ~transport}\n"


async def upload_with_topic(driver: Driver, fake: FakeDiscordHTTP, topic: str) -> None:
    aid = str(fake.next_id())
    url = CDN + "net.gift"
    fake.cdn[url] = GIFT
    attachment = {
        "id": aid,
        "filename": "net.gift",
        "size": len(GIFT),
        "url": url,
        "proxy_url": url,
        "content_type": "text/plain",
    }
    data = sub(
        "upload",
        {"name": "file", "type": ATTACHMENT, "value": aid},
        {"name": "topic", "type": STRING, "value": topic},
        resolved={"attachments": {aid: attachment}},
    )
    await driver.dispatch(interaction_payload(fake, kind=COMMAND, member=MOD, data=data))


@pytest.mark.parametrize(
    ("topic", "why"),
    [
        ("Net\x00works", "the topic contains the control character U+0000 (NUL)"),
        ("Net\nworks", "the topic must be one line"),
        ("\u200b\u200b", "the topic shows nothing"),
    ],
)
async def test_a_broken_topic_is_refused_before_the_download(
    bot: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    topic: str,
    why: str,
) -> None:
    await upload_with_topic(driver, fake, topic)
    reply = fake.last_reply()
    assert reply.ephemeral and why in reply.text, reply.text
    assert fake.cdn_fetches == []
    assert bot.service.catalog_for(GUILD_ID).topics() == bot.service.catalog.topics()
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_good_topic_names_the_imported_tasks(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await upload_with_topic(driver, fake, "Networks")
    assert "Added bank **net**" in fake.last_reply().text, fake.last_reply().text
    assert "Networks" in bot.service.catalog_for(GUILD_ID).topics()
