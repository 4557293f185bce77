"""The database settings' default and choices: plain values, so that reading the settings
(every `quizbot` command) loads no SQL library; bot/store applies them."""

from __future__ import annotations

DEFAULT_DATABASE_URL = "sqlite:///data/quizbot.db"
"""The one default: an SQLite file under ./data, created on first start."""

DEFAULT_SYNCHRONOUS = "FULL"
SYNCHRONOUS_MODES = (DEFAULT_SYNCHRONOUS, "NORMAL")
"""`PRAGMA synchronous` (SQLITE_SYNCHRONOUS). FULL: an acknowledged answer survives a power
loss. NORMAL fsyncs only at checkpoints: the last commits may roll back on a power loss or an
OS crash, never corrupt (BENCHMARKS.md, "Durability")."""
