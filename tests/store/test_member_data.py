"""A member's data in a server: every table that holds it is covered, /mydata show sums it up,
and deleting it (a member's, or a whole server's) takes exactly that, the leaderboard
totals with it, in one transaction, and nothing of anyone else's."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Table, func, insert, select

from bot.quiz.errors import StoreAction
from bot.store import Store, departures, member_data, sessions, welcome
from bot.store import leaderboard as boards
from bot.store import reminders as reminders_unit
from bot.store.member_data import GUILD_TABLES, MEMBER_TABLES, Deleted
from bot.store.migrate import target_metadata
from bot.store.schedule_tables import ScheduleRun
from bot.store.schedules import ScheduleStore
from bot.store.server_banks import BankStore
from bot.store.tables import table_of
from tests.store.conftest import CHANNEL, GUILD, NOW, WRONG, fresh_task, request
from tests.store_calls import (
    answer,
    configure,
    create_post,
    read,
    reveal_hint,
    reveal_solution,
    write,
)

UTC = ZoneInfo("UTC")
OTHER_GUILD = 2
ALICE, BOB = 11, 22
SHARED = frozenset({"task_version"})
"""Tables of no server: a post's task version may be any server's too."""
BY_SCHEDULE = frozenset({"schedule_run"})
"""Tables of a server through their schedule (`delete_guild` deletes them first)."""


def test_every_table_with_member_or_server_data_is_handled() -> None:
    """A new table with a user_id (or guild_id) column, or a new column naming a member,
    fails here until member_data.py says what deleting does with it."""
    tables = target_metadata().tables.values()
    with_user = {t.name for t in tables if "user_id" in t.c}
    assert with_user == {t.name for t in MEMBER_TABLES}
    names_member = {f"{t.name}.{c.name}" for t in tables for c in t.c if c.name.endswith("_by")}
    handled = (*member_data.CLEARED_MEMBER_IDS, *member_data.KEPT_MEMBER_IDS)
    assert names_member == {f"{c.table.name}.{c.name}" for c in handled}
    with_guild = {t.name for t in tables if "guild_id" in t.c}
    assert with_guild == {t.name for t in GUILD_TABLES}
    assert {t.name for t in tables} == with_guild | SHARED | BY_SCHEDULE


def rows_of(store: Store, table: Table, guild_id: int, user_id: int | None = None) -> int:
    where = [table.c.guild_id == guild_id]
    if user_id is not None:
        where.append(table.c.user_id == user_id)
    return read(store, lambda conn: conn.execute(select(func.count()).where(*where)).scalar_one())


def snapshot(store: Store, guild_id: int) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the server's, per table (to compare before and after)."""

    def rows(conn: Connection) -> dict[str, list[tuple[object, ...]]]:
        out = {}
        for table in GUILD_TABLES:
            stmt = select(table).where(table.c.guild_id == guild_id)
            out[table.name] = sorted(map(tuple, conn.execute(stmt)), key=repr)
        return out

    return read(store, rows)


def play(store: Store, guild_id: int, user_id: int, now: datetime) -> None:
    """Give the member a row in every member table: answers, a hint and a solution, a finished
    public task (a score, totals, a review card), a reminder, a practice session with its
    private post answered, and a post of theirs made with /quiz."""
    public = create_post(store, guild_id, CHANNEL, fresh_task(), now=now, posted_by=user_id)
    name = f"user{user_id}"
    reveal_hint(store, public.id, guild_id, user_id, name, now)
    answer(store, request(public, user_id, WRONG), now)
    answer(store, request(public, user_id), now)
    hinted = create_post(store, guild_id, CHANNEL, fresh_task(), now=now)
    reveal_solution(store, hinted.id, guild_id, user_id, name, now)
    write(
        store,
        reminders_unit.turn_on,
        guild_id,
        user_id,
        hour=18,
        timezone="Europe/Berlin",
        default_hour=18,
    )
    session = write(
        store,
        sessions.start_session,
        guild_id,
        user_id,
        "practice",
        topic=None,
        difficulty=None,
        now=now,
    )
    private = write(store, sessions.add_post, session, CHANNEL, fresh_task(), now)
    answer(store, request(private, user_id), now)


def leaderboard_ids(store: Store, guild_id: int, period: str = "all") -> list[int]:
    board = boards.leaderboard(store, guild_id, period, UTC, NOW, None, 10)
    return [rank.user_id for rank in board.rows]


