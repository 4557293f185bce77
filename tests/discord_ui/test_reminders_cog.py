"""/reminders through the real command tree, and the reminder DM through discord.py (the fake
HTTP below it): the ephemeral replies, refusals of a bad hour or zone, the DM itself, and
Discord's 403 "Cannot send messages to this user" turning the reminder off. Also /stats
drawing the reviews due."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import Route

from bot.discord_ui.client import QuizBot
from bot.store.answers import save_cards
from bot.store.review_cards import StoredCard
from tests.discord_ui.conftest import AUTOCOMPLETE, COMMAND, Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    GUILD_ID,
    Call,
    FakeDiscordHTTP,
    interaction_payload,
    response,
    user_payload,
)
from tests.discord_ui.test_schedule_cog import cache_guild, subcommand_data
from tests.reminder_reads import reminder_on

NOW = datetime(2025, 6, 2, 12, 0, tzinfo=UTC)
"""A Monday, 14:00 in Berlin."""
DM_CHANNEL_ID = 600000000000000001
MESSAGES = "/channels/{channel_id}/messages"
MEMBER = "/guilds/{guild_id}/members/{member_id}"


class Members:
    """Who the fake Discord says is in the server (GET /guilds/{id}/members/{user})."""

    def __init__(self) -> None:
        self.left: set[int] = set()


@pytest.fixture
def dms(fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch) -> Members:
    """The fake Discord also opens DM channels (POST /users/@me/channels), as Discord does
    for any user; a message to one is then an ordinary channel message (`sent_dms`). It
    knows the server (GET /guilds/{id}) and its members, but for those who `left`; a route in
    `fake.fail` fails here too."""
    handle = fake.handle
    members = Members()

    async def with_dms(route: Route, json: Any, params: Any, *form: Any) -> Any:
        fake.calls.append(Call(route.method, route.path, route.url, json, params))
        failure = fake.fail.get(route.path)
        if failure is not None:
            raise failure if isinstance(failure, BaseException) else failure()
        if route.method == "POST" and route.path == "/users/@me/channels":
            recipient = user_payload(int(json["recipient_id"]), "member")
            return {"id": str(DM_CHANNEL_ID), "type": 1, "recipients": [recipient]}
        if route.method == "GET" and route.path == "/guilds/{guild_id}":
            return {"id": str(GUILD_ID), "name": "Study group", "owner_id": "1", "roles": []}
        if route.method == "GET" and route.path == "/guilds/{guild_id}/members/{member_id}":
            user_id = int(route.url.rsplit("/", 1)[1])
            if user_id in members.left:
                raise discord.NotFound(response(404), {"code": 10007, "message": "Unknown Member"})
            return {
                "user": user_payload(user_id, "member"),
                "roles": [],
                "joined_at": None,
                "flags": 0,
            }
        fake.calls.pop()  # the fake records it itself
        return await handle(route, json, params, *form)

    monkeypatch.setattr(fake, "handle", with_dms)
    return members


def sent_dms(fake: FakeDiscordHTTP) -> list[Call]:
    return [c for c in fake.calls if c.method == "POST" and str(DM_CHANNEL_ID) in c.url]


@pytest.fixture
def clocked(bot: QuizBot) -> QuizBot:
    cache_guild(bot)  # "Study group"
    bot.service.clock = lambda: NOW
    return bot


async def reminders(driver: Driver, fake: FakeDiscordHTTP, sub: str, **options: Any) -> Call:
    payload = interaction_payload(
        fake, kind=COMMAND, data=subcommand_data("reminders", sub, **options), member=ALICE
    )
    before = len(fake.replies())
    await driver.dispatch(payload)
    replies = fake.replies()
    assert len(replies) > before, f"/reminders {sub} gave no reply"
    return replies[-1]


def due_card(bot: QuizBot, user_id: int, task_id: str = "mc-split") -> None:
    card = StoredCard(GUILD_ID, user_id, task_id, 2, None, 2.0, 5.0, NOW - timedelta(days=1), None)
    with bot.service.store.write() as conn:
        save_cards(conn, [card])


async def test_on_replies_privately_with_the_next_reminder(
    clocked: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await reminders(driver, fake, "on", hour=7, timezone="europe/berlin")
    assert reply.ephemeral
    assert "07:00 Europe/Berlin** (your time zone)" in reply.text
    tomorrow_7 = int(datetime(2025, 6, 3, 5, 0, tzinfo=UTC).timestamp())
    assert f"Next: <t:{tomorrow_7}:F>" in reply.text
    assert "only on days you have reviews due" in reply.text
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is not None and (stored.hour, stored.zone) == (7, "Europe/Berlin")

    reply = await reminders(driver, fake, "off")
    assert reply.ephemeral and "reminders are **off**" in reply.text
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is None  # off


async def test_server_takes_a_member_back_to_the_servers_zone(
    clocked: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    await clocked.service.update_guild_config(GUILD_ID, timezone="Asia/Tokyo")
    await reminders(driver, fake, "on", hour=7, timezone="Europe/Berlin")
    reply = await reminders(driver, fake, "on", timezone="Server")
    assert "07:00 Asia/Tokyo** (the server's time zone)" in reply.text
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is not None and (stored.hour, stored.zone) == (7, "Asia/Tokyo")
    await clocked.service.update_guild_config(GUILD_ID, timezone="America/Chicago")
    moved = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert moved is not None and moved.zone == "America/Chicago"  # it follows the server's
    payload = interaction_payload(
        fake,
        kind=AUTOCOMPLETE,
        data=subcommand_data("reminders", "on", focused="timezone", timezone="ser"),
    )
    await driver.dispatch(payload)
    offered = fake.callbacks()[-1].json["data"]["choices"]
    assert offered[0] == {"name": "server (this server's time zone)", "value": "server"}
    assert len(offered) <= 25


async def test_on_during_the_hour_says_the_dm_can_come_now(
    clocked: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await reminders(driver, fake, "on", hour=14, timezone="Europe/Berlin")  # 14:00 now
    until = int(datetime(2025, 6, 2, 13, 0, tzinfo=UTC).timestamp())
    assert "It is your reminder hour now: the DM comes as soon as you have reviews" in reply.text
    assert f"until <t:{until}:t>; otherwise tomorrow" in reply.text


async def test_on_without_options_uses_18_in_the_servers_zone(
    clocked: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    reply = await reminders(driver, fake, "on")
    assert "18:00 UTC** (the server's time zone)" in reply.text
    assert f"<t:{int(NOW.replace(hour=18).timestamp())}:F>" in reply.text


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"hour": 24}, "The `hour` option takes a whole number from 0 to 23."),
        ({"hour": "7"}, "The `hour` option takes a whole number from 0 to 23."),
        (
            {"timezone": "Mars/Olympus"},
            "is not a time zone I know. Use an IANA name such as Europe/Berlin",
        ),
    ],
)
async def test_a_bad_hour_or_zone_is_refused_privately(
    clocked: QuizBot,
    driver: Driver,
    fake: FakeDiscordHTTP,
    caplog: pytest.LogCaptureFixture,
    options: dict[str, Any],
    refusal: str,
) -> None:
    reply = await reminders(driver, fake, "on", **options)
    assert reply.ephemeral
    assert refusal in reply.text
    assert reminder_on(clocked.service.store, GUILD_ID, ALICE.id) is None
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.usefixtures("dms")
async def test_the_reminder_dm_names_the_due_reviews_and_the_server(
    clocked: QuizBot, fake: FakeDiscordHTTP
) -> None:
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    await clocked.reminders.tick(NOW)
    (dm,) = sent_dms(fake)
    assert "You have 1 review due in Study group. Use /review in Study group" in dm.text
    await clocked.reminders.tick(NOW + timedelta(minutes=5))
    assert len(sent_dms(fake)) == 1  # once a day


@pytest.mark.usefixtures("dms")
async def test_closed_dms_turn_the_reminder_off(
    clocked: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail[MESSAGES] = discord.Forbidden(
        response(403), {"code": 50007, "message": "Cannot send messages to this user"}
    )
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    with caplog.at_level(logging.INFO):
        await clocked.reminders.tick(NOW)
    assert len(sent_dms(fake)) == 1  # tried once, refused
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is None  # off
    assert "their DMs are closed" in caplog.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]
    notice = await clocked.service.take_reminder_notice(GUILD_ID, ALICE.id)
    assert notice is not None and "turned off" in notice


@pytest.mark.usefixtures("dms")
async def test_another_refusal_keeps_the_reminder_and_logs_a_warning(
    clocked: QuizBot, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail[MESSAGES] = discord.Forbidden(
        response(403), {"code": 40003, "message": "You are opening direct messages too fast."}
    )
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    await clocked.reminders.tick(NOW)
    await clocked.reminders.tick(NOW + timedelta(minutes=5))
    assert len(sent_dms(fake)) == 1  # not retried that day
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is not None  # still on
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "too fast" in warning.getMessage() and warning.exc_info is None


async def test_stats_draw_the_reviews_due(
    clocked: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:A", member=BOB)
    due_card(clocked, BOB.id)
    due_card(clocked, BOB.id, task_id="no-longer-in-the-banks")
    await driver.command("stats", member=BOB)
    (attachment,) = fake.last_reply().data["attachments"]
    assert "MLOps: 0 of 1 on the first try, 1 due for review." in attachment["description"]


async def test_a_member_who_left_gets_no_dm_and_their_reminder_goes_off(
    clocked: QuizBot, fake: FakeDiscordHTTP, dms: Members, caplog: pytest.LogCaptureFixture
) -> None:
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    dms.left.add(ALICE.id)
    with caplog.at_level(logging.INFO):
        await clocked.reminders.tick(NOW)
    assert sent_dms(fake) == []
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is None  # off
    assert "not in it any more" in caplog.text
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    "refusal",
    [
        discord.NotFound(response(404), {"code": 10004, "message": "Unknown Guild"}),
        discord.Forbidden(response(403), {"code": 50001, "message": "Missing Access"}),
    ],
    ids=["unknown-guild", "missing-access"],
)
async def test_a_server_that_removed_the_bot_gets_no_dm_and_the_reminder_goes_off(
    bot: QuizBot,
    fake: FakeDiscordHTTP,
    dms: Members,
    caplog: pytest.LogCaptureFixture,
    refusal: discord.HTTPException,
) -> None:
    """The bot was removed from the server (so it is not cached): Discord answers the server's
    lookup with 404 Unknown Guild, or 403 Missing Access as it did before 2023. Either way no
    DM, the reminder goes off, and no warning comes back every day."""
    bot.service.clock = lambda: NOW
    fake.fail["/guilds/{guild_id}"] = refusal
    await bot.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(bot, ALICE.id)
    with caplog.at_level(logging.INFO):
        await bot.reminders.tick(NOW)
    assert [c.path for c in fake.calls if c.path == "/guilds/{guild_id}"] == ["/guilds/{guild_id}"]
    assert sent_dms(fake) == []
    stored = reminder_on(bot.service.store, GUILD_ID, ALICE.id)
    assert stored is None  # off
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.WARNING]


async def test_a_server_not_in_this_processs_cache_is_still_named(
    bot: QuizBot, fake: FakeDiscordHTTP, dms: Members
) -> None:
    bot.service.clock = lambda: NOW  # no cached server: another shard's, say
    await bot.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(bot, ALICE.id)
    await bot.reminders.tick(NOW)
    (dm,) = sent_dms(fake)
    assert "1 review due in Study group" in dm.text


async def test_a_lost_connection_fails_one_dm_and_not_the_pass(
    clocked: QuizBot, fake: FakeDiscordHTTP, dms: Members, caplog: pytest.LogCaptureFixture
) -> None:
    fake.fail[MESSAGES] = aiohttp.ClientConnectionError("connection reset")
    for member in (ALICE, BOB):
        await clocked.service.turn_reminders_on(
            GUILD_ID, member.id, hour=14, timezone="Europe/Berlin"
        )
        due_card(clocked, member.id)
    await clocked.reminders.tick(NOW)
    assert len(sent_dms(fake)) == 2  # both tried
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and all("no connection" in r.getMessage() for r in warnings)
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.parametrize(
    ("route", "failure", "logged"),
    [
        (
            MESSAGES,
            discord.DiscordServerError(response(500), "Internal Server Error"),
            "Discord error 500: Internal Server Error",
        ),
        (
            MEMBER,
            discord.DiscordServerError(response(503), "Service Unavailable"),
            "Discord error 503: Service Unavailable",
        ),
        (MEMBER, aiohttp.ClientConnectionError("connection reset"), "no connection to Discord"),
    ],
    ids=["send-500", "member-lookup-503", "member-lookup-connection-lost"],
)
async def test_a_discord_failure_keeps_the_reminder_logs_one_warning_and_waits_a_day(
    clocked: QuizBot,
    fake: FakeDiscordHTTP,
    dms: Members,
    caplog: pytest.LogCaptureFixture,
    route: str,
    failure: BaseException,
    logged: str,
) -> None:
    fake.fail[route] = failure
    await clocked.service.turn_reminders_on(GUILD_ID, ALICE.id, hour=14, timezone="Europe/Berlin")
    due_card(clocked, ALICE.id)
    await clocked.reminders.tick(NOW)
    tries = [c for c in fake.calls if c.path == route]
    assert len(tries) == 1
    await clocked.reminders.tick(NOW + timedelta(minutes=5))
    assert [c for c in fake.calls if c.path == route] == tries  # not retried that day
    stored = reminder_on(clocked.service.store, GUILD_ID, ALICE.id)
    assert stored is not None  # still on
    assert await clocked.service.take_reminder_notice(GUILD_ID, ALICE.id) is None
    (warning,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warning.levelno == logging.WARNING and warning.exc_info is None
    assert logged in warning.getMessage() and "not retried today" in warning.getMessage()
    assert not [r for r in caplog.records if r.exc_info]
