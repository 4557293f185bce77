"""Members' daily review reminders as rows of `member_reminder`.

Decided here: the claim of a member's local day (`claim`: at most one DM a day, across
processes) and the one-time closed-DMs notice (`take_dm_notice`). When a member's hour has come
is bot/quiz/reminders.py's rule; the store only narrows the rows to read by hour.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Connection, case, func, or_, select, update

from bot.store import dialect
from bot.store.learning_tables import MemberReminder
from bot.store.tables import GuildConfig, table_of

_reminder = table_of(MemberReminder)
_config = table_of(GuildConfig)
_ZONE = func.coalesce(_reminder.c.timezone, _config.c.timezone)  # the member's, else the server's
_WITH_ZONE = _reminder.outerjoin(_config, _config.c.guild_id == _reminder.c.guild_id)


Rezone = Callable[[date, str | None, str | None], date]
"""(last reminder day, old zone, new zone) -> the day in the new zone (`reminders.sent_day_in`)."""


@dataclass(frozen=True, slots=True)
class ReminderInfo:
    guild_id: int
    user_id: int
    enabled: bool
    hour: int
    timezone: str | None  # the member's own IANA zone; None: the server's
    last_sent_on: date | None  # the member's local date of the last DM


@dataclass(frozen=True, slots=True)
class ReminderHour:
    """A local hour in a zone that at least one enabled reminder uses."""

    zone: str | None  # the member's, else the server's; None: neither is set
    hour: int


@dataclass(frozen=True, slots=True)
class ReminderCandidate:
    """An enabled reminder at one of the hours asked about, not sent since the date asked."""

    guild_id: int
    user_id: int
    zone: str | None  # as in `ReminderHour`
    hour: int
    last_sent_on: date | None


def _mine(guild_id: int, user_id: int) -> tuple[Any, ...]:
    return (_reminder.c.guild_id == guild_id, _reminder.c.user_id == user_id)


def get(conn: Connection, guild_id: int, user_id: int) -> ReminderInfo | None:
    row = conn.execute(select(_reminder).where(*_mine(guild_id, user_id))).first()
    if row is None:
        return None
    return ReminderInfo(
        row.guild_id, row.user_id, bool(row.enabled), row.hour, row.timezone, row.last_sent_on
    )


def turn_on(
    conn: Connection,
    guild_id: int,
    user_id: int,
    *,
    hour: int | None,
    timezone: str | None,
    default_hour: int,
    server_zone: bool = False,
    rezone: Rezone | None = None,
) -> ReminderInfo:
    """Enable the member's reminder; None keeps the stored hour and zone, `server_zone` goes
    back to the server's. `last_sent_on` stays (off and on brings no second DM that day), moved
    into a new zone with `rezone`, in this unit so that a claim cannot slip in between."""
    old = get(conn, guild_id, user_id)
    kept_zone = None if server_zone or old is None else old.timezone
    values: dict[str, Any] = {
        "enabled": True,
        "hour": hour if hour is not None else (old.hour if old else default_hour),
        "timezone": timezone if timezone is not None else kept_zone,
        "dms_closed_at": None,
    }
    if rezone is not None and old is not None and old.last_sent_on is not None:
        server = conn.execute(
            select(_config.c.timezone).where(_config.c.guild_id == guild_id)
        ).scalar()
        was, now_in = old.timezone or server, values["timezone"] or server
        if was != now_in:
            values["last_sent_on"] = rezone(old.last_sent_on, was, now_in)
    conn.execute(
        dialect.upsert(conn, _reminder, ("guild_id", "user_id"), lambda _: values),
        {"guild_id": guild_id, "user_id": user_id, "last_sent_on": None, **values},
    )
    info = get(conn, guild_id, user_id)
    assert info is not None
    return info


def rezone_server(
    conn: Connection, guild_id: int, old: str | None, new: str | None, rezone: Rezone
) -> None:
    """The server's zone changed: move the last reminder day of its members on the server's
    zone, as `turn_on` does. One UPDATE (a CASE over the days), so no row moves twice."""
    if old == new:
        return
    of_server = (
        _reminder.c.guild_id == guild_id,
        _reminder.c.timezone.is_(None),
        _reminder.c.last_sent_on.is_not(None),
    )
    days = conn.execute(select(_reminder.c.last_sent_on).where(*of_server).distinct()).scalars()
    moved = {day: after for day in days if (after := rezone(day, old, new)) != day}
    if moved:
        conn.execute(
            update(_reminder)
            .where(*of_server, _reminder.c.last_sent_on.in_(sorted(moved)))
            .values(last_sent_on=case(moved, value=_reminder.c.last_sent_on))
        )


def turn_off(conn: Connection, guild_id: int, user_id: int) -> bool:
    """Disable the member's reminder; whether it was on."""
    result = conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id), _reminder.c.enabled.is_(True))
        .values(enabled=False)
    )
    return result.rowcount == 1


