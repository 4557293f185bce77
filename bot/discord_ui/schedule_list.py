"""How the daily quizzes read in Discord: /schedule list's embed, and the one-line summary
of a schedule that /schedule add's reply and the id autocomplete share. A run's stored result
and error (`last_result`, `last_error`) are shown as the scheduler wrote them, in English."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import discord

from bot import rendering
from bot.clock import as_utc, discord_timestamp
from bot.discord_ui.params import CHOICE_NAME
from bot.i18n import _, formats, ngettext
from bot.store.schedules import ScheduleInfo


def what(schedule: ScheduleInfo) -> str:
    """"2 tasks · MLOps · any difficulty"."""
    tasks = ngettext("{n} task", "{n} tasks", schedule.count).format(
        n=formats.number(schedule.count)
    )
    # The difficulty's msgid is the commands' choice's own ("easy").
    difficulty = _(schedule.difficulty) if schedule.difficulty else _("any difficulty")
    return " · ".join([tasks, schedule.topic or _("any topic"), difficulty])


def _plain_what(schedule: ScheduleInfo) -> str:
    # A choice name is plain text: the topic's Markdown is rendered, not shown as typed.
    topic = rendering.plain_label(schedule.topic, CHOICE_NAME) if schedule.topic else None
    return what(replace(schedule, topic=topic))


def choice_name(schedule: ScheduleInfo) -> str:
    """A schedule as an autocomplete suggestion."""
    name = f"#{schedule.id} · {schedule.local_time} {schedule.timezone} · {_plain_what(schedule)}"
    if schedule.paused:
        # TRANSLATORS: after a schedule in /schedule's autocomplete (100 characters in all).
        name += " · " + _("paused")
    return rendering.truncate(name, CHOICE_NAME)


def _local(moment: datetime, schedule: ScheduleInfo) -> str:
    # TRANSLATORS: a CLDR pattern (EEE weekday, dd day, MMM month, HH:mm the time) for when a
    # daily quiz runs next, "Tue 08 Dec 09:00": reorder and punctuate as your language does.
    pattern = _("EEE dd MMM HH:mm")
    return formats.pattern_date(as_utc(moment).astimezone(schedule.zone), pattern)


def schedule_lines(schedule: ScheduleInfo, next_run: datetime, now: datetime) -> str:
    """One schedule in /schedule list: what, where, when next (local and in the reader's
    zone), and how the last run went."""
    ts = discord_timestamp
    head = _("**#{id}** · {channel} · daily at **{time}** {zone} · {what}").format(
        id=schedule.id,
        channel=f"<#{schedule.channel_id}>",
        time=schedule.local_time,
        zone=schedule.timezone,
        what=what(schedule),
    )
    if schedule.open_thread:
        head += " · " + _("with a discussion thread")
    lines = [head]
    if schedule.paused:
        lines.append(
            _("⏸️ Paused. `/schedule resume id:{id}` to restart it.").format(id=schedule.id)
        )
    else:
        lines.append(
            _("Next: {when} ({local} {zone}), {relative}").format(
                when=ts(next_run, "f"),
                local=_local(next_run, schedule),
                zone=schedule.timezone,
                relative=ts(next_run, "R"),
            )
        )
    if schedule.last_result:
        lines.append(_("Last: {result}").format(result=schedule.last_result))
    if schedule.last_error:
        retry = schedule.retry_at
        retrying = retry is not None and retry > now and not schedule.paused
        lines.append(_error_line(schedule, ts(retry, "R") if retry and retrying else None))
    return "\n".join(lines)


def _error_line(schedule: ScheduleInfo, retry: str | None) -> str:
    """The last error (stored in English), when it happened and when it is tried again."""
    error = schedule.last_error
    if schedule.last_error_at is None:
        line = _("⚠️ Error: {error}.").format(error=error)
    else:
        when = discord_timestamp(schedule.last_error_at, "R")
        line = _("⚠️ Error {when}: {error}.").format(when=when, error=error)
    if retry is None:
        return line
    return line + " " + _("Retrying {when}.").format(when=retry)


def list_embed(lines: list[str]) -> discord.Embed:
    """/schedule list: every schedule's lines, or how to start one."""
    embed = discord.Embed(title=_("📅 Daily quizzes"), colour=discord.Colour.blurple())
    if not lines:
        embed.description = _(
            "No daily quizzes yet. `/schedule add channel:#study time:09:00` starts one."
        )
        return embed
    embed.description = rendering.truncate("\n\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed.set_footer(text=_("Times in <t:…> show in your own time zone."))
    return embed
