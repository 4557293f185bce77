"""Alembic's environment for quizbot: runs on the connection `bot.store.migrate` hands it.

There is no alembic.ini: `bot.store.migrate.alembic_config` builds the configuration in code,
so an installed wheel finds these scripts beside the package. The connection arrives already
inside a transaction (on SQLite a `BEGIN IMMEDIATE` holding the write lock), so a failed
upgrade rolls back whole and two processes starting at once cannot both upgrade.

Without a connection (a developer running `command.revision(..., autogenerate=True)` through
`alembic_config(url=...)`), an engine is made from the configured URL.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from bot.store.migrate import target_metadata

config = context.config


def run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata(),
        # SQLite cannot ALTER most things: batch mode copies the table instead.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_migrations(connection)
        return
    from bot.store.db import build_engine

    engine = build_engine(config.get_main_option("sqlalchemy.url") or "")
    try:
        with engine.begin() as conn:
            run_migrations(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("quizbot's migrations run online only (on a live connection)")
run_online()
