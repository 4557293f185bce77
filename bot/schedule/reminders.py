"""Daily review reminders: when a member's reminder is due, and the pass that sends them.

No discord import: the DM goes through the `DirectMessages` protocol (the bot's is
bot/discord_ui/dm.py). The pass runs on the daily-quiz scheduler's loop and clock
(`Scheduler.add_pass`, bot/schedule/runner.py), so its timing is tested against a fake clock.

The rule, decided here once
---------------------------
A member's reminder belongs to their local date (their own zone, else the server's, else the
bot's default). It may go out during the hour that starts at their local `hour:00`
(`REMINDER_WINDOW`), DST-safe like daily quizzes (bot/schedule/timing.py): an hour that does
not exist that day (spring forward) starts at the first instant after the gap; an hour that
happens twice (fall back) counts once, from its first occurrence. It goes out only when the
member has reviews due; if none are due when the hour starts, the pass looks again when the
next card falls due within the hour, and after the hour the day is over: cards falling due
later wait for the next day's reminder. A member who turns reminders on during their hour can
still get that day's DM.

At most one DM per member per local day, across restarts and processes: before sending, the
pass claims the day in the database (`Store.claim_reminder`, an UPDATE only one caller can
win). A DM that then fails is not retried that day. Discord refusing because the member's DMs
are closed turns their reminder off (`Store.reminder_dms_closed`); /review tells them once. A
member whose zone changes (their own, or the server's they keep) keeps the promise in the new
zone: the claimed day is carried over into it (`sent_day_in`).

A last DM day after the member's today can only have been stamped by a clock that ran ahead
(the host's, set right since): it counts as today (`as_of`), so no second DM comes today and
the next one tomorrow. The pass dates it so in the database when it meets it; kept as it was,
reminders would stop until the real date caught up, months later perhaps.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from bot.clock import as_utc, day_start, local_date, zone_or
from bot.schedule import timing
from bot.schedule.timing import Slot

if TYPE_CHECKING:
    from bot.service import QuizService
    from bot.store.reminders import ReminderCandidate, ReminderHour

log = logging.getLogger(__name__)

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


# -- timing (pure) -----------------------------------------------------------------------------


def _at(hour: int) -> time:
    return time(hour, 0)


def open_slot(
    hour: int, zone: ZoneInfo, now: datetime, window: timedelta = REMINDER_WINDOW
) -> Slot | None:
    """The day whose reminder hour `now` is in (its local date and when the hour started),
    or None between hours."""
    slot = timing.current_slot(_at(hour), zone, now)
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
    upcoming = timing.next_slot(_at(hour), zone, now)
    while not owed(upcoming, last_sent_on):
        upcoming = timing.following(upcoming, _at(hour), zone)
    return NextReminder(upcoming.at, upcoming.at + window, current=False)


@dataclass(frozen=True, slots=True)
class ReminderPlan:
    """A member's reminder as `/reminders on` left it."""

    hour: int
    zone: ZoneInfo
    own_zone: bool
    """The member set the zone; False: the server's (or the bot's default)."""
    next: NextReminder


# -- the pass ----------------------------------------------------------------------------------


class DmsClosedError(Exception):
    """Discord refused the DM because the member does not accept direct messages from us."""


class MemberGoneError(Exception):
    """The member has left the server (or the bot has): no reminder is theirs to get."""


class DmFailedError(Exception):
    """The DM could not be sent for any other reason; the message says why, for the log."""


class DirectMessages(Protocol):
    """What the reminder pass asks of Discord. Implemented by bot/discord_ui/dm.py."""

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        """DM the member that `due` reviews wait in that server (`reminder_text`). Raises
        MemberGoneError, DmsClosedError or DmFailedError."""
        ...


