"""/schedule and /config for moderators, and the Discord side of the daily-quiz scheduler.

The scheduling rules live in bot/schedule (no discord there); this module parses commands,
renders their replies, and implements the scheduler's `Poster` with real Discord calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal
from zoneinfo import available_timezones

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui import posting
from bot.discord_ui.checks import is_moderator, moderator_only
from bot.discord_ui.embeds import task_embed
from bot.discord_ui.errors import guild_id_of, missing_post_permissions
from bot.discord_ui.replies import Responder
from bot.quiz.errors import QuizError
from bot.quiz.tasks import Difficulty
from bot.schedule import timing
from bot.schedule.runner import PosterError, Scheduler
from bot.schedule.timing import InvalidTimeError
from bot.store.schedule_tables import MAX_COUNT
from bot.store.schedules import ScheduleInfo, ScheduleStore

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import PostedTask
    from bot.store import PostInfo

Interaction = discord.Interaction["QuizBot"]
DifficultyChoice = Literal["easy", "medium", "hard"]
MANAGE_GUILD = discord.Permissions(manage_guild=True)
MAX_CHOICES = 25
MAX_SCHEDULES = 10
"""Per server: each schedule is a daily post, and the list must fit one embed."""
ZONE_SUGGESTIONS = (
    "UTC",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Chicago",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
)
HISTORY_LIMIT = 100
"""Messages read after a claim when recovering from a crash: the post is among the first."""
CLOCK_SKEW = timedelta(minutes=5)
"""Our clock and Discord's snowflake clock may disagree; look a little earlier."""
THREAD_EXISTS = 160004
"""Discord's error code for "a thread has already been created for this message"."""
THREAD_ARCHIVE_MINUTES = 1440
_POST_IN_CUSTOM_ID = re.compile(r"^quiz:[a-z]+:(?P<post>[0-9]{1,20})(?::|$)")
"""Every task-post button's custom_id names its post (bot/discord_ui/components.py)."""


class ScheduleInputError(QuizError):
    """A moderator's input that cannot be used; the message says what to do instead."""


# -- time zones --------------------------------------------------------------------------------


@functools.cache
def _zones() -> dict[str, str]:
    """casefolded name → IANA name, for every zone tzdata ships."""
    return {name.casefold(): name for name in sorted(available_timezones())}


def resolve_zone(text: str) -> str:
    """The IANA name for typed text ("europe/berlin" → "Europe/Berlin"), or a clear error."""
    name = _zones().get(text.strip().casefold().replace(" ", "_"))
    if name is None:
        raise ScheduleInputError(
            f"{text!r} is not a time zone I know. Use an IANA name such as Europe/Berlin or "
            "America/New_York (pick one from the list as you type)."
        )
    return name


def zone_choices(current: str, preferred: str | None = None) -> list[str]:
    """Up to 25 zones for autocomplete: name or city prefix first, then any substring."""
    needle = current.strip().casefold().replace(" ", "_")
    zones = _zones()
    if not needle:
        first = [preferred] if preferred else []
        return list(dict.fromkeys([*first, *ZONE_SUGGESTIONS]))[:MAX_CHOICES]
    prefix = [
        name
        for key, name in zones.items()
        if key.startswith(needle) or key.rsplit("/", 1)[-1].startswith(needle)
    ]
    anywhere = [name for key, name in zones.items() if needle in key and name not in prefix]
    return (prefix + anywhere)[:MAX_CHOICES]


# -- rendering ---------------------------------------------------------------------------------


def _what(schedule: ScheduleInfo) -> str:
    tasks = "1 task" if schedule.count == 1 else f"{schedule.count} tasks"
    parts = [tasks, schedule.topic or "any topic", schedule.difficulty or "any difficulty"]
    return " · ".join(parts)


def _local(moment: datetime, schedule: ScheduleInfo) -> str:
    return f"{moment.replace(tzinfo=UTC).astimezone(schedule.zone):%a %d %b %H:%M}"