def hours_in_use(conn: Connection) -> list[ReminderHour]:
    """Every (zone, hour) of an enabled reminder, once: when the reminder pass looks next."""
    rows = conn.execute(
        select(_ZONE.label("zone"), _reminder.c.hour)
        .select_from(_WITH_ZONE)
        .where(_reminder.c.enabled.is_(True))
        .distinct()
    )
    return [ReminderHour(row.zone, row.hour) for row in rows]


def candidates(conn: Connection, hours: Iterable[int], before: date) -> list[ReminderCandidate]:
    """The enabled reminders at one of `hours` not sent on `before`; the caller checks each
    one's zone and day (and `settle_day`s a day a clock ahead stamped)."""
    wanted = sorted(set(hours))
    if not wanted:
        return []
    rows = conn.execute(
        select(
            _reminder.c.guild_id,
            _reminder.c.user_id,
            _ZONE.label("zone"),
            _reminder.c.hour,
            _reminder.c.last_sent_on,
        )
        .select_from(_WITH_ZONE)
        .where(
            _reminder.c.enabled.is_(True),
            _reminder.c.hour.in_(wanted),
            or_(_reminder.c.last_sent_on.is_(None), _reminder.c.last_sent_on != before),
        )
        .order_by(_reminder.c.guild_id, _reminder.c.user_id)
    )
    return [
        ReminderCandidate(row.guild_id, row.user_id, row.zone, row.hour, row.last_sent_on)
        for row in rows
    ]


def claim(conn: Connection, guild_id: int, user_id: int, day: date) -> bool:
    """Take the member's local `day` for a DM: True for one caller, while enabled and that day
    (or a later one) is unclaimed."""
    result = conn.execute(
        update(_reminder)
        .where(
            *_mine(guild_id, user_id),
            _reminder.c.enabled.is_(True),
            or_(_reminder.c.last_sent_on.is_(None), _reminder.c.last_sent_on < day),
        )
        .values(last_sent_on=day)
    )
    return result.rowcount == 1


def settle_day(conn: Connection, guild_id: int, user_id: int, today: date) -> bool:
    """Date a last reminder day after the member's `today` as `today`; True if it was."""
    result = conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id), _reminder.c.last_sent_on > today)
        .values(last_sent_on=today)
    )
    return result.rowcount == 1


def dms_closed(conn: Connection, guild_id: int, user_id: int, now: datetime) -> None:
    """Discord refused to DM the member: turn the reminder off and leave a notice for them."""
    conn.execute(
        update(_reminder).where(*_mine(guild_id, user_id)).values(enabled=False, dms_closed_at=now)
    )


def dm_notice_pending(conn: Connection, guild_id: int, user_id: int) -> bool:
    row = conn.execute(
        select(_reminder.c.dms_closed_at).where(
            *_mine(guild_id, user_id), _reminder.c.dms_closed_at.is_not(None)
        )
    ).first()
    return row is not None


def take_dm_notice(conn: Connection, guild_id: int, user_id: int) -> bool:
    """Whether a closed-DMs notice was pending; cleared, so exactly one caller sees True."""
    result = conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id), _reminder.c.dms_closed_at.is_not(None))
        .values(dms_closed_at=None)
    )
    return result.rowcount == 1
