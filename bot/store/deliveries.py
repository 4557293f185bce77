"""Who is sending a daily quiz's day right now: a lock held for as long as one process posts it.

The claim (`ScheduleStore.claim`) makes a day start once, but a claimed day is resumed by
whoever ticks next (bot/schedule/runner.py, "Recover"): after a crash, that is the restarted
process, which finds what went out in the channel and sends the rest. While the claimer is
still sending, a second process on the same shard (by mistake, or during a change of
SHARD_IDS) would find nothing in the channel yet and send the same post again. So the day is
held while it is delivered: the claimer takes it before claiming, and a process resuming a day
someone holds leaves it alone.

On PostgreSQL the hold is a session advisory lock on one connection kept for as long as this
process holds any day: a process that dies loses its connection and, with it, its holds, so
the day is resumed at the next tick (a host that vanishes: within about a minute). On SQLite
one process runs per database (bot/store/process_claim.py), so holding within the process
is enough.
"""

from __future__ import annotations

import logging
import threading
from datetime import date

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from bot.quiz.errors import StoreAction
from bot.store import dialect, faults
from bot.store.store import Store

log = logging.getLogger(__name__)

Day = tuple[int, date]
"""(schedule id, local date): one day of one daily quiz."""


class Deliveries:
    """The days this process is sending. Thread-safe (the scheduler calls it through the
    service's reader threads)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._mutex = threading.Lock()
        self._held: set[Day] = set()
        self._conn: Connection | None = None

    @property
    def _shared(self) -> bool:
        return dialect.has_session_locks(self.store.engine)

    def take(self, schedule_id: int, local_date: date) -> bool:
        """Hold the day; False if this or another process holds it (it is being sent)."""
        day = (schedule_id, local_date)
        with self._mutex:
            if day in self._held:
                return False
            if self._shared:
                with faults.translated(self.store.engine.url, StoreAction.READ):
                    try:
                        taken = dialect.try_session_lock(self._connection(), _key(day))
                    except DBAPIError:
                        self._drop()
                        raise
                if not taken:
                    self._close_if_idle()
                    return False
            self._held.add(day)
            return True

    def give_back(self, schedule_id: int, local_date: date) -> None:
        """Let the day go (after sending it, or failing to). Never raises: a connection that
        is gone has let go of its holds already."""
        day = (schedule_id, local_date)
        with self._mutex:
            if day not in self._held:
                return
            self._held.discard(day)
            if self._conn is None:
                return
            try:
                dialect.session_unlock(self._conn, _key(day))
            except DBAPIError as exc:
                log.warning("letting go of daily quiz %s, %s: %s", schedule_id, local_date, exc)
                self._drop()
                return
            self._close_if_idle()

    def close(self) -> None:
        """Let go of every day (the scheduler stops)."""
        with self._mutex:
            self._held.clear()
            self._drop()

    def _connection(self) -> Connection:
        if self._conn is None:
            self._conn = dialect.session_lock_connection(self.store.engine)
        return self._conn

    def _close_if_idle(self) -> None:
        if not self._held and self._conn is not None:
            self._conn.close()  # holds nothing: safe to return to the pool
            self._conn = None

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            dialect.drop_connection(conn)


def _key(day: Day) -> int:
    return dialect.lock_key("delivery", day)


__all__ = ["Deliveries"]
