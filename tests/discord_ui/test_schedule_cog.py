"""/schedule and /config through the real command tree, the bot's scheduler, and its Discord
side (bot/discord_ui/poster.py).

Interactions are raw payloads dispatched through discord.py's ConnectionState (the shared
`Driver`); the server is in the guild cache as the gateway would have put it there, so role
and channel options resolve as in production.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import aiohttp
import discord
import pytest
from discord.http import Route

from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.schedule import ScheduleCog
from bot.discord_ui.poster import DiscordPoster, post_ids_of
from bot.quiz.rules import MAX_SCHEDULES
from bot.schedule.runner import PosterError
from bot.store import posts
from bot.store.schedules import ScheduleInfo
from tests.discord_ui.conftest import AUTOCOMPLETE, COMMAND, BotFactory, Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOT_ID,
    CHANNEL_ID,
    GUILD_ID,
    MOD,
    OTHER_CHANNEL_ID,
    Call,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
    user_payload,
)
from tests.factories import Clock

TUTORS = 555
TUTOR = Member(444, "tutor", roles=(TUTORS,))
NO_EMBEDS_CHANNEL_ID = 700000000000000003
NO_THREADS_CHANNEL_ID = 700000000000000004
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    read_message_history=True,
    create_public_threads=True,
    send_messages_in_threads=True,
)
STRING, INTEGER, BOOLEAN, CHANNEL, ROLE = 3, 4, 5, 7, 8
SUB_COMMAND = 1
REFUSED = "Only moderators can do that"


@dataclass(frozen=True)
class Channel:
    id: int


@dataclass(frozen=True)
class Role:
    id: int


def _role(role_id: int, name: str, permissions: discord.Permissions) -> dict[str, Any]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "hoist": False,
        "position": 0 if role_id == GUILD_ID else 1,
        "permissions": str(permissions.value),
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def _channel(channel_id: int, name: str, overwrites: list[dict[str, Any]] | None = None) -> dict:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(GUILD_ID),
        "name": name,
        "position": 0,
        "permission_overwrites": overwrites or [],
        "nsfw": False,
        "parent_id": None,
    }


NO_EMBEDS = discord.Permissions(embed_links=True)


def cache_guild(bot: QuizBot) -> None:
    """The server as GUILD_CREATE delivers it: channels, roles and the bot's own member."""
    deny_embeds = [{"id": str(GUILD_ID), "type": 0, "allow": "0", "deny": str(NO_EMBEDS.value)}]
    bot._connection._add_guild_from_data(  # type: ignore[arg-type]
        {
            "id": str(GUILD_ID),
            "name": "Study group",
            "owner_id": "1",
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [
                _role(GUILD_ID, "@everyone", BOT_PERMISSIONS),
                _role(TUTORS, "tutors", discord.Permissions.none()),
            ],
            "channels": [
                _channel(CHANNEL_ID, "study-room"),
                _channel(OTHER_CHANNEL_ID, "daily"),
                _channel(NO_EMBEDS_CHANNEL_ID, "plain", deny_embeds),
            ],
            "members": [
                {
                    "user": {**user_payload(BOT_ID, "quizbot"), "bot": True},
                    "roles": [],
                    "joined_at": "2024-01-01T00:00:00+00:00",
                    "deaf": False,
                    "mute": False,
                    "flags": 0,
                }
            ],
            "member_count": 1,
        }
    )


def option(name: str, value: Any, resolved: dict[str, Any]) -> dict[str, Any]:
    if isinstance(value, Channel):
        resolved.setdefault("channels", {})[str(value.id)] = {
            **_channel(value.id, "daily"),
            "permissions": str(discord.Permissions.all().value),
        }
        return {"name": name, "type": CHANNEL, "value": str(value.id)}
    if isinstance(value, Role):
        resolved.setdefault("roles", {})[str(value.id)] = _role(
            value.id, "tutors", discord.Permissions.none()
        )
        return {"name": name, "type": ROLE, "value": str(value.id)}
    if isinstance(value, bool):
        return {"name": name, "type": BOOLEAN, "value": value}
    if isinstance(value, int):
        return {"name": name, "type": INTEGER, "value": value}
    return {"name": name, "type": STRING, "value": value}


def subcommand_data(
    group: str, sub: str, *, focused: str | None = None, **options: Any
) -> dict[str, Any]:
    resolved: dict[str, Any] = {}
    opts = []
    for key, value in options.items():
        if value is None:
            continue
        opt = option(key, value, resolved)
        if key == focused:
            opt["focused"] = True
        opts.append(opt)
    data: dict[str, Any] = {
        "id": "1",
        "name": group,
        "type": 1,
        "options": [{"name": sub, "type": SUB_COMMAND, "options": opts}],
    }
    if resolved:
        data["resolved"] = resolved
    return data


