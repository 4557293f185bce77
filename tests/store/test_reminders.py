"""Members' reminders as the store keeps them: the settings, the claim of a local day (one
caller wins it), the closed-DMs notice (given once), and the rows the reminder pass reads."""

from __future__ import annotations

from datetime import date

from bot.quiz.errors import StoreAction
from bot.store import Store, reminders
from bot.store.reminders import ReminderCandidate, ReminderHour
from tests.reminder_reads import reminder_on
from tests.store.conftest import GUILD, NOW
from tests.store_calls import configure, read, write

ALICE, BOB, CAROL = 11, 22, 33
OTHER_GUILD = 2
DAY = date(2024, 5, 8)


def on(
    store: Store,
    user_id: int,
    hour: int | None = None,
    zone: str | None = None,
    *,
    guild_id: int = GUILD,
) -> None:
    write(
        store,
        reminders.turn_on,
        guild_id,
        user_id,
        hour=hour,
        timezone=zone,
        default_hour=18,
        action=StoreAction.CHANGE,
    )


def test_on_defaults_then_keeps_the_hour_and_zone(store: Store) -> None:
    on(store, ALICE)
    first = reminder_on(store, GUILD, ALICE)
    assert first is not None and (first.hour, first.zone) == (18, None)
    on(store, ALICE, 7, "Europe/Berlin")
    assert write(store, reminders.turn_off, GUILD, ALICE, action=StoreAction.CHANGE)
    assert not write(
        store, reminders.turn_off, GUILD, ALICE, action=StoreAction.CHANGE
    )  # already off
    on(store, ALICE)  # again, with nothing given: as before
    again = reminder_on(store, GUILD, ALICE)
    assert again is not None and (again.hour, again.zone) == (7, "Europe/Berlin")
    assert reminder_on(store, GUILD, BOB) is None


def test_a_day_is_claimed_once_and_only_while_on(store: Store) -> None:
    on(store, ALICE, 7)
    assert write(store, reminders.claim, GUILD, ALICE, DAY)
    assert not write(store, reminders.claim, GUILD, ALICE, DAY)
    assert not write(store, reminders.claim, GUILD, ALICE, date(2024, 5, 7))  # an earlier day
    assert write(store, reminders.claim, GUILD, ALICE, date(2024, 5, 9))
    write(store, reminders.turn_off, GUILD, ALICE, action=StoreAction.CHANGE)
    assert not write(store, reminders.claim, GUILD, ALICE, date(2024, 5, 10))
    assert not write(store, reminders.claim, GUILD, BOB, DAY)  # no reminder at all
    on(store, ALICE)  # on again: the claimed day stays claimed
    assert not write(store, reminders.claim, GUILD, ALICE, date(2024, 5, 9))
    reminder = reminder_on(store, GUILD, ALICE)
    assert reminder is not None and reminder.last_sent_on == date(2024, 5, 9)


def test_a_new_server_zone_moves_each_claimed_day_once(store: Store) -> None:
    """Days moved back one: 8 May becomes 7 May while 7 May becomes 6 May, in one UPDATE, so
    no member's day is moved twice; a member with their own zone keeps theirs."""
    for user_id, day in ((ALICE, DAY), (BOB, date(2024, 5, 7))):
        on(store, user_id, 7)
        write(store, reminders.claim, GUILD, user_id, day)
    on(store, CAROL, 7, "Europe/Berlin")
    write(store, reminders.claim, GUILD, CAROL, DAY)
    calls: list[tuple[date, str | None, str | None]] = []

    def back_a_day(day: date, old: str | None, new: str | None) -> date:
        calls.append((day, old, new))
        return date.fromordinal(day.toordinal() - 1)

    configure(store, GUILD, rezone=back_a_day, timezone="America/New_York")
    assert sorted(calls) == [(day, None, "America/New_York") for day in (date(2024, 5, 7), DAY)]
    days = {u: r.last_sent_on for u in (ALICE, BOB, CAROL) if (r := reminder_on(store, GUILD, u))}
    assert days == {ALICE: date(2024, 5, 7), BOB: date(2024, 5, 6), CAROL: DAY}
    configure(store, GUILD, rezone=back_a_day, post_policy="mods")
    assert len(calls) == 2  # the zone did not change: nothing moves


