"""Daily review reminders: the pass that sends them, and the DM's text (when they are due:
bot/quiz/reminders.py).

At most one DM per member per local day, across restarts and processes: the pass claims the
day in the database before sending (`store.reminders.claim`); a failed DM is not retried that
day, and closed DMs turn the reminder off. Discord only through `DirectMessages`.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from bot.clock import zone_or
from bot.i18n import _, formats, ngettext
from bot.quiz import timing
from bot.quiz.errors import StoreAction
from bot.quiz.reminders import REMINDER_WINDOW, as_of, at_hour, open_slot, owed
from bot.quiz.timing import Slot
from bot.store import reminders as stored

if TYPE_CHECKING:
    from bot.service import QuizService
    from bot.store.reminders import ReminderCandidate

log = logging.getLogger(__name__)


class DmsClosedError(Exception):
    """Discord refused the DM because the member does not accept direct messages from us."""


class MemberGoneError(Exception):
    """The member has left the server (or the bot has): no reminder is theirs to get."""


class DmFailedError(Exception):
    """The DM could not be sent for any other reason; the message says why, for the log."""


def reminder_text(due: int, server: str) -> str:
    """The reminder DM, in the current locale (the server's: a DM has no member's language)."""
    invite = ngettext(
        "⏰ You have {n} review due in {server}. Use /review in {server} to go through it.",
        "⏰ You have {n} reviews due in {server}. Use /review in {server} to go through them.",
        due,
    ).format(n=formats.number(due), server=server)
    stop = _("-# One reminder a day at most; `/reminders off` in that server stops them.")
    return f"{invite}\n{stop}"


class DirectMessages(Protocol):
    """What the reminder pass asks of Discord. Implemented by bot/discord_ui/dm.py."""

    async def remind(self, guild_id: int, user_id: int, *, due: int) -> None:
        """DM the member that `due` reviews wait in that server (`reminder_text`). Raises
        MemberGoneError, DmsClosedError or DmFailedError."""
        ...


class Reminders:
    """A `Scheduler` pass that DMs the members whose reminder hour has come and who have
    reviews due. `enabled` False: another process sends the DMs."""

    def __init__(
        self,
        service: QuizService,
        dms: DirectMessages,
        *,
        enabled: bool = True,
        window: timedelta = REMINDER_WINDOW,
    ) -> None:
        self.service = service
        self.dms = dms
        self.enabled = enabled
        self.window = window

    async def tick(self, now: datetime) -> datetime | None:
        """Send the reminders due at `now`; the next moment one may be due (None: none)."""
        if not self.enabled:
            return None
        hours = await self.service.run_read(stored.hours_in_use)
        wake: list[datetime] = []
        open_days: dict[tuple[str | None, int], Slot] = {}
        for used in hours:
            # The member's zone, else the server's (`used.zone`), else the bot's.
            zone = zone_or(used.zone, self.service.default_zone)
            slot = open_slot(used.hour, zone, now, self.window)
            if slot is not None:
                open_days[(used.zone, used.hour)] = slot
            wake.append(timing.next_slot(at_hour(used.hour), zone, now).at)
        if open_days:
            latest = max(slot.local_date for slot in open_days.values())
            found = await self.service.run_read(
                stored.candidates, sorted({h for _, h in open_days}), latest
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
                        StoreAction.WRITE,
                        stored.settle_day,
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
            StoreAction.WRITE, stored.claim, guild_id, user_id, slot.local_date
        )
        if not won:
            return None  # another process (or an earlier tick) has this day
        try:
            await self.dms.remind(guild_id, user_id, due=summary.due_now)
        except MemberGoneError:
            await self.service.run_write(StoreAction.CHANGE, stored.turn_off, guild_id, user_id)
            log.info(
                "reminders of member %s in server %s turned off: they are not in it any more",
                user_id,
                guild_id,
            )
        except DmsClosedError:
            await self.service.run_write(
                StoreAction.WRITE, stored.dms_closed, guild_id, user_id, now
            )
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
