"""Units of work for the banks moderators upload (`/bank`): one row per server and name, the
bank as our YAML (turning it into tasks is bot/content/uploads.py's job)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, delete, func, select

from bot.store import dialect
from bot.store.store import Store
from bot.store.tables import ServerBank, table_of

_bank = table_of(ServerBank)
_SUMMARY = (
    _bank.c.guild_id,
    _bank.c.name,
    _bank.c.task_count,
    _bank.c.uploaded_by,
    _bank.c.uploaded_at,
)


@dataclass(frozen=True, slots=True)
class BankSummary:
    """A stored bank without its text (what `/bank list` shows)."""

    guild_id: int
    name: str
    task_count: int
    uploaded_by: int
    uploaded_at: datetime


@dataclass(frozen=True, slots=True)
class StoredBank:
    summary: BankSummary
    yaml: str

    @property
    def guild_id(self) -> int:
        return self.summary.guild_id

    @property
    def name(self) -> str:
        return self.summary.name


def _summary(row: Any) -> BankSummary:
    return BankSummary(row.guild_id, row.name, row.task_count, row.uploaded_by, row.uploaded_at)


class BankStore:
    """The `server_bank` rows, on `Store`'s connections."""

    def __init__(self, store: Store | Engine) -> None:
        self.store = store if isinstance(store, Store) else Store(store)

    def save(
        self,
        guild_id: int,
        name: str,
        yaml: str,
        task_count: int,
        uploaded_by: int,
        now: datetime,
    ) -> bool:
        """Store the bank, replacing the server's bank of that name; True if it replaced one."""
        values = dict(
            guild_id=guild_id,
            name=name,
            yaml=yaml,
            task_count=task_count,
            uploaded_by=uploaded_by,
            uploaded_at=now,
        )
        with self.store.write() as conn:
            replaced = conn.execute(
                select(_bank.c.id).where(_bank.c.guild_id == guild_id, _bank.c.name == name)
            ).first()
            conn.execute(dialect.upsert(conn, _bank, ("guild_id", "name")).values(values))
        return replaced is not None

    def list(self, guild_id: int) -> list[BankSummary]:
        """The server's banks, by name."""
        query = select(*_SUMMARY).where(_bank.c.guild_id == guild_id).order_by(_bank.c.name)
        with self.store.read() as conn:
            return [_summary(row) for row in conn.execute(query)]

    def get(self, guild_id: int, name: str) -> StoredBank | None:
        query = select(*_SUMMARY, _bank.c.yaml).where(
            _bank.c.guild_id == guild_id, _bank.c.name == name
        )
        with self.store.read() as conn:
            row = conn.execute(query).first()
        return None if row is None else StoredBank(_summary(row), row.yaml)

    def version(self) -> tuple[int, datetime | None]:
        """What changes whenever any server's banks do, in any process: (count, latest upload)."""
        query = select(func.count(), func.max(_bank.c.uploaded_at))
        with self.store.read() as conn:
            count, latest = conn.execute(query).one()
        return int(count), latest

    def all(self) -> builtins.list[StoredBank]:  # `list` alone is the method above
        """Every server's banks with their text (read once, when the service starts)."""
        query = select(*_SUMMARY, _bank.c.yaml).order_by(_bank.c.guild_id, _bank.c.name)
        with self.store.read() as conn:
            return [StoredBank(_summary(row), row.yaml) for row in conn.execute(query)]

    def remove(self, guild_id: int, name: str) -> bool:
        """Delete the server's bank of that name; False if it had none."""
        with self.store.write() as conn:
            result = conn.execute(
                delete(_bank).where(_bank.c.guild_id == guild_id, _bank.c.name == name)
            )
        return bool(result.rowcount)