def schedule_lines(schedule: ScheduleInfo, next_run: datetime, now: datetime) -> str:
    """One schedule in /schedule list: what, where, when next (local and in the reader's
    zone), and how the last run went."""
    ts = timing.discord_timestamp
    head = (
        f"**#{schedule.id}** · <#{schedule.channel_id}> · daily at **{schedule.local_time}** "
        f"{schedule.timezone} · {_what(schedule)}"
    )
    if schedule.open_thread:
        head += " · with a discussion thread"
    lines = [head]
    if schedule.paused:
        lines.append(f"⏸️ Paused. `/schedule resume id:{schedule.id}` to restart it.")
    else:
        lines.append(
            f"Next: {ts(next_run, 'f')} ({_local(next_run, schedule)} {schedule.timezone}), "
            f"{ts(next_run, 'R')}"
        )
    if schedule.last_result:
        lines.append(f"Last: {schedule.last_result}")
    if schedule.last_error:
        when = f" {ts(schedule.last_error_at, 'R')}" if schedule.last_error_at else ""
        retry = ""
        if schedule.retry_at is not None and schedule.retry_at > now and not schedule.paused:
            retry = f" Retrying {ts(schedule.retry_at, 'R')}."
        lines.append(f"⚠️ Error{when}: {schedule.last_error}.{retry}")
    return "\n".join(lines)


