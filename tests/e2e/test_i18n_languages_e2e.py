"""The group's languages end to end, with the shipped catalogs: a member whose Discord client
is German gets German private replies in a server whose language is English, while what the
channel sees stays English, even a post that member made; a server set to French with
`/config language` gets its daily quiz and the close summary in French, whatever its members'
clients speak. The expected texts are the catalogs' own (`bot.i18n` looked up here), never
copies. (A Spanish client's command descriptions: test_i18n_commands.py.)"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from fakediscord import DiscordEmulator, Driver, Member, Message

from bot.i18n import _, formats, ngettext, speaking

from .bot_helpers import (
    ANSWERS,
    STEP,
    QuizBotRunner,
    checked_bot,
    click,
    is_ephemeral,
    reply_of,
    text_of,
    wrong_option,
)
from .daily_helpers import daily_quiz_closed, daily_quiz_posted

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MC = "mlops-parallelism-mc-1"
_FIELD = re.compile(r"\{[^{}]*\}")


def said(locale: str, msgid: str, plural: str | None = None, n: int = 1) -> str:
    """`msgid` (or its plural form for `n`) as the shipped catalog of `locale` has it."""
    with speaking(locale):
        return _(msgid) if plural is None else ngettext(msgid, plural, n)


def pieces(template: str) -> list[str]:
    """The literal text of a message around its placeholders: what any filling shows."""
    return [piece.strip() for piece in _FIELD.split(template) if len(piece.strip()) > 3]


def translated(locale: str, msgid: str, plural: str | None = None, n: int = 1) -> str:
    """The catalog's `locale` text, which must differ from the English."""
    text, english = said(locale, msgid, plural, n), said("en", msgid, plural, n)
    assert text != english, f"{locale} catalog does not translate {msgid!r}"
    return text


def shows(text: str, template: str) -> bool:
    return all(piece in text for piece in pieces(template))


