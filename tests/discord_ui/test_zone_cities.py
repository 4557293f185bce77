"""Every place a zone is typed on Discord takes a city, in any case, and tzdata's backward
names (issue 26, class 10): /schedule add, /config timezone and /reminders on all resolve
through bot/schedule/zones.py. An ambiguous city is a private reply naming the candidates."""

from __future__ import annotations

import pytest

from bot.discord_ui.client import QuizBot
from bot.discord_ui.cogs.schedule import ScheduleCog
from tests.discord_ui.conftest import COMMAND, Driver
from tests.discord_ui.fakes import ALICE, GUILD_ID, FakeDiscordHTTP, interaction_payload
from tests.discord_ui.test_schedule_cog import (
    ADD,
    ScheduleDriver,
    cache_guild,
    subcommand_data,
)
from tests.reminder_reads import reminder_on


@pytest.fixture
def sd(driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot) -> ScheduleDriver:
    cache_guild(bot)
    cog: ScheduleCog | None = bot.get_cog("ScheduleCog")  # type: ignore[assignment]
    assert cog is not None
    return ScheduleDriver(driver, fake, cog)


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("berlin", "Europe/Berlin"), ("NEW YORK", "America/New_York"), ("Kiev", "Europe/Kiev")],
)
async def test_schedule_add_takes_a_city(sd: ScheduleDriver, typed: str, zone: str) -> None:
    reply = await sd.run("schedule add", **{**ADD, "timezone": typed})
    (info,) = await sd.schedules()
    assert info.timezone == zone
    assert f"**09:00** {zone}" in reply.text


async def test_config_timezone_takes_a_city_and_a_backward_name(
    sd: ScheduleDriver, bot: QuizBot
) -> None:
    reply = await sd.run("config timezone", zone="tokyo")
    assert "Time zone set to **Asia/Tokyo**" in reply.text
    await sd.run("config timezone", zone="europe/kiev")
    assert (await bot.service.guild_config(GUILD_ID)).timezone == "Europe/Kiev"


async def test_an_ambiguous_city_is_refused_naming_the_zones(
    sd: ScheduleDriver, bot: QuizBot
) -> None:
    reply = await sd.run("schedule add", **{**ADD, "timezone": "Central"})
    assert reply.ephemeral
    assert "'Central' could be any of Canada/Central, US/Central: give the full name" in reply.text
    assert await sd.schedules() == []
    reply = await sd.run("config timezone", zone="eastern")
    assert "Canada/Eastern, US/Eastern" in reply.text
    assert (await bot.service.guild_config(GUILD_ID)).timezone is None


async def test_localtime_is_refused_everywhere_a_zone_is_typed(sd: ScheduleDriver) -> None:
    reply = await sd.run("schedule add", **{**ADD, "timezone": "localtime"})
    assert "not a time zone I know" in reply.text
    reply = await sd.run("config timezone", zone="localtime")
    assert "not a time zone I know" in reply.text


async def test_reminders_on_takes_a_city(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    cache_guild(bot)
    payload = interaction_payload(
        fake,
        kind=COMMAND,
        data=subcommand_data("reminders", "on", hour=7, timezone="berlin"),
        member=ALICE,
    )
    await driver.dispatch(payload)
    reply = fake.replies()[-1]
    assert "07:00 Europe/Berlin** (your time zone)" in reply.text
    stored = reminder_on(bot.service.store, GUILD_ID, ALICE.id)
    assert stored is not None and stored.zone == "Europe/Berlin"