class ScheduleDriver:
    def __init__(self, driver: Driver, fake: FakeDiscordHTTP, cog: ScheduleCog) -> None:
        self.driver = driver
        self.fake = fake
        self.cog = cog
        self.scheduler = driver.bot.scheduler

    async def run(
        self, command: str, *, member: Member = MOD, guild: bool = True, **options: Any
    ) -> Call:
        """`guild` False: sent from a DM, as a crafted payload can be."""
        group, sub = command.split()
        payload = interaction_payload(
            self.fake,
            kind=COMMAND,
            data=subcommand_data(group, sub, **options),
            member=member,
            guild=guild,
        )
        before = len(self.fake.replies())
        await self.driver.dispatch(payload)
        replies = self.fake.replies()
        assert len(replies) > before, f"/{command} gave no reply"
        return replies[-1]

    async def autocomplete(
        self, command: str, focused: str, *, member: Member = MOD, **options: Any
    ) -> list[Any]:
        group, sub = command.split()
        data = subcommand_data(group, sub, focused=focused, **options)
        payload = interaction_payload(self.fake, kind=AUTOCOMPLETE, data=data, member=member)
        await self.driver.dispatch(payload)
        call = self.fake.callbacks()[-1]
        assert call.callback_type == 8
        return [c["value"] for c in call.json["data"]["choices"]]

    async def schedules(self) -> list[ScheduleInfo]:
        return await self.scheduler.schedules_of(GUILD_ID)


@pytest.fixture
async def cog(bot: QuizBot) -> ScheduleCog:
    """The cog as the bot loaded it. The scheduler's loop waits for the gateway, which these
    tests never connect: they drive its ticks themselves."""
    cache_guild(bot)
    loaded = bot.get_cog("ScheduleCog")
    assert loaded is not None
    return loaded  # type: ignore[return-value]


@pytest.fixture
def sd(driver: Driver, fake: FakeDiscordHTTP, cog: ScheduleCog) -> ScheduleDriver:
    return ScheduleDriver(driver, fake, cog)


ADD = {"channel": Channel(OTHER_CHANNEL_ID), "time": "09:00", "timezone": "Europe/Berlin"}


# -- who may use the commands ------------------------------------------------------------------

MODERATOR_COMMANDS: list[tuple[str, dict[str, Any]]] = [
    ("schedule add", ADD),
    ("schedule list", {}),
    ("schedule remove", {"id": 1}),
    ("schedule pause", {"id": 1}),
    ("schedule resume", {"id": 1}),
    ("config timezone", {"zone": "Asia/Tokyo"}),
    ("config modrole", {"role": Role(TUTORS)}),
    ("config posting", {"policy": "mods"}),
]


async def refused_touching_nothing(
    sd: ScheduleDriver, bot: QuizBot, command: str, options: dict[str, Any], **sent: Any
) -> str:
    """Run a moderator command (`sent`: who, from where) beside a schedule: its private
    reply's text, after checking it changed no schedule or setting and posted nothing."""
    await sd.scheduler.add_schedule(
        guild_id=GUILD_ID,
        channel_id=CHANNEL_ID,
        local_time="08:00",
        timezone="UTC",
        created_by=MOD.id,
    )
    before = (await sd.schedules(), await bot.service.guild_config(GUILD_ID))
    reply = await sd.run(command, **sent, **options)
    assert reply.ephemeral
    assert (await sd.schedules(), await bot.service.guild_config(GUILD_ID)) == before
    assert sd.fake.posts() == []
    return reply.text


@pytest.mark.parametrize(("command", "options"), MODERATOR_COMMANDS, ids=lambda v: str(v))
async def test_a_member_without_manage_server_is_refused_whatever_the_client_shows(
    sd: ScheduleDriver, bot: QuizBot, command: str, options: dict[str, Any]
) -> None:
    """The payload says ALICE lacks Manage Server; nothing in the client hid the command."""
    assert REFUSED in await refused_touching_nothing(sd, bot, command, options, member=ALICE)


@pytest.mark.parametrize(("command", "options"), MODERATOR_COMMANDS, ids=lambda v: str(v))
async def test_a_moderator_command_from_a_dm_is_refused_as_server_only(
    sd: ScheduleDriver,
    bot: QuizBot,
    caplog: pytest.LogCaptureFixture,
    command: str,
    options: dict[str, Any],
) -> None:
    """The group is server-only in the client; a crafted payload from a DM still arrives, and
    the moderator who sent it must not be told they lack Manage Server."""
    text = await refused_touching_nothing(sd, bot, command, options, member=MOD, guild=False)
    assert text == "This command only works in a server."
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


