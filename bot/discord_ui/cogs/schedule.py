"""/schedule: moderators add, list, pause, resume and remove daily quizzes (bot/schedule/runner.py
decides; this parses the options and renders the reply)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.clock import discord_timestamp
from bot.discord_ui.checks import is_moderator, moderator_group, moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.error_texts import missing_post_permissions, permission_name
from bot.discord_ui.params import (
    CountParam,
    DifficultyParam,
    Flag,
    ScheduleIdParam,
    Text,
    TopicParam,
    topic_autocomplete,
    typed,
    zone_autocomplete,
)
from bot.discord_ui.schedule_list import choice_name, list_embed, schedule_lines, what
from bot.i18n import N_, _
from bot.quiz import timing
from bot.quiz.errors import ScheduleInputError
from bot.quiz.rules import MAX_TASKS_PER_RUN
from bot.quiz.timing import InvalidTimeError
from bot.schedule.zones import MAX_CHOICES, known_zones, resolve_zone

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.schedule.runner import Scheduler

Interaction = discord.Interaction["QuizBot"]


class ScheduleCog(commands.Cog):
    schedule = moderator_group("schedule", "Daily quizzes in this server (moderators).")

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @property
    def scheduler(self) -> Scheduler:
        return self.bot.scheduler

    async def cog_load(self) -> None:
        # Listing tzdata reads the disk: do it once, off the loop, not in the first autocomplete.
        await asyncio.to_thread(known_zones)

    @schedule.command(name="add", description="Post daily quizzes in a channel at a local time.")
    @app_commands.describe(
        channel="Where to post",
        time="Local time, HH:MM on the 24-hour clock, e.g. 09:00",
        timezone="IANA time zone, e.g. Europe/Berlin (default: the server's, see /config)",
        topic="Only tasks of this topic (default: any)",
        difficulty="Only tasks of this difficulty (default: any)",
        count=f"Tasks per day, 1-{MAX_TASKS_PER_RUN}",
        thread="Open a discussion thread on each post, with the explanation in spoiler tags",
    )
    @app_commands.autocomplete(topic=topic_autocomplete, timezone=zone_autocomplete)
    @moderator_only()
    async def schedule_add(
        self,
        interaction: Interaction,
        channel: discord.TextChannel,
        time: app_commands.Transform[str, Text("time")],
        timezone: app_commands.Transform[str, Text("timezone")] | None = None,
        topic: TopicParam | None = None,
        difficulty: DifficultyParam | None = None,
        count: CountParam = 1,
        thread: app_commands.Transform[bool, Flag("thread")] = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        service = self.bot.service
        try:
            at = timing.parse_local_time(time)
        except InvalidTimeError as exc:
            # One sentence for both of timing's cases (the shape, the range): it says both.
            raise ScheduleInputError(
                N_("{time!r} is not a time of day: use HH:MM on the 24-hour clock, e.g. 09:00"),
                time=time,
            ) from exc
        zone = resolve_zone(timezone) if timezone else (await service.zone(guild_id)).key
        topic = self._resolve_topic(guild_id, topic)
        service.tasks_matching(guild_id, topic, difficulty)  # refuses now what would fail every day
        self._check_channel(channel, thread=thread)

        async with Responder(interaction) as responder:
            info = await self.scheduler.add_schedule(
                guild_id=guild_id,
                channel_id=channel.id,
                local_time=timing.format_local_time(at),
                timezone=zone,
                topic=topic,
                difficulty=difficulty.value if difficulty else None,
                count=count,
                open_thread=thread,
                created_by=interaction.user.id,
            )
            first = self.scheduler.next_run(info).at
            ts = discord_timestamp
            # TRANSLATORS: {what} reads "2 tasks · MLOps · any difficulty"; {time} is HH:MM and
            # {zone} an IANA zone; {first} a date and time, {relative} "in 5 hours".
            text = _(
                "Scheduled **#{id}**: {what}, every day at **{time}** {zone} in {channel}. "
                "First post {first} ({relative}). Each closes with the group's result when the "
                "next one is posted."
            ).format(
                id=info.id,
                what=what(info),
                time=info.local_time,
                zone=info.timezone,
                channel=channel.mention,
                first=ts(first, "f"),
                relative=ts(first, "R"),
            )
            await responder.send(content=text)

    @schedule.command(name="list", description="This server's daily quizzes and how they went.")
    @moderator_only()
    async def schedule_list(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            now = self.scheduler.now()
            lines = [
                schedule_lines(s, self.scheduler.next_run(s).at, now)
                for s in await self.scheduler.schedules_of(guild_id)
            ]
            await responder.send(embeds=[list_embed(lines)])

    @schedule.command(name="remove", description="Stop a daily quiz for good.")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()
    async def schedule_remove(
        self, interaction: Interaction, schedule_id: ScheduleIdParam
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            info = await self.scheduler.remove_schedule(guild_id, schedule_id)
            if info is None:
                raise _unknown(schedule_id)
            await responder.send(
                content=_(
                    "Removed daily quiz **#{id}**. Its last post still closes on time."
                ).format(id=info.id)
            )

    @schedule.command(name="pause", description="Pause a daily quiz (no posts until resumed).")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()
    async def schedule_pause(self, interaction: Interaction, schedule_id: ScheduleIdParam) -> None:
        await self._pause(interaction, schedule_id, paused=True)

    @schedule.command(name="resume", description="Resume a paused daily quiz.")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()
    async def schedule_resume(
        self, interaction: Interaction, schedule_id: ScheduleIdParam
    ) -> None:
        await self._pause(interaction, schedule_id, paused=False)

    async def _pause(self, interaction: Interaction, schedule_id: int, *, paused: bool) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            change = await self.scheduler.set_paused(guild_id, schedule_id, paused)
            if change is None:
                raise _unknown(schedule_id)
            info = change.schedule
            if not change.changed:
                if paused:
                    text = _("Daily quiz **#{id}** is paused already.").format(id=info.id)
                else:
                    text = _("Daily quiz **#{id}** is not paused.").format(id=info.id)
            elif paused:
                text = _("Paused daily quiz **#{id}**. `/schedule resume` restarts it.").format(
                    id=info.id
                )
            else:
                first = self.scheduler.next_run(info).at
                text = _(
                    "Resumed daily quiz **#{id}**; next post {first}. Days missed while paused "
                    "are not posted."
                ).format(id=info.id, first=discord_timestamp(first, "f"))
            await responder.send(content=text)

    @schedule_remove.autocomplete("schedule_id")
    @schedule_pause.autocomplete("schedule_id")
    @schedule_resume.autocomplete("schedule_id")
    async def schedule_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        # Autocomplete skips command checks; the list is for moderators' eyes only.
        if interaction.guild_id is None or not await is_moderator(interaction):
            return []
        text = typed(current)
        choices = []
        for s in await self.scheduler.schedules_of(interaction.guild_id):
            name = choice_name(s)
            if text.strip("# ") in str(s.id) or text.casefold() in name.casefold():
                choices.append(app_commands.Choice(name=name, value=s.id))
        return choices[:MAX_CHOICES]

    # -- helpers -------------------------------------------------------------------------------

    def _resolve_topic(self, guild_id: int, topic: str | None) -> str | None:
        if topic is None:
            return None
        topics = self.bot.service.catalog_for(guild_id).topics()
        for known in topics:
            if known.casefold() == topic.strip().casefold():
                return known
        if topics:
            raise ScheduleInputError(
                N_("There is no topic {topic!r}. Topics: {topics}."),
                topic=topic,
                topics=", ".join(topics),
            )
        raise ScheduleInputError(
            N_("There is no topic {topic!r}. No topics are loaded."), topic=topic
        )

    def _check_channel(self, channel: discord.TextChannel, *, thread: bool) -> None:
        """Refuse now what would fail every day: the bot must be able to post there."""
        me = channel.guild.me
        if me is None:
            return
        perms = channel.permissions_for(me)
        missing = missing_post_permissions(perms)
        if thread and not perms.create_public_threads:
            missing.append(permission_name("create_public_threads"))
        if thread and not perms.send_messages_in_threads:  # the explanation goes in the thread
            missing.append(permission_name("send_messages_in_threads"))
        if missing:
            raise ScheduleInputError(
                N_(
                    "I can't post daily quizzes in {channel}: I'm missing {permissions} there. "
                    "Grant it in the channel settings, then add the schedule again."
                ),
                channel=channel.mention,
                permissions=", ".join(f"**{m}**" for m in missing),
            )


def _unknown(schedule_id: int) -> ScheduleInputError:
    return ScheduleInputError(
        N_("This server has no daily quiz #{id}. `/schedule list` shows them."),
        id=str(schedule_id),  # an id, not a number to format
    )


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ScheduleCog(bot))
