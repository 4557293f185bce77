"""The welcome's record: a server is claimed for its welcome once, whoever asks again."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from bot.store import Store
from bot.store.tables import GuildWelcome, table_of
from bot.store.welcome import claim_welcome
from tests.store.conftest import GUILD, NOW
from tests.store_calls import write


def test_a_server_is_claimed_for_its_welcome_once(store: Store) -> None:
    assert write(store, claim_welcome, GUILD, NOW) is True
    assert write(store, claim_welcome, GUILD, NOW + timedelta(days=3)) is False
    assert write(store, claim_welcome, GUILD + 1, NOW) is True
    table = table_of(GuildWelcome)
    with store.read() as conn:
        rows = conn.execute(select(table).order_by(table.c.guild_id)).all()
    # The first claim's moment stays.
    assert [tuple(row) for row in rows] == [(GUILD, NOW), (GUILD + 1, NOW)]