@pytest.mark.parametrize(("command", "options"), MODERATOR_COMMANDS, ids=lambda v: str(v))
async def test_a_member_with_the_mod_role_is_allowed(
    sd: ScheduleDriver, bot: QuizBot, command: str, options: dict[str, Any]
) -> None:
    await bot.service.update_guild_config(GUILD_ID, mod_role_id=TUTORS)
    await sd.scheduler.add_schedule(
        guild_id=GUILD_ID,
        channel_id=CHANNEL_ID,
        local_time="08:00",
        timezone="UTC",
        created_by=MOD.id,
    )
    reply = await sd.run(command, member=TUTOR, **options)
    assert reply.ephemeral
    assert REFUSED not in reply.text
    assert "went wrong" not in reply.text


async def test_the_role_counts_only_once_configured(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule list", member=TUTOR)
    assert REFUSED in reply.text


async def test_commands_hint_manage_server_and_stay_out_of_dms(bot: QuizBot) -> None:
    for name in ("schedule", "config"):
        group = bot.tree.get_command(name)
        assert isinstance(group, discord.app_commands.Group)
        assert group.default_permissions == discord.Permissions(manage_guild=True)
        assert group.guild_only


def option_choices(bot: QuizBot, path: str, option: str) -> list[tuple[str, str]]:
    """An option's choices as Discord receives them when the commands are synced."""
    name, *sub = path.split()
    command = bot.tree.get_command(name)
    payload = command.to_dict(bot.tree)  # type: ignore[union-attr]
    options = payload["options"]
    if sub:
        (options,) = [o["options"] for o in options if o["name"] == sub[0]]
    (wanted,) = [o for o in options if o["name"] == option]
    return [(c["name"], c["value"]) for c in wanted["choices"]]


async def test_enum_options_are_offered_by_their_values(bot: QuizBot) -> None:
    """One difficulty parameter for /quiz and /schedule add, shown as members know the words
    (and as 0.1.0 synced them, so no re-sync is needed)."""
    levels = [("easy", "easy"), ("medium", "medium"), ("hard", "hard")]
    assert option_choices(bot, "quiz", "difficulty") == levels
    assert option_choices(bot, "schedule add", "difficulty") == levels
    assert option_choices(bot, "config posting", "policy") == [("anyone",) * 2, ("mods",) * 2]
    assert [v for _, v in option_choices(bot, "leaderboard", "period")] == ["today", "week", "all"]


# -- /schedule add -----------------------------------------------------------------------------


async def test_add_creates_a_schedule_and_says_when_it_first_posts(sd: ScheduleDriver) -> None:
    reply = await sd.run(
        "schedule add", **ADD, topic="mlops", difficulty="easy", count=2, thread=True
    )
    (info,) = await sd.schedules()
    assert (info.channel_id, info.local_time, info.timezone) == (
        OTHER_CHANNEL_ID,
        "09:00",
        "Europe/Berlin",
    )
    assert (info.topic, info.difficulty, info.count, info.open_thread) == ("MLOps", "easy", 2, True)
    assert info.created_by == MOD.id
    assert reply.ephemeral
    assert f"Scheduled **#{info.id}**" in reply.text
    assert "<t:" in reply.text and f"<#{OTHER_CHANNEL_ID}>" in reply.text


@pytest.mark.parametrize("time", ["9am", "24:00", "12:75", "noon"])
async def test_add_refuses_a_bad_time_clearly(sd: ScheduleDriver, time: str) -> None:
    reply = await sd.run("schedule add", **{**ADD, "time": time})
    assert reply.ephemeral
    assert "HH:MM" in reply.text or "hours go 00-23" in reply.text
    assert await sd.schedules() == []


@pytest.mark.parametrize(
    ("options", "refusal"),
    [
        ({"count": 0}, "The `count` option takes a whole number from 1 to 5."),
        ({"count": 6}, "The `count` option takes a whole number from 1 to 5."),
        ({"count": 999}, "The `count` option takes a whole number from 1 to 5."),
        ({"count": "3"}, "The `count` option takes a whole number from 1 to 5."),
        ({"difficulty": "extreme"}, "The `difficulty` option takes one of: easy, medium, hard."),
        ({"thread": "yes"}, "The `thread` option takes True or False."),
        ({"topic": "x" * 101}, "The `topic` option takes at most 100 characters."),
        ({"timezone": "x" * 3000}, "The `timezone` option takes at most 100 characters."),
    ],
)
async def test_add_refuses_raw_values_discords_client_would_not_send(
    sd: ScheduleDriver, options: dict[str, Any], refusal: str
) -> None:
    reply = await sd.run("schedule add", **{**ADD, **options})
    assert reply.ephemeral
    assert reply.text == refusal
    assert await sd.schedules() == []


async def test_a_typed_zone_is_quoted_back_escaped(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule add", **{**ADD, "timezone": "@everyone __Mars__"})
    assert "'@\u200beveryone \\_\\_Mars\\_\\_' is not a time zone I know" in reply.text


async def test_add_refuses_an_unknown_zone(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule add", **{**ADD, "timezone": "Mars/Olympus"})
    assert "not a time zone I know" in reply.text
    assert await sd.schedules() == []


async def test_add_defaults_to_the_server_zone(sd: ScheduleDriver, bot: QuizBot) -> None:
    await sd.run("config timezone", zone="america/new_york")
    assert (await bot.service.guild_config(GUILD_ID)).timezone == "America/New_York"
    await sd.run("schedule add", channel=Channel(OTHER_CHANNEL_ID), time="7:30")
    (info,) = await sd.schedules()
    assert (info.local_time, info.timezone) == ("07:30", "America/New_York")


async def test_add_refuses_a_topic_without_tasks(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule add", **ADD, topic="Python", difficulty="easy")
    assert "no easy Python task" in reply.text
    reply = await sd.run("schedule add", **ADD, topic="Astrology")
    assert "no topic 'Astrology'" in reply.text and "MLOps" in reply.text
    assert await sd.schedules() == []


async def test_add_refuses_a_server_at_its_limit(sd: ScheduleDriver) -> None:
    for _ in range(MAX_SCHEDULES):
        await sd.scheduler.add_schedule(
            guild_id=GUILD_ID,
            channel_id=CHANNEL_ID,
            local_time="08:00",
            timezone="UTC",
            created_by=MOD.id,
        )
    reply = await sd.run("schedule add", **ADD)
    assert reply.ephemeral
    assert f"already has {MAX_SCHEDULES} daily quizzes" in reply.text
    assert "went wrong" not in reply.text
    assert len(await sd.schedules()) == MAX_SCHEDULES


async def test_add_refuses_a_channel_the_bot_cannot_post_in(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule add", **{**ADD, "channel": Channel(NO_EMBEDS_CHANNEL_ID)})
    assert "**Embed Links**" in reply.text and "Send Messages" not in reply.text
    assert await sd.schedules() == []


# -- list, remove, pause, resume -----------------------------------------------------------------


async def test_list_shows_next_run_local_time_and_last_error(sd: ScheduleDriver) -> None:
    empty = await sd.run("schedule list")
    assert "No daily quizzes yet" in empty.text
    await sd.run("schedule add", **ADD)
    (info,) = await sd.schedules()
    now = sd.scheduler.now()
    await sd.scheduler._write(
        sd.scheduler.schedules.record_error,
        info.id,
        "Discord refused in <#1> (Missing Permissions)",
        now,
        now + timedelta(minutes=2),
    )
    reply = await sd.run("schedule list")
    assert reply.ephemeral
    text = reply.text
    next_run = sd.scheduler.next_run(info).at
    stamp = int(next_run.timestamp())
    assert f"Next: <t:{stamp}:f>" in text
    local = next_run.astimezone(info.zone)
    assert f"{local:%H:%M} Europe/Berlin" in text
    assert "⚠️ Error <t:" in text and "Missing Permissions" in text and "Retrying <t:" in text


async def test_pause_resume_remove(sd: ScheduleDriver) -> None:
    await sd.run("schedule add", **ADD)
    (info,) = await sd.schedules()
    assert "Paused" in (await sd.run("schedule pause", id=info.id)).text
    assert (await sd.schedules())[0].paused
    assert "⏸️ Paused" in (await sd.run("schedule list")).text
    assert "Resumed" in (await sd.run("schedule resume", id=info.id)).text
    assert not (await sd.schedules())[0].paused
    assert "Removed" in (await sd.run("schedule remove", id=info.id)).text
    assert await sd.schedules() == []
    assert "no daily quiz #" in (await sd.run("schedule remove", id=info.id)).text


async def test_another_servers_schedule_cannot_be_touched(sd: ScheduleDriver) -> None:
    other = await sd.scheduler.add_schedule(
        guild_id=1234, channel_id=1, local_time="08:00", timezone="UTC", created_by=1
    )
    for command in ("schedule pause", "schedule resume", "schedule remove"):
        reply = await sd.run(command, id=other.id)
        assert f"no daily quiz #{other.id}" in reply.text
    assert await sd.scheduler.schedules_of(1234) == [other]


async def test_changes_wake_the_scheduler(sd: ScheduleDriver) -> None:
    woken = sd.scheduler._woken
    await sd.run("schedule add", **ADD)
    assert woken.is_set()


# -- /config -------------------------------------------------------------------------------------


async def test_config_modrole_and_posting(sd: ScheduleDriver, bot: QuizBot) -> None:
    reply = await sd.run("config modrole", role=Role(TUTORS))
    assert f"<@&{TUTORS}>" in reply.text
    assert (await bot.service.guild_config(GUILD_ID)).mod_role_id == TUTORS
    await sd.run("config modrole")
    assert (await bot.service.guild_config(GUILD_ID)).mod_role_id is None
    await sd.run("config posting", policy="mods")
    assert (await bot.service.guild_config(GUILD_ID)).post_policy == "mods"


async def test_config_modrole_refuses_everyone(sd: ScheduleDriver, bot: QuizBot) -> None:
    await sd.run("config modrole", role=Role(TUTORS))
    reply = await sd.run("config modrole", role=Role(GUILD_ID))  # @everyone's id is the server's
    assert "can't be @everyone" in reply.text
    assert (await bot.service.guild_config(GUILD_ID)).mod_role_id == TUTORS
    # One stored before this check (by an older quizbot) makes no member a moderator.
    await bot.service.update_guild_config(GUILD_ID, mod_role_id=GUILD_ID)
    refused = await sd.run("schedule list", member=ALICE)
    assert "Only moderators" in refused.text


# -- autocomplete --------------------------------------------------------------------------------


async def test_zone_autocomplete(sd: ScheduleDriver, bot: QuizBot) -> None:
    assert await sd.autocomplete("config timezone", "zone", zone="berl") == ["Europe/Berlin"]
    assert "America/New_York" in await sd.autocomplete("schedule add", "timezone", timezone="york")
    await bot.service.update_guild_config(GUILD_ID, timezone="Asia/Tokyo")
    suggestions = await sd.autocomplete("schedule add", "timezone", timezone="")
    assert suggestions[0] == "Asia/Tokyo" and len(suggestions) <= 25
    assert len(await sd.autocomplete("config timezone", "zone", zone="a")) == 25


async def test_schedule_id_autocomplete_is_for_moderators_only(sd: ScheduleDriver) -> None:
    await sd.run("schedule add", **ADD)
    (info,) = await sd.schedules()
    assert await sd.autocomplete("schedule pause", "id", id="") == [info.id]
    assert await sd.autocomplete("schedule pause", "id", member=ALICE, id="") == []


# -- the scheduler, posting through discord.py ---------------------------------------------------


def serve_threads_and_history(
    fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> dict[int, int]:
    """What the shared fake does not answer: channel history and threads on messages.
    Returns message id → thread id, filled as threads are opened."""
    handle = fake.handle
    threads: dict[int, int] = {}

    async def more(route: Route, json: Any, params: dict[str, Any] | None) -> Any:
        if route.method == "GET" and route.path == "/channels/{channel_id}/messages":
            fake.calls.append(Call(route.method, route.path, route.url, json, params))
            params = params or {}
            after, limit = int(params.get("after", 0)), int(params.get("limit", 50))
            newer = sorted(
                (m for m in fake.messages.values() if int(m["channel_id"]) == route.channel_id),
                key=lambda m: int(m["id"]),
            )
            oldest = [m for m in newer if int(m["id"]) > after][:limit]
            return list(reversed(oldest))  # Discord answers newest first
        if route.path == "/channels/{channel_id}/messages/{message_id}/threads":
            fake.calls.append(Call(route.method, route.path, route.url, json, params))
            message_id = int(route.url.rsplit("/", 2)[-2])
            if message_id in threads:
                raise discord.HTTPException(_Response(400), {"code": 160004, "message": "exists"})
            thread_id = threads[message_id] = fake.next_id()
            return {
                "id": str(thread_id),
                "type": 11,
                "guild_id": str(GUILD_ID),
                "parent_id": str(route.channel_id),
                "owner_id": str(BOT_ID),
                "name": json["name"],
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": json["auto_archive_duration"],
                    "archive_timestamp": "2025-01-01T00:00:00+00:00",
                    "locked": False,
                },
                "message_count": 0,
                "member_count": 1,
                "rate_limit_per_user": 0,
            }
        return await handle(route, json, params)

    monkeypatch.setattr(fake, "handle", more)
    return threads


class _Response:
    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = "error"


@pytest.fixture
def threads(fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch) -> dict[int, int]:
    return serve_threads_and_history(fake, monkeypatch)


@pytest.fixture
def clock(cog: ScheduleCog, bot: QuizBot, threads: dict[int, int]) -> Clock:
    clock = Clock(datetime(2025, 3, 2, 7, 0, tzinfo=UTC))
    bot.scheduler.clock = clock
    bot.service.clock = clock
    return clock


def channel_messages(fake: FakeDiscordHTTP, channel_id: int) -> list[dict[str, Any]]:
    return [m for m in fake.messages.values() if int(m["channel_id"]) == channel_id]


async def test_a_daily_quiz_posts_closes_with_its_result_and_refuses_late_answers(
    sd: ScheduleDriver, fake: FakeDiscordHTTP, clock: Clock, driver: Driver, threads: dict[int, int]
) -> None:
    await sd.run("schedule add", **ADD, topic="MLOps", difficulty="easy", thread=True)
    clock.now = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
    await sd.scheduler.tick()

    (post,) = channel_messages(fake, OTHER_CHANNEL_ID)
    assert post["content"] == "📅 **Daily quiz** · Sun 02 Mar 2025"
    embed = post["embeds"][0]
    assert embed["title"] == "Multiple choice · MLOps"
    closes = int(datetime(2025, 3, 3, 8, 0, tzinfo=UTC).timestamp())
    assert {"name": "Closes", "value": f"<t:{closes}:R>", "inline": False} in embed["fields"]
    # The discussion thread: the explanation, behind a spoiler.
    (thread_message,) = [
        m for m in fake.messages.values() if m["channel_id"] == str(threads[int(post["id"])])
    ]
    assert thread_message["content"].endswith(
        "||Data parallelism copies the model and splits the data.||"
    )

    for member, pick in ((ALICE, "A"), (ALICE, "B"), (MOD, "B"), (TUTOR, "C"), (TUTOR, "B")):
        await driver.click(post, rf"quiz:ans:\d+:{pick}", member=member)

    clock.now = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)
    await sd.scheduler.tick()
    await driver.bot.live_counts.drain()
    closed = fake.messages[int(post["id"])]
    assert closed["content"].startswith("📅 **Daily quiz** · Sun 02 Mar 2025 · closed\n")
    assert "**3** answered · **3** solved · **1** on the first try" in closed["content"]
    assert "33% picked A — Model parallelism splits the model itself." in closed["content"]
    assert "33% picked C — Flushing is about pipeline bubbles." in closed["content"]
    assert closed["embeds"][0]["footer"]["text"].startswith("3 answered · 3 solved · closed")
    assert post_ids_of_payload(closed)  # the buttons stay
    assert len(channel_messages(fake, OTHER_CHANNEL_ID)) == 2  # and today's quiz is out

    await driver.click(closed, r"quiz:ans:\d+:B", member=Member(999, "late"))
    assert "This quiz has closed" in fake.last_reply().text


async def test_a_discord_outage_at_the_closing_time_delays_the_result_but_does_not_lose_it(
    sd: ScheduleDriver, fake: FakeDiscordHTTP, clock: Clock, driver: Driver
) -> None:
    await sd.run("schedule add", **ADD, topic="MLOps", difficulty="easy")
    clock.now = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)
    await sd.scheduler.tick()
    (post,) = channel_messages(fake, OTHER_CHANNEL_ID)
    await driver.click(post, r"quiz:ans:\d+:B", member=ALICE)
    await driver.bot.live_counts.drain()

    edit = "/channels/{channel_id}/messages/{message_id}"
    fake.fail[edit] = discord.DiscordServerError(
        _Response(503), {"code": 0, "message": "Service Unavailable"}
    )
    clock.now = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)
    await sd.scheduler.tick()
    assert "closed" not in fake.messages[int(post["id"])]["content"]
    assert len(channel_messages(fake, OTHER_CHANNEL_ID)) == 2  # today's quiz is out regardless
    await driver.click(post, r"quiz:ans:\d+:B", member=MOD)
    assert "This quiz has closed" in fake.last_reply().text  # closed for answers on time

    del fake.fail[edit]
    clock.now += timedelta(minutes=1)
    await sd.scheduler.tick()
    closed = fake.messages[int(post["id"])]["content"]
    assert closed.startswith("📅 **Daily quiz** · Sun 02 Mar 2025 · closed\n")
    assert "**1** answered · **1** solved · **1** on the first try" in closed


def post_ids_of_payload(message: dict[str, Any]) -> set[int]:
    return {
        int(c["custom_id"].split(":")[2])
        for row in message["components"]
        for c in row.get("components", [])
        if c.get("custom_id", "").startswith("quiz:")
    }


async def test_a_crash_after_discord_accepted_the_post_is_reconciled_from_history(
    sd: ScheduleDriver,
    fake: FakeDiscordHTTP,
    clock: Clock,
    bot: QuizBot,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The fake's message ids are snowflakes of one moment in 2015: post at that moment, so
    # that "after the claim" in the channel history means what it does on Discord.
    moment = discord.utils.snowflake_time(fake.next_id())
    due = moment.replace(second=0, microsecond=0)
    clock.now = due - timedelta(minutes=10)
    await sd.run("schedule add", **{**ADD, "time": f"{due:%H:%M}", "timezone": "UTC"})
    clock.now = due

    class Crash(BaseException):
        pass

    real_attach = posts.set_post_message

    def crash(conn: object, post_id: int, message_id: int) -> None:
        raise Crash

    monkeypatch.setattr(posts, "set_post_message", crash)
    with pytest.raises(Crash):
        await sd.scheduler.tick()
    (sent,) = channel_messages(fake, OTHER_CHANNEL_ID)
    monkeypatch.setattr(posts, "set_post_message", real_attach)

    (run,) = sd.scheduler.schedules.pending_runs((await sd.schedules())[0].id)
    clock.now += timedelta(minutes=1)
    await sd.scheduler.tick()
    assert channel_messages(fake, OTHER_CHANNEL_ID) == [sent]  # not posted twice
    posted = await bot.service.posted(run.post_ids[0])
    assert posted.post.message_id == int(sent["id"])
    history = [c for c in fake.calls if c.method == "GET" and c.path.endswith("/messages")]
    assert len(history) == 1


async def test_a_refused_channel_is_recorded_and_shown(
    sd: ScheduleDriver, fake: FakeDiscordHTTP, clock: Clock
) -> None:
    await sd.run("schedule add", **ADD)
    fake.fail["/channels/{channel_id}/messages"] = discord.Forbidden(
        _Response(403), {"code": 50013, "message": "Missing Permissions"}
    )
    clock.now = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)
    await sd.scheduler.tick()
    (info,) = await sd.schedules()
    assert info.last_error is not None
    assert "Missing Permissions" in info.last_error and f"<#{OTHER_CHANNEL_ID}>" in info.last_error
    assert "Missing Permissions" in (await sd.run("schedule list")).text


async def test_a_lost_connection_at_the_posting_time_is_one_line_and_posts_once_back(
    sd: ScheduleDriver, fake: FakeDiscordHTTP, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord out of reach is Discord's trouble, not our bug: /schedule list says so, the log
    has one line, and the quiz goes out once when Discord is back."""
    await sd.run("schedule add", **ADD)
    fake.fail["/channels/{channel_id}/messages"] = aiohttp.ClientConnectionError(
        "Connection reset by peer"
    )
    clock.now = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)
    with caplog.at_level(logging.WARNING, logger="bot.schedule.runner"):
        await sd.scheduler.tick()
    (info,) = await sd.schedules()
    assert info.last_error is not None and info.last_error.startswith("no connection to Discord")
    assert "no connection to Discord" in (await sd.run("schedule list")).text
    assert [r.levelno for r in caplog.records if r.exc_info] == []

    del fake.fail["/channels/{channel_id}/messages"]
    clock.now += timedelta(minutes=1)
    await sd.scheduler.tick()
    assert len(channel_messages(fake, OTHER_CHANNEL_ID)) == 1
    (info,) = await sd.schedules()
    assert info.last_error is None


async def test_poster_maps_a_deleted_channel_to_a_poster_error(
    cog: ScheduleCog, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    fake.fail["/channels/{channel_id}/messages"] = discord.NotFound(
        _Response(404), {"code": 10003, "message": "Unknown Channel"}
    )
    posted = await bot.service.create_post(
        GUILD_ID, 424242, bot.service.catalog.get_or_raise("mc-split"), None
    )
    with pytest.raises(PosterError, match="Unknown Channel"):
        await DiscordPoster(bot).post(posted, extra="x")


async def test_post_ids_of_reads_the_buttons(
    cog: ScheduleCog, fake: FakeDiscordHTTP, bot: QuizBot, driver: Driver
) -> None:
    message = await driver.post("mc-split")
    channel = bot.get_channel(CHANNEL_ID)
    parsed = discord.Message(state=bot._connection, channel=channel, data=message)  # type: ignore[arg-type]
    assert post_ids_of(parsed) == {1}


async def test_the_bot_starts_the_loop_when_ready_and_stops_it_on_close(
    make_bot: BotFactory,
) -> None:
    bot = await make_bot()
    scheduler = bot.scheduler
    await asyncio.sleep(0.01)
    assert scheduler._task is None  # not before the gateway is ready
    bot._ready.set()  # type: ignore[union-attr]
    for _ in range(100):
        if scheduler._task is not None:
            break
        await asyncio.sleep(0.01)
    task = scheduler._task
    assert task is not None and not task.done()
    await bot.close()
    assert task.done() and scheduler._task is None


async def test_a_bot_told_not_to_run_the_scheduler_never_starts_it(
    make_bot: BotFactory,
) -> None:
    bot = await make_bot(run_scheduler=False)
    bot._ready.set()  # type: ignore[union-attr]
    await asyncio.sleep(0.05)
    assert bot.scheduler._task is None


@pytest.mark.parametrize(
    ("denied", "missing", "not_missing"),
    [
        # The thread cannot be opened at all.
        (discord.Permissions(create_public_threads=True), "Create Public Threads", "Embed Links"),
        # Each day's thread would open empty, its explanation refused.
        (
            discord.Permissions(send_messages_in_threads=True),
            "Send Messages in Threads",
            "Create Public",
        ),
    ],
    ids=["open", "write"],
)
async def test_add_with_a_thread_refuses_a_channel_where_the_bot_cannot_use_threads(
    sd: ScheduleDriver,
    bot: QuizBot,
    denied: discord.Permissions,
    missing: str,
    not_missing: str,
) -> None:
    deny = [{"id": str(GUILD_ID), "type": 0, "allow": "0", "deny": str(denied.value)}]
    guild = bot.get_guild(GUILD_ID)
    assert guild is not None
    guild._add_channel(
        discord.TextChannel(
            state=bot._connection, guild=guild, data=_channel(NO_THREADS_CHANNEL_ID, "nt", deny)
        )
    )
    where = {**ADD, "channel": Channel(NO_THREADS_CHANNEL_ID)}
    reply = await sd.run("schedule add", **where, thread=True)
    assert reply.ephemeral
    assert f"**{missing}**" in reply.text and not_missing not in reply.text
    assert await sd.schedules() == []
    # Without a thread the same channel is fine.
    await sd.run("schedule add", **where)
    assert len(await sd.schedules()) == 1


async def test_list_and_autocomplete_show_thread_last_result_and_paused(
    sd: ScheduleDriver,
) -> None:
    await sd.run("schedule add", **ADD, thread=True)
    (info,) = await sd.schedules()
    now = sd.scheduler.now()
    sd.scheduler.schedules.skip(
        info.id, date(2024, 5, 1), scheduled_for=now, reason="missed the grace window", now=now
    )
    text = (await sd.run("schedule list")).text
    assert "· with a discussion thread" in text
    assert "Last: skipped 2024-05-01: missed the grace window" in text
    await sd.run("schedule pause", id=info.id)
    sd.fake.clear()
    await sd.autocomplete("schedule resume", "id", id="")
    (choice,) = sd.fake.callbacks()[-1].json["data"]["choices"]
    assert choice["name"].endswith(" · paused")


async def test_a_thread_opened_before_a_crash_is_not_an_error_nor_opened_twice(
    sd: ScheduleDriver, fake: FakeDiscordHTTP, clock: Clock, bot: QuizBot, threads: dict[int, int]
) -> None:
    await sd.run("schedule add", **ADD, topic="MLOps", difficulty="easy", thread=True)
    clock.now = datetime(2025, 3, 2, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
    await sd.scheduler.tick()
    (post,) = channel_messages(fake, OTHER_CHANNEL_ID)
    (thread_id,) = threads.values()
    run = sd.scheduler.schedules.run((await sd.schedules())[0].id, date(2025, 3, 2))
    assert run is not None
    posted = await bot.service.posted(run.post_ids[0])
    # A restart resumes the day at its thread: Discord answers that it exists (160004).
    await sd.scheduler.poster.open_thread(posted, int(post["id"]), name="again", text="again")
    assert threads == {int(post["id"]): thread_id}
    in_thread = [m for m in fake.messages.values() if m["channel_id"] == str(thread_id)]
    assert len(in_thread) == 1 and in_thread[0]["content"] != "again"


async def test_a_refused_discussion_thread_names_the_thread_permissions(
    cog: ScheduleCog, fake: FakeDiscordHTTP, bot: QuizBot, driver: Driver
) -> None:
    # The post went out (the bot has the posting permissions), so the note in /schedule list
    # must point at what is missing for the thread, not repeat the posting permissions.
    message = await driver.post("mc-split")
    fake.fail["/channels/{channel_id}/messages/{message_id}/threads"] = discord.Forbidden(
        _Response(403), {"code": 50013, "message": "Missing Permissions"}
    )
    posted = await bot.service.posted(1)
    with pytest.raises(PosterError) as refused:
        await DiscordPoster(bot).open_thread(posted, int(message["id"]), name="n", text="t")
    text = str(refused.value)
    assert "Create Public Threads" in text and "Send Messages in Threads" in text
    assert "Embed Links" not in text


async def test_pause_or_resume_twice_says_it_is_already_so(sd: ScheduleDriver) -> None:
    await sd.run("schedule add", **ADD)
    (info,) = await sd.schedules()
    reply = await sd.run("schedule resume", id=info.id)
    assert f"#{info.id}** is not paused" in reply.text and "Resumed" not in reply.text
    await sd.run("schedule pause", id=info.id)
    reply = await sd.run("schedule pause", id=info.id)
    assert f"#{info.id}** is paused already" in reply.text
    assert (await sd.schedules())[0].paused