def test_deleting_a_member_takes_all_of_theirs_and_nothing_else(store: Store) -> None:
    for guild_id in (GUILD, OTHER_GUILD):
        for user_id in (ALICE, BOB):
            play(store, guild_id, user_id, NOW)
    assert set(leaderboard_ids(store, GUILD)) == {ALICE, BOB}
    for table in MEMBER_TABLES:  # the setup really covers every table
        assert rows_of(store, table, GUILD, ALICE) > 0, table.name
    bob_before = read(store, member_data.member_summary, GUILD, BOB)
    other_before = snapshot(store, OTHER_GUILD)
    bob_board = boards.leaderboard(store, GUILD, "all", UTC, NOW, BOB, 10).me

    deleted = write(store, member_data.delete_member, GUILD, ALICE, action=StoreAction.DELETE)

    assert deleted["attempt"] == 3 and deleted["score"] == 3 and deleted["member"] == 1
    assert deleted["post"] == 1  # the practice post, hers alone
    assert deleted["post.posted_by"] == 1  # the public one stays, without her id
    for table in MEMBER_TABLES:
        assert rows_of(store, table, GUILD, ALICE) == 0, table.name
    assert read(store, member_data.member_summary, GUILD, ALICE).empty
    # Her points left the leaderboard at once, in every period; Bob's rank is his alone now.
    for period in ("all", "today", "week"):
        assert leaderboard_ids(store, GUILD, period) == [BOB]
    me = boards.leaderboard(store, GUILD, "all", UTC, NOW, BOB, 10).me
    assert bob_board is not None and me is not None and me.points == bob_board.points
    # Nobody else's data changed: Bob's in this server, hers and his in the other one.
    assert read(store, member_data.member_summary, GUILD, BOB) == bob_before
    assert snapshot(store, OTHER_GUILD) == other_before
    # Deleting again finds nothing.
    assert write(store, member_data.delete_member, GUILD, ALICE) == {}


def test_the_totals_after_a_deletion_are_those_the_scores_give(store: Store) -> None:
    for user_id in (ALICE, BOB):
        play(store, GUILD, user_id, NOW)
    leaderboard_ids(store, GUILD)  # the totals are built and kept from here on
    write(store, member_data.delete_member, GUILD, ALICE)
    for period in ("all", "today", "week"):
        exact = read(store, boards.leaderboard_exact, GUILD, period, UTC, NOW, None, 10)
        kept = boards.leaderboard(store, GUILD, period, UTC, NOW, None, 10)
        assert [(r.user_id, r.points) for r in kept.rows] == [
            (r.user_id, r.points) for r in exact.rows
        ]


def test_a_member_who_plays_again_after_deleting_is_named_again(store: Store) -> None:
    """The writer remembers names it committed and skips writing them again: a deletion must
    make it forget, or the member would be back without a name."""
    play(store, GUILD, ALICE, NOW)
    write(store, member_data.delete_member, GUILD, ALICE)
    post = create_post(store, GUILD, CHANNEL, fresh_task(), now=NOW)
    answer(store, request(post, ALICE), NOW + timedelta(minutes=1))
    assert read(store, member_data.member_summary, GUILD, ALICE).name == f"user{ALICE}"


def test_the_summary_counts_and_dates_what_is_kept(store: Store) -> None:
    play(store, GUILD, ALICE, NOW)
    play(store, GUILD, BOB, NOW + timedelta(days=1))  # another member: not counted
    data = read(store, member_data.member_summary, GUILD, ALICE)
    assert data.name == f"user{ALICE}"
    assert data.first_seen == NOW
    assert (data.attempts.count, data.correct) == (3, 2)
    assert data.attempts.first == data.attempts.last == NOW
    assert (data.finished, data.solved) == (3, 2)  # the forfeited one is finished, unsolved
    assert data.points > 0
    assert (data.hints, data.solutions) == (1, 1)
    assert data.review_cards >= 1 and data.next_review is not None
    assert data.reminder == (18, "Europe/Berlin")
    assert data.practice_sessions.count == 1 and data.review_sessions.count == 0
    assert data.posts == 1
    nobody = read(store, member_data.member_summary, GUILD, 999)
    assert nobody.empty and nobody.name is None


