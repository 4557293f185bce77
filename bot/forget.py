"""`quizbot forget --guild G [--member M]`: a host deletes a member's data in a server, or a
whole server's, in one transaction (which rows: bot/store/member_data.py), and is told what."""

from __future__ import annotations

from typing import IO

from bot.quiz.errors import StoreAction
from bot.store import Store, make_engine, member_data
from bot.store.migrate import not_current
from bot.store.preflight import check_database, check_readable

FIND_IDS = "in Discord, right-click the server (or member) and Copy ID"


def forget_command(
    url: str, guild_id: int, member_id: int | None, out: IO[str], err: IO[str]
) -> int:
    """0 once deleted, printing what; 1 with one line on `err` when the database needs an
    upgrade or holds nothing of them. HostError: no database there, or not writable."""
    check_readable(url)  # a missing database is said so, not made
    check_database(url)  # it is written to
    engine = make_engine(url, create=False)
    try:
        if (stale := not_current(engine)) is not None:
            print(stale, file=err)
            return 1
        with Store(engine).write(StoreAction.DELETE) as conn:
            if member_id is None:
                deleted = member_data.delete_guild(conn, guild_id)
            else:
                deleted = member_data.delete_member(conn, guild_id, member_id)
    finally:
        engine.dispose()
    whose = (
        f"server {guild_id}" if member_id is None else f"member {member_id} in server {guild_id}"
    )
    if not deleted:
        print(
            f"quizbot: the database holds nothing of {whose} (check the ids: {FIND_IDS})", file=err
        )
        return 1
    print(f"deleted the data of {whose}: {member_data.describe(deleted)}", file=out)
    return 0