def list_embed(lines: list[str]) -> discord.Embed:
    embed = discord.Embed(title="📅 Daily quizzes", colour=discord.Colour.blurple())
    if not lines:
        embed.description = (
            "No daily quizzes yet. `/schedule add channel:#study time:09:00` starts one."
        )
        return embed
    embed.description = rendering.truncate("\n\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed.set_footer(text="Times in <t:…> show in your own time zone.")
    return embed


# -- the scheduler's Discord side --------------------------------------------------------------


@contextlib.contextmanager
def _refusals(channel_id: int) -> Iterator[None]:
    """Discord's refusals as PosterError, worded for /schedule list."""
    try:
        yield
    except discord.Forbidden as exc:
        raise PosterError(
            f"Discord refused in <#{channel_id}> ({exc.text or 'Missing Permissions'}): "
            "I need View Channel, Send Messages, Embed Links and Read Message History there"
        ) from exc
    except discord.NotFound as exc:
        raise PosterError(
            f"<#{channel_id}> or its message is gone, or I cannot see it ({exc.text})"
        ) from exc
    except discord.HTTPException as exc:
        raise PosterError(f"Discord error {exc.status} in <#{channel_id}>: {exc.text}") from exc


def post_ids_of(message: discord.Message) -> set[int]:
    """The posts a message's buttons belong to (a task post has exactly one)."""
    found: set[int] = set()
    for row in message.components:
        for child in getattr(row, "children", ()):
            match = _POST_IN_CUSTOM_ID.match(getattr(child, "custom_id", None) or "")
            if match:
                found.add(int(match["post"]))
    return found


class DiscordPoster:
    """`bot.schedule.runner.Poster` over discord.py."""

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    def _channel(self, post: PostInfo) -> discord.abc.Messageable:
        channel = self.bot.get_channel(post.channel_id)
        if isinstance(channel, discord.abc.Messageable):
            return channel
        # Not cached (or not a text channel): the REST call itself tells what is wrong.
        return self.bot.get_partial_messageable(post.channel_id, guild_id=post.guild_id)

    async def post(self, posted: PostedTask, *, extra: str) -> int:
        with _refusals(posted.post.channel_id):
            # post_task also records the message id; the runner records it again (same value)
            # because recording is part of its exactly-once protocol, not of posting.
            message = await posting.post_task(
                self.bot, self._channel(posted.post), posted, extra=extra
            )
        return message.id

    async def find(self, posted: PostedTask, *, since: datetime) -> int | None:
        me = self.bot.user
        start = discord.utils.time_snowflake(since.replace(tzinfo=UTC) - CLOCK_SKEW)
        channel = self._channel(posted.post)
        with _refusals(posted.post.channel_id):
            async for message in channel.history(
                limit=HISTORY_LIMIT, after=discord.Object(id=start), oldest_first=True
            ):
                if me is not None and message.author.id != me.id:
                    continue
                if posted.post.id in post_ids_of(message):
                    return message.id
        return None

    async def open_thread(
        self, posted: PostedTask, message_id: int, *, name: str, text: str
    ) -> None:
        message = self._channel(posted.post).get_partial_message(message_id)  # type: ignore[attr-defined]
        with _refusals(posted.post.channel_id):
            try:
                thread = await message.create_thread(
                    name=name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
                )
            except discord.HTTPException as exc:
                if exc.code == THREAD_EXISTS:  # opened before a crash: nothing to do
                    return
                raise
            except ValueError as exc:  # the server is not in the cache (yet)
                raise PosterError(f"cannot open a thread: {exc}") from exc
            await thread.send(text, allowed_mentions=discord.AllowedMentions.none())

    async def close(self, posted: PostedTask, *, content: str) -> None:
        assert posted.post.message_id is not None
        counts = await self.bot.service.counts(posted.post.id)
        message = self._channel(posted.post).get_partial_message(posted.post.message_id)  # type: ignore[attr-defined]
        with _refusals(posted.post.channel_id):
            # No `view`: the buttons stay, and now answer that the quiz has closed.
            await message.edit(content=content, embed=task_embed(posted, counts))


# -- the cog -------------------------------------------------------------------------------------


class ScheduleCog(commands.Cog):
    schedule = app_commands.Group(
        name="schedule",
        description="Daily quizzes in this server (moderators).",
        guild_only=True,
        # Only hides the commands in the client; `moderator_only` is what enforces it.
        default_permissions=MANAGE_GUILD,
    )
    config = app_commands.Group(
        name="config",
        description="This server's quiz settings (moderators).",
        guild_only=True,
        default_permissions=MANAGE_GUILD,
    )

    def __init__(self, bot: QuizBot, *, autostart: bool = True) -> None:
        self.bot = bot
        self.scheduler = Scheduler(
            bot.service,
            ScheduleStore(bot.service.store),
            DiscordPoster(bot),
            grace=timedelta(minutes=bot.settings.schedule_grace_minutes),
        )
        self.autostart = autostart
        self._starter: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        # Listing tzdata reads the disk: do it once, off the loop, not in the first autocomplete.
        await asyncio.to_thread(_zones)
        if self.autostart:
            self._starter = asyncio.create_task(self._start(), name="quizbot-scheduler-start")

    async def _start(self) -> None:
        # Posting before the gateway is ready would work over REST, but recovery reads the
        # channel cache and the bot's own user; waiting also means nothing posts while the
        # bot still shows as offline.
        await self.bot.wait_until_ready()
        self.scheduler.start()

    async def cog_unload(self) -> None:
        if self._starter is not None:
            self._starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starter
        await self.scheduler.stop()

    # -- /schedule -----------------------------------------------------------------------------

    @schedule.command(name="add", description="Post daily quizzes in a channel at a local time.")
    @app_commands.describe(
        channel="Where to post",
        time="Local time, HH:MM on the 24-hour clock, e.g. 09:00",
        timezone="IANA time zone, e.g. Europe/Berlin (default: the server's, see /config)",
        topic="Only tasks of this topic (default: any)",
        difficulty="Only tasks of this difficulty (default: any)",
        count=f"Tasks per day, 1-{MAX_COUNT}",
        thread="Open a discussion thread on each post, with the explanation in spoiler tags",
    )
    @moderator_only()  # type: ignore[operator]
    async def schedule_add(
        self,
        interaction: Interaction,
        channel: discord.TextChannel,
        time: str,
        timezone: str | None = None,
        topic: str | None = None,
        difficulty: DifficultyChoice | None = None,
        count: app_commands.Range[int, 1, MAX_COUNT] = 1,
        thread: bool = False,
    ) -> None:
        guild_id = guild_id_of(interaction)
        service = self.bot.service
        try:
            at = timing.parse_local_time(time)
        except InvalidTimeError as exc:
            raise ScheduleInputError(str(exc)) from exc
        zone = resolve_zone(timezone) if timezone else (await service.zone(guild_id)).key
        topic = self._resolve_topic(topic)
        level = Difficulty(difficulty) if difficulty else None
        if not service.catalog.select(topic, level):
            wanted = " ".join(x for x in (difficulty, topic) if x) or "any"
            raise ScheduleInputError(f"There is no {wanted} task in the loaded banks.")
        self._check_channel(channel, thread=thread)

        async with Responder(interaction) as responder:
            if len(await self.scheduler.schedules_of(guild_id)) >= MAX_SCHEDULES:
                raise ScheduleInputError(
                    f"This server already has {MAX_SCHEDULES} daily quizzes; "
                    "remove one first (`/schedule list` shows them)."
                )
            info = await self.scheduler.add_schedule(
                guild_id=guild_id,
                channel_id=channel.id,
                local_time=timing.format_local_time(at),
                timezone=zone,
                topic=topic,
                difficulty=difficulty,
                count=count,
                open_thread=thread,
                created_by=interaction.user.id,
            )
            first = self.scheduler.next_run(info)
            ts = timing.discord_timestamp
            await responder.send(
                content=(
                    f"Scheduled **#{info.id}**: {_what(info)}, every day at "
                    f"**{info.local_time}** {info.timezone} in {channel.mention}. "
                    f"First post {ts(first.at, 'f')} ({ts(first.at, 'R')}). Each closes with "
                    "the group's result when the next one is posted."
                )
            )

    @schedule.command(name="list", description="This server's daily quizzes and how they went.")
    @moderator_only()  # type: ignore[operator]
    async def schedule_list(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            now = self.scheduler.clock()
            lines = [
                schedule_lines(s, self.scheduler.next_run(s).at, now)
                for s in await self.scheduler.schedules_of(guild_id)
            ]
            await responder.send(embeds=[list_embed(lines)])

    @schedule.command(name="remove", description="Stop a daily quiz for good.")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()  # type: ignore[operator]
    async def schedule_remove(self, interaction: Interaction, schedule_id: int) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            info = await self.scheduler.remove_schedule(guild_id, schedule_id)
            if info is None:
                raise ScheduleInputError(_unknown(schedule_id))
            await responder.send(
                content=f"Removed daily quiz **#{info.id}**. Its last post still closes on time."
            )

    @schedule.command(name="pause", description="Pause a daily quiz (no posts until resumed).")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()  # type: ignore[operator]
    async def schedule_pause(self, interaction: Interaction, schedule_id: int) -> None:
        await self._pause(interaction, schedule_id, paused=True)

    @schedule.command(name="resume", description="Resume a paused daily quiz.")
    @app_commands.rename(schedule_id="id")
    @app_commands.describe(schedule_id="The schedule's number, from /schedule list")
    @moderator_only()  # type: ignore[operator]
    async def schedule_resume(self, interaction: Interaction, schedule_id: int) -> None:
        await self._pause(interaction, schedule_id, paused=False)

    async def _pause(self, interaction: Interaction, schedule_id: int, *, paused: bool) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            info = await self.scheduler.set_paused(guild_id, schedule_id, paused)
            if info is None:
                raise ScheduleInputError(_unknown(schedule_id))
            if paused:
                text = f"Paused daily quiz **#{info.id}**. `/schedule resume` restarts it."
            else:
                first = self.scheduler.next_run(info).at
                text = (
                    f"Resumed daily quiz **#{info.id}**; next post "
                    f"{timing.discord_timestamp(first, 'f')}. Days missed while paused are "
                    "not posted."
                )
            await responder.send(content=text)

    # -- /config -------------------------------------------------------------------------------

    @config.command(name="timezone", description="The server's time zone.")
    @app_commands.describe(
        zone="IANA time zone, e.g. Europe/Berlin: leaderboard days and new daily quizzes use it"
    )
    @moderator_only()  # type: ignore[operator]
    async def config_timezone(self, interaction: Interaction, zone: str) -> None:
        guild_id = guild_id_of(interaction)
        name = resolve_zone(zone)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, timezone=name)
            await responder.send(
                content=(
                    f"Time zone set to **{name}**. Leaderboard days and weeks, and new daily "
                    "quizzes, use it; existing daily quizzes keep the zone they were made with."
                )
            )

    @config.command(name="modrole", description="The role whose members count as moderators.")
    @app_commands.describe(
        role="Members with this role may use /schedule and /config (empty: none)"
    )
    @moderator_only()  # type: ignore[operator]
    async def config_modrole(
        self, interaction: Interaction, role: discord.Role | None = None
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(
                guild_id, mod_role_id=role.id if role else None
            )
            text = (
                f"Members with {role.mention} now count as moderators."
                if role
                else "No moderator role: only members with Manage Server are moderators."
            )
            await responder.send(content=text)

    @config.command(name="posting", description="Who may post quizzes with /quiz.")
    @app_commands.describe(policy="anyone, or only moderators")
    @moderator_only()  # type: ignore[operator]
    async def config_posting(
        self, interaction: Interaction, policy: Literal["anyone", "mods"]
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, post_policy=policy)
            who = "Anyone" if policy == "anyone" else "Only moderators"
            await responder.send(content=f"{who} may post quizzes with /quiz.")

    # -- autocomplete --------------------------------------------------------------------------

    @schedule_add.autocomplete("timezone")
    @config_timezone.autocomplete("zone")
    async def zone_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        preferred = None
        if interaction.guild_id is not None:
            preferred = (await self.bot.service.zone(interaction.guild_id)).key
        return [app_commands.Choice(name=z, value=z) for z in zone_choices(current, preferred)]

    @schedule_add.autocomplete("topic")
    async def topic_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        needle = current.casefold()
        return [
            app_commands.Choice(name=rendering.truncate(topic, 100), value=topic)
            for topic in self.bot.service.catalog.topics()
            if needle in topic.casefold()
        ][:MAX_CHOICES]

    @schedule_remove.autocomplete("schedule_id")
    @schedule_pause.autocomplete("schedule_id")
    @schedule_resume.autocomplete("schedule_id")
    async def schedule_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        # Autocomplete skips command checks; the list is for moderators' eyes only.
        if interaction.guild_id is None or not await is_moderator(interaction):
            return []
        choices = []
        for s in await self.scheduler.schedules_of(interaction.guild_id):
            name = f"#{s.id} · {s.local_time} {s.timezone} · {_what(s)}"
            if s.paused:
                name += " · paused"
            if current.strip("# ") in str(s.id) or current.casefold() in name.casefold():
                choices.append(app_commands.Choice(name=rendering.truncate(name, 100), value=s.id))
        return choices[:MAX_CHOICES]

    # -- helpers -------------------------------------------------------------------------------

    def _resolve_topic(self, topic: str | None) -> str | None:
        if topic is None:
            return None
        topics = self.bot.service.catalog.topics()
        for known in topics:
            if known.casefold() == topic.strip().casefold():
                return known
        raise ScheduleInputError(
            f"There is no topic {topic!r}. Topics: {', '.join(topics) or 'none loaded'}."
        )

    def _check_channel(self, channel: discord.TextChannel, *, thread: bool) -> None:
        """Refuse now what would fail every day: the bot must be able to post there."""
        me = channel.guild.me
        if me is None:
            return
        perms = channel.permissions_for(me)
        missing = missing_post_permissions(perms)
        if thread and not perms.create_public_threads:
            missing.append("Create Public Threads")
        if missing:
            names = ", ".join(f"**{m}**" for m in missing)
            raise ScheduleInputError(
                f"I can't post daily quizzes in {channel.mention}: I'm missing {names} there. "
                "Grant it in the channel settings, then add the schedule again."
            )


def _unknown(schedule_id: int) -> str:
    return f"This server has no daily quiz #{schedule_id}. `/schedule list` shows them."


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ScheduleCog(bot))