class Reminders:
    """The reminder pass: a `Scheduler` pass (bot/schedule/runner.py) that DMs the members
    whose reminder hour has come and who have reviews due, and says when to look next.

    `enabled` False (another process sends the DMs) makes every tick do nothing; the claim
    makes a second DM impossible anyway.
    """

    def __init__(
        self,
        service: QuizService,
        dms: DirectMessages,
        *,
        enabled: bool = True,
        window: timedelta = REMINDER_WINDOW,
    ) -> None:
        self.service = service
        self.store = service.store
        self.dms = dms
        self.enabled = enabled
        self.window = window

    async def tick(self, now: datetime) -> datetime | None:
        """Send the reminders due at `now`; the next moment one may be due (None: none)."""
        if not self.enabled:
            return None
        hours: list[ReminderHour] = await self.service.run_read(self.store.reminder_hours)
        wake: list[datetime] = []
        open_days: dict[tuple[str | None, int], Slot] = {}
        for used in hours:
            # The member's zone, else the server's (`used.zone`), else the bot's.
            zone = zone_or(used.zone, self.service.default_zone)
            slot = open_slot(used.hour, zone, now, self.window)
            if slot is not None:
                open_days[(used.zone, used.hour)] = slot
            wake.append(timing.next_slot(_at(used.hour), zone, now).at)
        if open_days:
            latest = max(slot.local_date for slot in open_days.values())
            found: list[ReminderCandidate] = await self.service.run_read(
                self.store.reminder_candidates, sorted({h for _, h in open_days}), latest
            )
            if found:
                # Counted as /review would serve them, with the banks as they are now.
                await self.service.refresh_server_banks()
            ahead = 0
            for candidate in found:
                slot = open_days.get((candidate.zone, candidate.hour))
                if slot is None:
                    continue
                if as_of(candidate.last_sent_on, slot.local_date) != candidate.last_sent_on:
                    ahead += await self.service.run_write(
                        self.store.settle_reminder_day,
                        candidate.guild_id,
                        candidate.user_id,
                        slot.local_date,
                    )
                    continue  # today counts as sent
                if not owed(slot, candidate.last_sent_on):
                    continue
                retry = await self._remind(candidate, slot, now)
                if retry is not None:
                    wake.append(retry)
            if ahead:
                log.warning(
                    "the last reminder of %d member(s) was dated after their today: the host's "
                    "clock ran ahead and was set right since; counted as today, so their next "
                    "reminder comes tomorrow",
                    ahead,
                )
        return min(wake, default=None)

    async def _remind(
        self, member: ReminderCandidate, slot: Slot, now: datetime
    ) -> datetime | None:
        """Remind one member if reviews are due; when to look again within the hour (a card
        falls due before it ends), else None."""
        guild_id, user_id = member.guild_id, member.user_id
        # What /review would serve, not every due card: a removed task's card, or one whose
        # task is open on a public post for the member, would send a DM /review then denies.
        summary = await self.service.sessions.review_status(guild_id, user_id, now)
        if summary.due_now == 0:
            ends = slot.at + self.window
            if summary.next_due is not None and summary.next_due < ends:
                return summary.next_due
            return None
        won = await self.service.run_write(
            self.store.claim_reminder, guild_id, user_id, slot.local_date
        )
        if not won:
            return None  # another process (or an earlier tick) has this day
        try:
            await self.dms.remind(guild_id, user_id, due=summary.due_now)
        except MemberGoneError:
            await self.service.run_write(self.store.turn_reminder_off, guild_id, user_id)
            log.info(
                "reminders of member %s in server %s turned off: they are not in it any more",
                user_id,
                guild_id,
            )
        except DmsClosedError:
            await self.service.run_write(self.store.reminder_dms_closed, guild_id, user_id, now)
            log.info(
                "reminders of member %s in server %s turned off: their DMs are closed",
                user_id,
                guild_id,
            )
        except DmFailedError as exc:
            log.warning(
                "reminder DM to member %s in server %s failed: %s (not retried today)",
                user_id,
                guild_id,
                exc,
            )
        return None
