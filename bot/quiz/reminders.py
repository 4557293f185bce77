"""Daily review reminders: when a member's reminder is due, and what it says. Pure: the pass
that sends them runs on the scheduler's loop (bot/schedule/reminders.py).

The rule, decided here once
---------------------------
A member's reminder belongs to their local date (their own zone, else the server's, else the
bot's default). It may go out during the hour that starts at their local `hour:00`
(`REMINDER_WINDOW`), DST-safe like daily quizzes (bot/quiz/timing.py): an hour that does
not exist that day (spring forward) starts at the first instant after the gap; an hour that
happens twice (fall back) counts once, from its first occurrence. It goes out only when the
member has reviews due; if none are due when the hour starts, the pass looks again when the
next card falls due within the hour, and after the hour the day is over: cards falling due
later wait for the next day's reminder. A member who turns reminders on during their hour can
still get that day's DM.

At most one DM per member per local day (`owed`). A member whose zone changes (their own, or
the server's they keep) keeps the promise in the new zone: the claimed day is carried over
into it (`sent_day_in`). A last DM day after the member's today can only have been stamped by
a clock that ran ahead (the host's, set right since): it counts as today (`as_of`), so no
second DM comes today and the next one tomorrow.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.clock import as_utc, day_start, local_date
from bot.quiz import timing
from bot.quiz.timing import Slot

DEFAULT_HOUR = 18
"""The local hour of a member's first `/reminders on` without an hour."""
REMINDER_WINDOW = timedelta(hours=1)
"""How long after its `hour:00` a day's reminder may still go out."""

DMS_CLOSED_NOTICE = (
    "🔕 Your daily review reminders were turned off: Discord would not let me send you a "
    "direct message. To get them again, allow direct messages from this server's members "
    "(Privacy Settings), then use `/reminders on`."
)
"""What /review says once after the reminders were turned off (`take_reminder_notice`)."""


def reminder_text(due: int, server: str) -> str:
    """The reminder DM."""
    reviews = "1 review" if due == 1 else f"{due} reviews"
    return (
        f"⏰ You have {reviews} due in {server}. Use /review in {server} to go through "
        f"{'it' if due == 1 else 'them'}.\n-# One reminder a day at most; `/reminders off` "
        "in that server stops them."
    )


def at_hour(hour: int) -> time:
    """The local time a reminder hour starts at: `hour`:00."""
    return time(hour, 0)


def open_slot(
    hour: int, zone: ZoneInfo, now: datetime, window: timedelta = REMINDER_WINDOW
) -> Slot | None:
    """The day whose reminder hour `now` is in (its local date and when the hour started),
    or None between hours."""
    slot = timing.current_slot(at_hour(hour), zone, now)
    return slot if now < slot.at + window else None


def owed(slot: Slot, last_sent_on: date | None) -> bool:
    """Whether the reminder of `slot`'s day has not gone out yet."""
    return last_sent_on is None or last_sent_on < slot.local_date


def as_of(last_sent_on: date | None, today: date) -> date | None:
    """The last reminder day as the rule trusts it on the member's local `today`: a day after
    it counts as today."""
    return None if last_sent_on is None else min(last_sent_on, today)


def sent_day_in(day: date, old: ZoneInfo, new: ZoneInfo, now: datetime) -> date:
    """The last reminder day `day` (a local date in `old`) as a local date in `new`, for a
    member whose zone changes: the latest date in `new` the DM can have gone out on (some time
    on `day` in `old`, and not after `now`). Kept as it was, a move east could bring a second
    DM on one local day of the new zone (already that day there, or the old date is earlier
    than the new zone's), and a move far west would skip a day that had none."""
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
    """The current reminder hour if `now` is inside one whose day has had no DM yet, else
    the one starting at the next local `hour:00` after `now` of a day that has had none (a
    member who moves their hour later on a day that had its DM already hears tomorrow)."""
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
