"""A member's daily reminder as the reminder pass reads it (`store.reminders.candidates`), for
tests that check what turning it on or off, or a failed DM, left behind."""

from __future__ import annotations

from datetime import date

from bot.store import Store, reminders
from bot.store.reminders import ReminderCandidate
from tests.store_calls import read

_NO_DAY_SENT = date(1970, 1, 1)
"""No reminder was ever sent on this day: every reminder that is on is a candidate for it."""


def reminder_on(store: Store, guild_id: int, user_id: int) -> ReminderCandidate | None:
    """The member's reminder if it is on: its hour, its zone (the member's own, else the
    server's) and the last day it was sent; None if it is off or was never set."""
    for candidate in read(store, reminders.candidates, range(24), _NO_DAY_SENT):
        if (candidate.guild_id, candidate.user_id) == (guild_id, user_id):
            return candidate
    return None
