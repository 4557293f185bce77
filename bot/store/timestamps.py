"""Timestamps as the database holds them, for statements that bypass SQLAlchemy's types."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import cast

from sqlalchemy.dialects import sqlite

from bot.store.periods import from_utc_naive

sql_time = cast(Callable[[datetime], str], sqlite.DATETIME().bind_processor(sqlite.dialect()))
"""A naive UTC datetime in the exact text form SQLAlchemy stores, so raw-SQL values and
Core values compare correctly as strings."""


def aware(moment: datetime | None) -> datetime | None:
    return None if moment is None else from_utc_naive(moment)
