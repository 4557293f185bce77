"""The `server_bank` units of work: one bank per server and name, replaced by a new upload."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.store import Store
from bot.store.server_banks import BankStore

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
GUILD, OTHER = 10, 20


def test_a_saved_bank_reads_back_in_its_server_only(store: Store) -> None:
    banks = BankStore(store)
    assert banks.save(GUILD, "networking", "bank: Net\n", 3, 7, NOW) is False
    stored = banks.get(GUILD, "networking")
    assert stored is not None
    assert (stored.yaml, stored.summary.task_count, stored.summary.uploaded_by) == (
        "bank: Net\n",
        3,
        7,
    )
    assert stored.summary.uploaded_at == NOW
    assert banks.get(OTHER, "networking") is None
    assert banks.list(OTHER) == []


def test_the_same_name_replaces_the_bank(store: Store) -> None:
    banks = BankStore(store)
    banks.save(GUILD, "net", "old", 1, 7, NOW)
    assert banks.save(GUILD, "net", "new", 2, 8, NOW + timedelta(hours=1)) is True
    (summary,) = banks.list(GUILD)
    assert (summary.name, summary.task_count, summary.uploaded_by) == ("net", 2, 8)
    stored = banks.get(GUILD, "net")
    assert stored is not None and stored.yaml == "new"


def test_list_all_and_remove(store: Store) -> None:
    banks = BankStore(store)
    banks.save(GUILD, "b", "yb", 1, 7, NOW)
    banks.save(GUILD, "a", "ya", 1, 7, NOW)
    banks.save(OTHER, "a", "other", 1, 9, NOW)
    assert [s.name for s in banks.list(GUILD)] == ["a", "b"]
    assert [(b.guild_id, b.name, b.yaml) for b in banks.all()] == [
        (GUILD, "a", "ya"),
        (GUILD, "b", "yb"),
        (OTHER, "a", "other"),
    ]
    assert banks.remove(GUILD, "a") is True
    assert banks.remove(GUILD, "a") is False
    assert [s.name for s in banks.list(GUILD)] == ["b"]
    assert banks.get(OTHER, "a") is not None