def test_closed_dms_turn_it_off_and_leave_one_notice(store: Store) -> None:
    on(store, ALICE, 7)
    assert not read(store, reminders.dm_notice_pending, GUILD, ALICE)
    write(store, reminders.dms_closed, GUILD, ALICE, NOW)
    assert reminder_on(store, GUILD, ALICE) is None  # off
    assert read(store, reminders.dm_notice_pending, GUILD, ALICE)
    assert write(store, reminders.take_dm_notice, GUILD, ALICE)
    assert not write(store, reminders.take_dm_notice, GUILD, ALICE)
    assert not read(store, reminders.dm_notice_pending, GUILD, ALICE)


def test_turning_it_on_again_drops_the_notice(store: Store) -> None:
    on(store, ALICE, 7)
    write(store, reminders.dms_closed, GUILD, ALICE, NOW)
    on(store, ALICE)
    assert not write(store, reminders.take_dm_notice, GUILD, ALICE)


def test_hours_in_use_take_the_members_zone_else_the_servers(store: Store) -> None:
    configure(store, GUILD, timezone="Asia/Tokyo")
    on(store, ALICE, 9)
    on(store, BOB, 9)
    on(store, CAROL, 9, "Europe/Berlin")
    on(store, ALICE, 9, guild_id=OTHER_GUILD)  # a server without a zone
    on(store, BOB, 20, guild_id=OTHER_GUILD)
    write(store, reminders.turn_off, OTHER_GUILD, BOB, action=StoreAction.CHANGE)
    assert sorted(read(store, reminders.hours_in_use), key=lambda h: (h.zone or "", h.hour)) == [
        ReminderHour(None, 9),
        ReminderHour("Asia/Tokyo", 9),
        ReminderHour("Europe/Berlin", 9),
    ]


def test_candidates_are_at_the_hours_asked_and_not_sent_on_the_day(store: Store) -> None:
    on(store, ALICE, 9)
    on(store, BOB, 9, "Europe/Berlin")
    on(store, CAROL, 10)
    write(store, reminders.claim, GUILD, BOB, DAY)
    assert read(store, reminders.candidates, [9], DAY) == [
        ReminderCandidate(GUILD, ALICE, None, 9, None)
    ]
    assert [c.user_id for c in read(store, reminders.candidates, [9, 10], date(2024, 5, 9))] == [
        ALICE,
        BOB,
        CAROL,
    ]
    assert read(store, reminders.candidates, [], DAY) == []
    # A day after the one asked was stamped by a clock that ran ahead: the pass sets it right.
    write(store, reminders.claim, GUILD, CAROL, date(2025, 5, 8))
    assert [c.user_id for c in read(store, reminders.candidates, [10], DAY)] == [CAROL]


def test_a_day_after_today_is_settled_as_today_and_no_other(store: Store) -> None:
    on(store, ALICE, 9)
    on(store, BOB, 9)
    write(store, reminders.claim, GUILD, ALICE, date(2025, 5, 8))  # a year ahead
    write(store, reminders.claim, GUILD, BOB, DAY)
    assert write(store, reminders.settle_day, GUILD, ALICE, DAY)
    assert not write(store, reminders.settle_day, GUILD, BOB, DAY)  # today's own day: left as it is
    assert not write(store, reminders.settle_day, GUILD, CAROL, DAY)  # no reminder at all
    for user_id in (ALICE, BOB):
        reminder = reminder_on(store, GUILD, user_id)
        assert reminder is not None and reminder.last_sent_on == DAY
    assert write(store, reminders.claim, GUILD, ALICE, date(2024, 5, 9))  # tomorrow is owed again
