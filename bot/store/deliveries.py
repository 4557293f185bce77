"""Who is sending a daily quiz's day right now: held while one process posts it.

A claimed day is resumed by whoever ticks next (after a crash, the restarted process). A
second process resuming it while the claimer still sends would post it twice, so it leaves a
held day alone. On PostgreSQL the hold is a session advisory lock (a dead process loses it with
its connection); on SQLite one process runs per database, so holding in memory is enough.
"""

from __future__ import annotations

import logging
import threading
from datetime import date

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from bot.quiz.errors import StoreAction
from bot.store import dialect
from bot.store.store import Store, translated

log = logging.getLogger(__name__)

Day = tuple[int, date]  # (schedule id, local date)


class Deliveries:
    """The days this process is sending. Thread-safe (called from the reader threads)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._mutex = threading.Lock()
        self._held: set[Day] = set()
        self._conn: Connection | None = None

    def take(self, schedule_id: int, local_date: date) -> bool:
        """Hold the day; False if this or another process holds it (it is being sent)."""
        day = (schedule_id, local_date)
        with self._mutex:
            if day in self._held:
                return False
            if dialect.has_session_locks(self.store.engine):
                with translated(self.store.engine.url, StoreAction.READ):
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
        """Let the day go. Never raises: a connection that is gone let go already."""
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
