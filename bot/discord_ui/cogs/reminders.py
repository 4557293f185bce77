"""/reminders on|off: a member's opt-in daily DM when reviews are due (when: bot/quiz/reminders.py).
Two subcommands, not a choice: `off` takes no hour or zone."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.clock import discord_timestamp
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import Text, WholeNumber, typed, zone_autocomplete
from bot.i18n import _
from bot.quiz.errors import StoreAction
from bot.quiz.reminders import DEFAULT_HOUR, ReminderPlan
from bot.schedule.zones import MAX_CHOICES, known_zones, resolve_zone
from bot.store import reminders

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
HourParam = app_commands.Transform[int, WholeNumber("hour", 0, 23)]
SERVER_ZONE = "server"
"""What `timezone` takes to go back to the server's zone after choosing one's own."""


async def reminder_zone_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The zones, with "server" (back to the server's zone) first while it matches."""
    zones = await zone_autocomplete(interaction, current)
    if not SERVER_ZONE.startswith(typed(current).strip().casefold()):
        return zones
    # TRANSLATORS: an autocomplete suggestion (100 characters at most); "server" is what the
    # member types, which stays English.
    back = app_commands.Choice(name=_("server (this server's time zone)"), value=SERVER_ZONE)
    return [back, *zones][:MAX_CHOICES]


def plan_text(plan: ReminderPlan) -> str:
    """The reply to `/reminders on`: when, in which zone, and exactly when the next one is."""
    # The hour as the option takes it, on the 24-hour clock, with its zone.
    at = {"time": f"{plan.hour:02d}:00", "zone": plan.zone.key}
    if plan.own_zone:
        head = _(
            "🔔 Review reminders are **on**: one DM a day at **{time} {zone}** (your time "
            "zone), only on days you have reviews due."
        ).format(**at)
    else:
        head = _(
            "🔔 Review reminders are **on**: one DM a day at **{time} {zone}** (the server's "
            "time zone), only on days you have reviews due."
        ).format(**at)
    upcoming = plan.next
    if upcoming.current:
        when = _(
            "It is your reminder hour now: the DM comes as soon as you have reviews due, "
            "until {until}; otherwise tomorrow at this hour."
        ).format(until=discord_timestamp(upcoming.until, "t"))
    else:
        when = _("Next: {when} ({relative}), if you have reviews due then.").format(
            when=discord_timestamp(upcoming.at, "F"),
            relative=discord_timestamp(upcoming.at, "R"),
        )
    tail = _("Your DMs must be open to this server's members. `/reminders off` stops them.")
    return f"{head}\n{when}\n-# {tail}"


class RemindersCog(commands.Cog):
    reminders = app_commands.Group(
        name="reminders",
        description="A daily DM when you have reviews due.",
        guild_only=True,
    )

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # Listing tzdata reads the disk: do it once, off the loop, not in the first autocomplete.
        await asyncio.to_thread(known_zones)

    @reminders.command(name="on", description="A DM a day at your hour, when reviews are due.")
    @app_commands.describe(
        hour=f"Local hour, 0-23 (default: your previous one, else {DEFAULT_HOUR})",
        timezone="IANA time zone, e.g. Europe/Berlin, or server (default: your previous one, "
        "else the server's)",
    )
    @app_commands.autocomplete(timezone=reminder_zone_autocomplete)
    async def reminders_on(
        self,
        interaction: Interaction,
        hour: HourParam | None = None,
        timezone: app_commands.Transform[str, Text("timezone")] | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        server_zone = timezone is not None and timezone.strip().casefold() == SERVER_ZONE
        zone = resolve_zone(timezone) if timezone and not server_zone else None
        async with Responder(interaction) as responder:
            plan = await self.bot.service.turn_reminders_on(
                guild_id, interaction.user.id, hour=hour, timezone=zone, server_zone=server_zone
            )
            self.bot.scheduler.wake()  # the pass plans with the new hour at once
            await responder.send(content=plan_text(plan))

    @reminders.command(name="off", description="No more review reminders.")
    async def reminders_off(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            was_on = await self.bot.service.run_write(
                StoreAction.CHANGE, reminders.turn_off, guild_id, interaction.user.id
            )
            text = (
                _("🔕 Review reminders are **off**. `/reminders on` brings them back.")
                if was_on
                else _("Review reminders were already off. `/reminders on` turns them on.")
            )
            await responder.send(content=text)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(RemindersCog(bot))
