"""Server banks end to end: the real bot against the emulated Discord, whose CDN serves the
uploaded file (the bot fetches it with `Attachment.read()`).

- A moderator uploads a bank (GIFT, and Moodle XML): `/quiz` posts its task in that server and
  not in another, `/topics` lists its topic only there, and `/bank remove` takes it away.
- A broken file is refused privately with the line of each problem.
- A member without Manage Server who sends the upload as a raw payload is refused, and nothing
  is stored.
"""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member
from fakediscord import permissions as perm
from fakediscord.state import Attachment

from .bot_helpers import STEP, QuizBotRunner, is_ephemeral, raw_command, reply_of, text_of

pytestmark = pytest.mark.e2e

HAS_GIFT = importlib.util.find_spec("bot.content.importers.gift") is not None
GIFT = b"""// Networking, uploaded by a moderator
::net-tcp:: Which protocol guarantees ordered delivery? {
=TCP
~UDP#UDP does not reorder or retransmit.
~ICMP#ICMP carries control messages.
}
"""
MOODLE = b"""<?xml version="1.0"?>
<quiz>
  <question type="multichoice">
    <name><text>net-tcp</text></name>
    <questiontext format="html">
      <text>Which protocol guarantees ordered delivery?</text>
    </questiontext>
    <answer fraction="100"><text>TCP</text></answer>
    <answer fraction="0"><text>UDP</text></answer>
  </question>
</quiz>
"""
BROKEN = b"""bank: Broken
topic: Networking
tasks:
  - id: net-broken
    kind: choice
    difficulty: easy
    question: Which layer is IP?
    options: [Network, Transport]
    answer: E
"""
FILES = [
    pytest.param(
        "networking.gift",
        GIFT,
        marks=pytest.mark.skipif(not HAS_GIFT, reason="the GIFT importer (h-gift) is not merged"),
        id="gift",
    ),
    pytest.param("networking.xml", MOODLE, id="moodle-xml"),
]


class World:
    def __init__(self, driver: Driver) -> None:
        self.guild: Guild = driver.create_guild("Study Group")
        self.other: Guild = driver.create_guild("Another Group")
        self.owner: Member = self.guild.members[self.guild.owner_id]
        self.other_owner: Member = self.other.members[self.other.owner_id]
        self.channel: Channel = driver.create_text_channel(self.guild, "quiz")
        self.elsewhere: Channel = driver.create_text_channel(self.other, "quiz")
        self.alice = driver.add_member(self.guild, "alice")


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


@pytest_asyncio.fixture
async def quizbot(
    emulator: DiscordEmulator, tmp_path: Path, world: World
) -> AsyncIterator[QuizBotRunner]:
    runner = QuizBotRunner(emulator, tmp_path)
    try:
        await runner.sync(world.guild)
        await runner.sync(world.other)
        await runner.start()
        yield runner
    finally:
        await runner.stop()
    assert runner.error_lines() == [], runner.logs()[-6000:]


async def say(driver: Driver, command: str, who: Member, channel: Channel, **options: Any) -> str:
    reply = await reply_of(driver.slash(command, user=who, channel=channel, options=options))
    assert is_ephemeral(reply), reply
    return text_of(reply)


@pytest.mark.parametrize(("filename", "data"), FILES)
async def test_an_uploaded_bank_serves_its_server_only_until_removed(
    driver: Driver, world: World, quizbot: QuizBotRunner, filename: str, data: bytes
) -> None:
    upload = driver.upload(
        "bank upload",
        user=world.owner,
        channel=world.channel,
        filename=filename,
        data=data,
        options={"topic": "Networking"},
    )
    added = text_of(await reply_of(upload, timeout=STEP))
    assert "Added bank **networking**: 1 task (" in added, added
    stored = quizbot.query("SELECT guild_id, name, task_count FROM server_bank")
    assert [tuple(row) for row in stored] == [(world.guild.id, "networking", 1)]

    # This server: /quiz posts it, /topics lists it.
    posted = await say(driver, "quiz", world.alice, world.channel, task="net-tcp")
    assert "Posted" in posted, posted
    post = await driver.wait_for_message(world.channel, lambda m: bool(m.get("embeds")))
    assert "ordered delivery" in text_of(post)
    assert "Networking" in await say(driver, "topics", world.alice, world.channel)

    # Another server: neither.
    elsewhere = await say(driver, "quiz", world.other_owner, world.elsewhere, task="net-tcp")
    assert "couldn't find a matching task" in elsewhere
    assert "Networking" not in await say(driver, "topics", world.other_owner, world.elsewhere)

    listed = await say(driver, "bank list", world.owner, world.channel)
    assert "**networking**: 1 task," in listed

    removed = await say(driver, "bank remove", world.owner, world.channel, name="networking")
    assert "Removed bank **networking**" in removed
    assert "Networking" not in await say(driver, "topics", world.owner, world.channel)
    assert quizbot.query("SELECT * FROM server_bank") == []


async def test_a_broken_file_is_refused_with_the_line_of_each_problem(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    upload = driver.upload(
        "bank upload", user=world.owner, channel=world.channel, filename="broken.yaml", data=BROKEN
    )
    reply = await reply_of(upload, timeout=STEP)
    assert is_ephemeral(reply)
    refused = text_of(reply)
    assert "'broken.yaml' was not stored: 2 problems" in refused, refused
    assert "broken.yaml:4: task net-broken, field solution: missing required key" in refused
    assert "broken.yaml:9: task net-broken, field answer:" in refused
    assert quizbot.query("SELECT * FROM server_bank") == []


def raw_upload(driver: Driver, world: World, who: Member, data: bytes) -> dict[str, Any]:
    """/bank upload as a hand-made payload from a member without Manage Server, the file on
    the emulator's CDN: Discord's client would hide the command from them."""
    channel = world.channel
    member_perms = driver.world.member_permissions(channel, who.id)
    assert not member_perms & (perm.MANAGE_GUILD | perm.ADMINISTRATOR)
    aid = driver.world.ids.next()
    driver.world.attachments[aid] = Attachment(aid, "networking.xml", "text/xml", data)
    url = f"{driver.world.attachment_base}/attachments/0/{aid}/networking.xml"
    options = [{"type": 1, "name": "upload", "options": [{"type": 11, "name": "file",
                                                          "value": str(aid)}]}]
    attachment = {
        "id": str(aid),
        "filename": "networking.xml",
        "size": len(data),
        "url": url,
        "proxy_url": url,
        "content_type": "text/xml",
        "ephemeral": True,
    }
    resolved = {"attachments": {str(aid): attachment}}
    return raw_command(driver, world, who, channel, "bank", options, resolved)


async def test_a_non_moderators_raw_upload_is_refused(
    driver: Driver, world: World, quizbot: QuizBotRunner
) -> None:
    record = driver.send_raw_interaction(raw_upload(driver, world, world.alice, MOODLE))
    reply = await reply_of(record)
    assert is_ephemeral(reply)
    assert "Only moderators" in reply["content"]
    assert quizbot.query("SELECT * FROM server_bank") == []
    refused = await say(driver, "quiz", world.alice, world.channel, task="net-tcp")
    assert "couldn't find a matching task" in refused