def test_the_practice_points_are_not_leaderboard_points(store: Store) -> None:
    play(store, GUILD, ALICE, NOW)
    data = read(store, member_data.member_summary, GUILD, ALICE)
    board = boards.leaderboard(store, GUILD, "all", UTC, NOW, ALICE, 10).me
    assert board is not None and data.points == board.points


def server_records(store: Store, guild_id: int, now: datetime) -> None:
    """A server's own rows: settings, a daily quiz with a run, a bank, the welcome, totals."""
    schedule = ScheduleStore(store).add(
        guild_id=guild_id,
        channel_id=CHANNEL,
        local_time="09:00",
        timezone="UTC",
        created_by=ALICE,
        now=now,
    )
    run = {
        "schedule_id": schedule.id,
        "local_date": now.date(),
        "scheduled_for": now,
        "claimed_at": now,
    }
    write(store, lambda conn: conn.execute(insert(table_of(ScheduleRun)), run))
    BankStore(store).save(guild_id, "net", "bank: Net\n", 1, ALICE, now)
    write(store, welcome.claim_welcome, guild_id, now)
    leaderboard_ids(store, guild_id)  # board_state
    configure(store, guild_id, timezone="Europe/Berlin")


def count_all(store: Store) -> dict[str, int]:
    def counts(conn: Connection) -> dict[str, int]:
        return {
            t.name: conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in target_metadata().sorted_tables
        }

    return read(store, counts)


def test_deleting_a_server_leaves_no_row_of_it_and_every_other_server_whole(
    store: Store,
) -> None:
    for guild_id in (GUILD, OTHER_GUILD):
        for user_id in (ALICE, BOB):
            play(store, guild_id, user_id, NOW)
        server_records(store, guild_id, NOW)
    write(store, departures.mark_removed, GUILD, NOW)
    for table in GUILD_TABLES:
        assert rows_of(store, table, GUILD) > 0, table.name  # every table is exercised
    other = snapshot(store, OTHER_GUILD)
    before = count_all(store)

    deleted: Deleted = write(store, member_data.delete_guild, GUILD, action=StoreAction.DELETE)

    for table in GUILD_TABLES:
        assert rows_of(store, table, GUILD) == 0, table.name
    after = count_all(store)
    assert after["schedule_run"] == before["schedule_run"] - 1 == deleted["schedule_run"]
    assert after["task_version"] == before["task_version"]  # shared: kept
    assert snapshot(store, OTHER_GUILD) == other
    assert "deleted" not in member_data.describe(deleted)
    assert member_data.describe(deleted).startswith("attempt ")
    assert member_data.describe({}) == "nothing"


def test_the_removal_mark_keeps_the_first_departure_and_clears_on_return(store: Store) -> None:
    later = NOW + timedelta(days=3)
    write(store, departures.mark_removed, GUILD, NOW)
    write(store, departures.mark_removed, GUILD, later)  # a second GUILD_DELETE
    write(store, departures.mark_removed, OTHER_GUILD, later)
    assert read(store, departures.removals) == {GUILD: NOW, OTHER_GUILD: later}
    assert write(store, departures.mark_present, [GUILD]) == 1
    assert write(store, departures.mark_present, []) == 0
    assert read(store, departures.removals) == {OTHER_GUILD: later}


def test_settling_at_start_marks_the_servers_left_while_down(store: Store) -> None:
    """Known but not present: left while the bot was down (only this process's shards', and
    never terminal practice's server 0); present: not removed."""
    for guild_id in (0, GUILD, OTHER_GUILD, 3, 4):
        play(store, guild_id, ALICE, NOW)
    write(store, departures.mark_removed, OTHER_GUILD, NOW)

    def owns(guild_id: int) -> bool:
        return guild_id != 4  # another process's shard

    known = read(store, departures.known_guilds)
    assert known == {0, GUILD, OTHER_GUILD, 3, 4}
    at = NOW + timedelta(hours=1)
    gone, back = write(store, departures.settle, [OTHER_GUILD], known, owns, at)
    assert (gone, back) == (2, 1)
    assert read(store, departures.removals) == {
        GUILD: NOW + timedelta(hours=1),
        3: NOW + timedelta(hours=1),
    }
    # Again: nothing new; the first departure time stands.
    assert write(store, departures.settle, [], known, owns, NOW + timedelta(days=1)) == (1, 0)
    assert read(store, departures.removals)[GUILD] == NOW + timedelta(hours=1)
