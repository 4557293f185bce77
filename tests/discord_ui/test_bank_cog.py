"""/bank through real discord.py objects built from raw payloads: the file is fetched from the
CDN with `Attachment.read()` only after the moderator check and the announced size pass; a
refusal lists every problem (as a file when long); download gives our YAML back."""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest

from bot.content.uploads import MAX_UPLOAD_BYTES
from bot.discord_ui.client import QuizBot
from tests import factories
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import (
    ALICE,
    GUILD_ID,
    MOD,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
    response,
)

SUB_COMMAND, STRING, ATTACHMENT = 1, 3, 11
CDN = "https://cdn.discordapp.com/ephemeral-attachments/1/2/"


def bank_yaml(task_id: str = "net-1", answer: str = "A", tasks: int = 1) -> bytes:
    return factories.bank_yaml(task_id, answer=answer, tasks=tasks).encode()


def sub(name: str, *options: dict[str, Any], resolved: dict[str, Any] | None = None) -> dict:
    data: dict[str, Any] = {
        "id": "1",
        "name": "bank",
        "type": 1,
        "options": [{"name": name, "type": SUB_COMMAND, "options": list(options)}],
    }
    if resolved:
        data["resolved"] = resolved
    return data


async def upload(
    driver: Driver,
    fake: FakeDiscordHTTP,
    filename: str,
    data: bytes,
    *,
    member: Member = MOD,
    size: int | None = None,
    download: BaseException | None = None,
) -> None:
    """`download`: what fetching the file from Discord's CDN raises instead."""
    aid = str(fake.next_id())
    url = CDN + filename
    fake.cdn[url] = data if download is None else download
    attachment = {
        "id": aid,
        "filename": filename,
        "size": len(data) if size is None else size,
        "url": url,
        "proxy_url": url,
        "content_type": "text/plain",
    }
    payload = interaction_payload(
        fake,
        kind=COMMAND,
        member=member,
        data=sub(
            "upload",
            {"name": "file", "type": ATTACHMENT, "value": aid},
            resolved={"attachments": {aid: attachment}},
        ),
    )
    await driver.dispatch(payload)


async def command(driver: Driver, fake: FakeDiscordHTTP, subcommand: str, **options: str) -> None:
    opts = [{"name": k, "type": STRING, "value": v} for k, v in options.items()]
    data = sub(subcommand, *opts)
    await driver.dispatch(interaction_payload(fake, kind=COMMAND, member=MOD, data=data))


async def test_a_moderator_uploads_downloads_and_removes_a_bank(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await upload(driver, fake, "Networking.yaml", bank_yaml())
    reply = fake.last_reply()
    assert reply.ephemeral and "Added bank **networking**: 1 task (yaml)" in reply.text
    assert fake.cdn_fetches == [CDN + "Networking.yaml"]
    assert "net-1" in bot.service.catalog_for(GUILD_ID)
    assert "net-1" not in bot.service.catalog_for(GUILD_ID + 1)

    await upload(driver, fake, "Networking.yaml", bank_yaml(answer="B"))
    assert "Replaced bank **networking**" in fake.last_reply().text

    await command(driver, fake, "download", name="networking")
    assert fake.files[-1] == ("networking.yaml", bank_yaml(answer="B"))
    await command(driver, fake, "list")
    assert "**networking**: 1 task," in fake.last_reply().text

    await command(driver, fake, "remove", name="networking")
    assert "Removed bank **networking** (1 task)" in fake.last_reply().text
    assert "net-1" not in bot.service.catalog_for(GUILD_ID)
    await command(driver, fake, "remove", name="networking")
    assert "no uploaded bank 'networking'" in fake.last_reply().text


async def test_a_file_discord_will_not_hand_over_is_refused_to_retry_not_a_bug(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    expired = discord.NotFound(response(404), {"code": 0, "message": "404: Not Found"})
    await upload(driver, fake, "Networking.yaml", bank_yaml(), download=expired)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "I couldn't download the file (Discord answered 404): upload it again" in reply.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert any("could not download" in r.getMessage() for r in caplog.records)


async def test_a_file_announced_over_1_mb_is_refused_before_it_is_downloaded(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await upload(driver, fake, "big.yaml", bank_yaml(), size=MAX_UPLOAD_BYTES + 1)
    assert fake.last_reply().ephemeral and "1,000,001 bytes" in fake.last_reply().text
    assert fake.cdn_fetches == []


async def test_a_member_is_refused_before_the_file_is_downloaded(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await upload(driver, fake, "net.yaml", bank_yaml(), member=ALICE)
    assert fake.last_reply().ephemeral and "Only moderators" in fake.last_reply().text
    assert fake.cdn_fetches == []
    assert "net-1" not in bot.service.catalog_for(GUILD_ID)


async def test_a_long_refusal_comes_as_a_text_file_with_every_line(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await upload(driver, fake, "bad.yaml", bank_yaml(answer="E", tasks=40))
    reply = fake.last_reply()
    assert reply.ephemeral and "40 problems" in reply.text and "attached file" in reply.text
    name, content = fake.files[-1]
    lines = content.decode().splitlines()
    assert name == "problems.txt" and len(lines) == 40
    assert lines[0].startswith("bad.yaml:9: task net-1-0, field answer:")


async def test_a_short_refusal_is_inline(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await upload(driver, fake, "bad.yaml", bank_yaml(answer="E"))
    text = fake.last_reply().text
    assert "'bad.yaml' was not stored: 1 problem." in text
    assert "bad.yaml:9: task net-1, field answer: answer 'E' is not among" in text
    assert fake.files == []


async def test_bank_names_autocomplete(bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP) -> None:
    await upload(driver, fake, "networking.yaml", bank_yaml())
    await upload(driver, fake, "other.yaml", bank_yaml(task_id="other"))
    data = sub("remove", {"name": "name", "type": STRING, "value": "net", "focused": True})
    payload = interaction_payload(fake, kind=4, member=MOD, data=data)
    await driver.dispatch(payload)
    call = fake.callbacks()[-1]
    assert call.callback_type == 8
    assert [c["value"] for c in call.json["data"]["choices"]] == ["networking"]


async def test_the_reply_to_a_bank_of_many_topics_fits_one_message(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    # A course's question bank: a category per week, and questions the bot can't use.
    gift = "".join(
        f"$CATEGORY: $course$/top/Week {n}: loops, conditions and functions\n\n"
        f"::w{n}:: Which keyword loops? {{=for ~if}}\n\n"
        f"::essay{n}:: Explain loops. {{}}\n\n"
        for n in range(60)
    )
    await upload(driver, fake, "course.gift", gift.encode())

    reply = fake.last_reply()
    assert "Added bank **course**: 60 tasks (gift), topic Week 0: loops" in reply.text
    assert len(reply.text) <= 2000
    assert "60 questions left out or changed" in reply.text
    assert "w59" in bot.service.catalog_for(GUILD_ID)


async def test_listing_the_banks_of_a_server_without_any_says_how_to_add_one(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await command(driver, fake, "list")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert reply.text == "This server has no banks of its own yet: add one with /bank upload."
