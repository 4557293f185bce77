"""Daily review reminders: when a member's is due (the pass that sends them, and the DM's text,
is bot/schedule/reminders.py). It may go out in the hour from the member's local `hour:00`
(`REMINDER_WINDOW`), DST-safe, only when reviews are due, at most once per local day (`owed`);
a zone change carries the day over (`sent_day_in`), and a future day (a clock that ran ahead)
counts as today (`as_of`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.clock import as_utc, day_start, local_date
from bot.quiz import timing
from bot.quiz.errors import N_
from bot.quiz.timing import Slot

DEFAULT_HOUR = 18
"""The local hour of a member's first `/reminders on` without an hour."""
REMINDER_WINDOW = timedelta(hours=1)
"""How long after its `hour:00` a day's reminder may still go out."""

DMS_CLOSED_NOTICE = N_(
    "🔕 Your daily review reminders were turned off: Discord would not let me send you a "
    "direct message. To get them again, allow direct messages from this server's members "
    "(Privacy Settings), then use `/reminders on`."
)
"""What /review says once after the reminders were turned off (`take_reminder_notice`);
translated where it is shown."""


def at_hour(hour: int) -> time:
    """The local time a reminder hour starts at: `hour`:00."""
    return time(hour, 0)


def open_slot(
    hour: int, zone: ZoneInfo, now: datetime, window: timedelta = REMINDER_WINDOW
) -> Slot | None:
    """The day whose reminder hour `now` is in, or None between hours."""
    slot = timing.current_slot(at_hour(hour), zone, now)
    return slot if now < slot.at + window else None


def owed(slot: Slot, last_sent_on: date | None) -> bool:
    """Whether the reminder of `slot`'s day has not gone out yet."""
    return last_sent_on is None or last_sent_on < slot.local_date


def as_of(last_sent_on: date | None, today: date) -> date | None:
    """The last reminder day as trusted on the member's `today`: a later day counts as today."""
    return None if last_sent_on is None else min(last_sent_on, today)


def sent_day_in(day: date, old: ZoneInfo, new: ZoneInfo, now: datetime) -> date:
    """Last reminder day `day` (local to `old`) as the latest date in `new` it can have been."""
    if old.key == new.key:
        return day
    day_end = day_start(day + timedelta(days=1), old) - timedelta(microseconds=1)
    return local_date(min(day_end, as_utc(now)), new)


@dataclass(frozen=True, slots=True)
class NextReminder:
    """The next hour a member's reminder can go out in (aware UTC)."""

    at: datetime
    until: datetime
    current: bool
    """The hour is on now and its day has had no DM yet: it can come at any moment."""


def next_reminder(
    hour: int,
    zone: ZoneInfo,
    now: datetime,
    last_sent_on: date | None,
    window: timedelta = REMINDER_WINDOW,
) -> NextReminder:
    """The current reminder hour if its day had no DM yet, else the next one of such a day."""
    last_sent_on = as_of(last_sent_on, local_date(now, zone))
    slot = open_slot(hour, zone, now, window)
    if slot is not None and owed(slot, last_sent_on):
        return NextReminder(slot.at, slot.at + window, current=True)
    upcoming = timing.next_slot(at_hour(hour), zone, now)
    while not owed(upcoming, last_sent_on):
        upcoming = timing.following(upcoming, at_hour(hour), zone)
    return NextReminder(upcoming.at, upcoming.at + window, current=False)


@dataclass(frozen=True, slots=True)
class ReminderPlan:
    """A member's reminder as `/reminders on` left it."""

    hour: int
    zone: ZoneInfo
    own_zone: bool
    """The member set the zone; False: the server's (or the bot's default)."""
    next: NextReminder