def json_of(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def public_view(post: Message) -> Any:
    """What the channel reads of a post, without its ids."""
    [embed] = post["embeds"]
    labels = [
        c.get("label") for row in post.get("components") or [] for c in row.get("components") or []
    ]
    return embed.get("title"), embed.get("description"), embed.get("fields"), labels


@pytest_asyncio.fixture
async def quizbot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
    async with checked_bot(emulator, tmp_path) as bot:
        yield bot


async def test_a_german_member_is_answered_in_german_and_the_channel_stays_english(
    driver: Driver, quizbot: QuizBotRunner
) -> None:
    guild = driver.create_guild("Study Group")  # its own language: English (en-US)
    ann: Member = driver.add_member(guild, driver.create_user("ann", locale="en-US"))
    jonas: Member = driver.add_member(guild, driver.create_user("jonas", locale="de"))
    hers, his = (driver.create_text_channel(guild, name) for name in ("one", "two"))
    await quizbot.sync(guild)
    await quizbot.start()

    # Each posts the same task: the posts read the same, in English, whoever asked.
    posts: list[tuple[Message, int]] = []
    for who, channel in ((ann, hers), (jonas, his)):
        await reply_of(driver.slash("quiz", user=who, channel=channel, options={"task": MC}))
        post = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
        posts.append((post, quizbot.post_id_of(post)))
    (english_post, english_id), (german_post, german_id) = posts
    assert public_view(german_post) == public_view(english_post)
    assert "Multiple choice" in german_post["embeds"][0]["title"]

    # The same wrong answer: each is told privately, in their own language.
    before = [json_of(p["embeds"][0].get("footer")) for p in (english_post, german_post)]
    wrong = wrong_option(MC)
    replies = {}
    for who, post, post_id in ((ann, english_post, english_id), (jonas, german_post, german_id)):
        reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{wrong}", user=who))
        assert is_ephemeral(reply)
        replies[who.user.username] = text_of(reply)
    miss = "Not quite: **{chosen}** isn't it."
    left = ("You have **{n}** attempt left.", "You have **{n}** attempts left.")
    with speaking("de"):
        german_left = translated("de", *left, 2).format(n=formats.number(2))
    assert shows(replies["jonas"], translated("de", miss)) and german_left in replies["jonas"]
    assert not shows(replies["jonas"], miss)
    assert shows(replies["ann"], miss) and "You have **2** attempts left." in replies["ann"]

    # The posts' live counts, redrawn after the clicks, still read the same: the server's.
    await driver.world.changed.wait_for(
        lambda: all(
            json_of(p["embeds"][0].get("footer")) != was
            for p, was in zip((english_post, german_post), before, strict=True)
        ),
        STEP,
        "both posts' counts to be redrawn",
    )
    footers = [p["embeds"][0]["footer"]["text"] for p in (english_post, german_post)]
    assert len({re.sub(r"#\d+", "#", footer) for footer in footers}) == 1, footers  # "#2 <task>"
    assert public_view(german_post) == public_view(english_post)

    # /hint: the price of the hint, privately, in each one's language.
    halved = "Points for this task are halved now that you've seen it. Good luck!"
    hints = {}
    for who, channel in ((ann, hers), (jonas, his)):
        reply = await reply_of(driver.slash("hint", user=who, channel=channel))
        assert is_ephemeral(reply)
        hints[who.user.username] = text_of(reply)
    assert translated("de", halved) in hints["jonas"] and halved not in hints["jonas"]
    assert halved in hints["ann"]


async def test_a_server_set_to_french_gets_its_daily_quiz_and_summary_in_french(
    driver: Driver, quizbot: QuizBotRunner
) -> None:
    guild = driver.create_guild("Study Group")  # Discord says English; the moderators chose
    owner: Member = guild.members[guild.owner_id]
    members = [driver.add_member(guild, name) for name in ("alice", "bob", "carol")]
    alice, bob, carol = members  # English clients: their private replies stay English
    daily_channel = driver.create_text_channel(guild, "daily")
    await quizbot.sync(guild)
    await quizbot.start()

    chosen = await reply_of(
        driver.slash(
            "config language", user=owner, channel=daily_channel, options={"language": "fr"}
        )
    )
    assert is_ephemeral(chosen) and "français" in text_of(chosen)
    daily, run = await daily_quiz_posted(
        quizbot, owner, daily_channel, difficulty="easy", topic="MLOps"
    )

    # The post's first line: "Daily quiz" and the date, as French writes them.
    with speaking("fr"):
        day = formats.pattern_date(date.fromisoformat(run["local_date"]), _("EEE dd MMM y"))
    header = translated("fr", "📅 **Daily quiz** · {date}").format(date=day)
    assert daily["content"].startswith(header), daily["content"]
    assert "Daily quiz" not in daily["content"]

    [post] = quizbot.query("SELECT * FROM post WHERE id = ?", int(run["post_ids"]))
    task, post_id = post["task_id"], int(post["id"])
    right, wrong = ANSWERS[task][0], wrong_option(task)
    for who, option in ((alice, right), (bob, wrong), (bob, right), (carol, wrong)):
        reply = await reply_of(click(driver, daily, f"quiz:ans:{post_id}:{option}", user=who))
        assert is_ephemeral(reply)
    english_reply = text_of(reply)  # carol's miss: private, in her client's English
    assert shows(english_reply, "Not quite: **{chosen}** isn't it.")

    closed = await daily_quiz_closed(quizbot, daily, run)
    summary = closed["content"]
    assert shows(summary, translated("fr", "{header} · closed")), summary
    with speaking("fr"):
        figures = [
            ngettext("**{n}** answered", "**{n}** answered", 3).format(n=formats.number(3)),
            ngettext("**{n}** solved", "**{n}** solved", 2).format(n=formats.number(2)),
        ]
    for figure in figures:
        assert figure in summary, summary
    for template in ("**Answer:** {answer}", "**Top answerers:** {ranked}", "**Common mistakes:**"):
        assert shows(summary, translated("fr", template)), summary
        assert not shows(summary, template), summary
    assert not shows(summary, "{header} · closed"), summary
