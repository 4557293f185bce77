"""How the daily quizzes read in Discord: /schedule list's embed, and the one-line summary
of a schedule that /schedule add's reply and the id autocomplete share."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import discord

from bot import rendering
from bot.clock import as_utc, discord_timestamp
from bot.discord_ui.params import CHOICE_NAME
from bot.store.schedules import ScheduleInfo


def what(schedule: ScheduleInfo) -> str:
    """"2 tasks · MLOps · any difficulty"."""
    tasks = "1 task" if schedule.count == 1 else f"{schedule.count} tasks"
    parts = [tasks, schedule.topic or "any topic", schedule.difficulty or "any difficulty"]
    return " · ".join(parts)


def _plain_what(schedule: ScheduleInfo) -> str:
    # A choice name is plain text: the topic's Markdown is rendered, not shown as typed.
    topic = rendering.plain_label(schedule.topic, CHOICE_NAME) if schedule.topic else None
    return what(replace(schedule, topic=topic))


def choice_name(schedule: ScheduleInfo) -> str:
    """A schedule as an autocomplete suggestion."""
    name = f"#{schedule.id} · {schedule.local_time} {schedule.timezone} · {_plain_what(schedule)}"
    if schedule.paused:
        name += " · paused"
    return rendering.truncate(name, CHOICE_NAME)


def _local(moment: datetime, schedule: ScheduleInfo) -> str:
    return f"{as_utc(moment).astimezone(schedule.zone):%a %d %b %H:%M}"


def schedule_lines(schedule: ScheduleInfo, next_run: datetime, now: datetime) -> str:
    """One schedule in /schedule list: what, where, when next (local and in the reader's
    zone), and how the last run went."""
    ts = discord_timestamp
    head = (
        f"**#{schedule.id}** · <#{schedule.channel_id}> · daily at **{schedule.local_time}** "
        f"{schedule.timezone} · {what(schedule)}"
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
    """/schedule list: every schedule's lines, or how to start one."""
    embed = discord.Embed(title="📅 Daily quizzes", colour=discord.Colour.blurple())
    if not lines:
        embed.description = (
            "No daily quizzes yet. `/schedule add channel:#study time:09:00` starts one."
        )
        return embed
    embed.description = rendering.truncate("\n\n".join(lines), rendering.EMBED_DESCRIPTION)
    embed.set_footer(text="Times in <t:…> show in your own time zone.")
    return embed
