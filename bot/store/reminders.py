"""Members' daily review reminders as rows of `member_reminder`.

What the store decides here, once: the claim of a member's local day (`claim`: an UPDATE whose
WHERE only a day not yet claimed passes, so at most one DM per member per local day, across
restarts and processes), and the one-time notice that the reminders were turned off because
the member's DMs are closed (`take_dm_notice`). When a member's hour has come is decided above
the store (bot/quiz/reminders.py); the store only narrows the rows to read by hour.
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


Rezone = Callable[[date, str | None, str | None], date]
"""A member's last reminder day (a local date) moved from one zone to another: (day, old zone,
new zone), each zone the member's, else the server's (None: neither is set). The rule is
`bot.quiz.reminders.sent_day_in`."""


@dataclass(frozen=True, slots=True)
class ReminderInfo:
    """A member's reminder setting."""

    guild_id: int
    user_id: int
    enabled: bool
    hour: int
    timezone: str | None
    """The member's own IANA zone; None: the server's."""
    last_sent_on: date | None
    """The member's local date of the last reminder DM."""


@dataclass(frozen=True, slots=True)
class ReminderHour:
    """A local hour in a zone that at least one enabled reminder uses."""

    zone: str | None
    """The member's zone, else the server's; None: neither is set (the bot's default)."""
    hour: int


@dataclass(frozen=True, slots=True)
class ReminderCandidate:
    """An enabled reminder at one of the hours asked about, not sent since the date asked."""

    guild_id: int
    user_id: int
    zone: str | None
    """As in `ReminderHour`."""
    hour: int
    last_sent_on: date | None


def _mine(guild_id: int, user_id: int) -> tuple[Any, ...]:
    return (_reminder.c.guild_id == guild_id, _reminder.c.user_id == user_id)


def _info(row: Any) -> ReminderInfo:
    return ReminderInfo(
        guild_id=row.guild_id,
        user_id=row.user_id,
        enabled=bool(row.enabled),
        hour=row.hour,
        timezone=row.timezone,
        last_sent_on=row.last_sent_on,
    )


def get(conn: Connection, guild_id: int, user_id: int) -> ReminderInfo | None:
    row = conn.execute(select(_reminder).where(*_mine(guild_id, user_id))).first()
    return None if row is None else _info(row)


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
    """Enable the member's reminder. `hour` None keeps the stored hour (else `default_hour`);
    `timezone` None keeps the stored zone (else the server's), and `server_zone` goes back to
    the server's. A pending closed-DMs notice is dropped: turning reminders on again says it
    all. `last_sent_on` stays, so turning them off and on cannot bring a second DM the same
    day; when the zone changes it is moved into the new zone with `rezone`, read and written
    here so that a claim cannot slip in between."""
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
    """The server's zone changed from `old` to `new`: move the last reminder day of its
    members who keep the server's zone, as `turn_on` does for a member who changes theirs.
    One UPDATE (a CASE over the few distinct days), so no row is moved twice."""
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


def _zone() -> Any:
    """The zone a reminder keeps: the member's, else the server's (NULL: neither is set)."""
    return func.coalesce(_reminder.c.timezone, _config.c.timezone)


def _enabled_with_zone() -> Any:
    return _reminder.outerjoin(_config, _config.c.guild_id == _reminder.c.guild_id)


def hours_in_use(conn: Connection) -> list[ReminderHour]:
    """Every (zone, hour) of an enabled reminder, once each: what the reminder pass needs to
    know when to look next, however many members share them."""
    rows = conn.execute(
        select(_zone().label("zone"), _reminder.c.hour)
        .select_from(_enabled_with_zone())
        .where(_reminder.c.enabled.is_(True))
        .distinct()
    )
    return [ReminderHour(row.zone, row.hour) for row in rows]


def candidates(conn: Connection, hours: Iterable[int], before: date) -> list[ReminderCandidate]:
    """The enabled reminders at one of `hours` not sent on `before`. The caller checks each
    candidate's own zone and day (a zone's day may be earlier than `before`). A day after
    `before` is after every open day: a clock that ran ahead stamped it, and the caller sets it
    right (`settle_day`)."""
    wanted = sorted(set(hours))
    if not wanted:
        return []
    rows = conn.execute(
        select(
            _reminder.c.guild_id,
            _reminder.c.user_id,
            _zone().label("zone"),
            _reminder.c.hour,
            _reminder.c.last_sent_on,
        )
        .select_from(_enabled_with_zone())
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
    """Take the member's local `day` for a reminder DM: True for exactly one caller, and only
    while the reminder is enabled and that day (or a later one) has not been claimed."""
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
    """Date a last reminder day after the member's `today` as `today` (`reminders.as_of`):
    True if it was."""
    result = conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id), _reminder.c.last_sent_on > today)
        .values(last_sent_on=today)
    )
    return result.rowcount == 1


def dms_closed(conn: Connection, guild_id: int, user_id: int, now: datetime) -> None:
    """Discord refused to DM the member: turn the reminder off and leave a notice for them."""
    conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id))
        .values(enabled=False, dms_closed_at=now)
    )


def dm_notice_pending(conn: Connection, guild_id: int, user_id: int) -> bool:
    row = conn.execute(
        select(_reminder.c.dms_closed_at).where(
            *_mine(guild_id, user_id), _reminder.c.dms_closed_at.is_not(None)
        )
    ).first()
    return row is not None


def take_dm_notice(conn: Connection, guild_id: int, user_id: int) -> bool:
    """Whether a closed-DMs notice was pending for the member; it is cleared, so exactly one
    caller sees True."""
    result = conn.execute(
        update(_reminder)
        .where(*_mine(guild_id, user_id), _reminder.c.dms_closed_at.is_not(None))
        .values(dms_closed_at=None)
    )
    return result.rowcount == 1
