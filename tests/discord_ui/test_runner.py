"""`quizbot run` / `quizbot sync` plumbing: API base, logging without the token, SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import shutil
import signal
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import discord.gateway
import discord.http
import discord.webhook.async_
import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.pool import NullPool

from bot.discord_ui import runner
from bot.discord_ui.api_base import point_discord_at
from bot.discord_ui.client import EXTENSIONS, QuizBot
from bot.host_errors import HostError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.settings import Settings
from bot.sharding import ShardPlan
from bot.store.process_claim import SHARD, claim_database_file, claim_shards
from tests.discord_ui.conftest import TOKEN
from tests.discord_ui.fakes import FakeDiscordHTTP, response
from tests.pg_server import PgServer
from tests.store.test_process_claim import cut_claim_connections

CONTENT = Path(__file__).resolve().parents[2] / "content"


@pytest.fixture
def root_logging() -> Iterator[None]:
    """configure_logging replaces the root handlers, as a process entry point should."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def make_settings(tmp_path: Path, **extra: str) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        DISCORD_TOKEN=TOKEN,
        **(
            {"DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}", "CONTENT_DIR": str(CONTENT)}
            | extra
        ),
    )


def test_point_discord_at_moves_rest_and_interaction_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(discord.webhook.async_.Route, "BASE", discord.webhook.async_.Route.BASE)
    gateway = discord.gateway.DiscordWebSocket
    monkeypatch.setattr(gateway, "DEFAULT_GATEWAY", gateway.DEFAULT_GATEWAY)
    point_discord_at("http://127.0.0.1:9999/api/v10/")
    rest = discord.http.Route("GET", "/users/@me")
    callback = discord.webhook.async_.Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=1,
        webhook_token="t",
    )
    assert rest.url == "http://127.0.0.1:9999/api/v10/users/@me"
    assert callback.url == "http://127.0.0.1:9999/api/v10/interactions/1/t/callback"
    assert str(gateway.DEFAULT_GATEWAY) == "ws://127.0.0.1:9999/"


def test_redacting_formatter_hides_the_token_anywhere_in_a_record(
    tmp_path: Path, root_logging: None
) -> None:
    stream = io.StringIO()
    runner.configure_logging(make_settings(tmp_path), stream)
    log = logging.getLogger("quizbot.test")
    log.error("token is %s", TOKEN)
    try:
        raise ValueError(f"bad header Bot {TOKEN}")
    except ValueError:
        log.exception("request failed")
    text = stream.getvalue()
    assert TOKEN not in text
    assert text.count(runner.REDACTED) == 2  # the message and the exception's text
    assert "request failed" in text


async def test_sync_commands_to_a_guild_over_http_only(
    fake: FakeDiscordHTTP, tmp_path: Path, capsys: pytest.CaptureFixture[str], root_logging: None
) -> None:
    await runner.sync_commands(make_settings(tmp_path), 1234)
    (put,) = [c for c in fake.calls if c.method == "PUT"]
    assert put.path == "/applications/{application_id}/guilds/{guild_id}/commands"
    assert "/1234/" in put.url
    names = sorted(command["name"] for command in put.json)
    assert names == [
        "bank",
        "config",
        "help",
        "hint",
        "insights",
        "leaderboard",
        "mydata",
        "practice",
        "quiz",
        "reminders",
        "review",
        "schedule",
        "solution",
        "stats",
        "topics",
    ]
    out = capsys.readouterr().out
    assert f"Synced {len(names)} commands to server 1234" in out
    assert not any("gateway" in c.path for c in fake.calls)
    assert TOKEN not in out


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (discord.Forbidden(response(403), {"code": 50001, "message": "Missing Access"}), "403"),
        (discord.NotFound(response(404), {"code": 10004, "message": "Unknown Guild"}), "404"),
    ],
)
async def test_sync_to_a_server_discord_refuses_is_one_host_error(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    root_logging: None,
    error: discord.HTTPException,
    reason: str,
) -> None:
    fake.fail["/applications/{application_id}/guilds/{guild_id}/commands"] = error
    with pytest.raises(HostError) as caught:
        await runner.sync_commands(make_settings(tmp_path), 1234)
    assert caught.value.setting == "--guild"
    assert str(caught.value).startswith(
        f"Discord refused the commands for server 1234 ({reason} {error.text}) (--guild) — "
        "check the server's id (right-click the server, Copy Server ID)"
    )
    assert caught.value.__suppress_context__


async def test_sync_commands_globally(
    fake: FakeDiscordHTTP, tmp_path: Path, capsys: pytest.CaptureFixture[str], root_logging: None
) -> None:
    await runner.sync_commands(make_settings(tmp_path), None)
    (put,) = [c for c in fake.calls if c.method == "PUT"]
    assert put.path == "/applications/{application_id}/commands"
    assert f"Synced {len(put.json)} commands to every server" in capsys.readouterr().out


DATABASE_0_1_0 = Path(__file__).parents[1] / "store" / "fixtures" / "quizbot-0.1.0.db"
RUN_BOUND = 60
"""Bounds a hang only: run_bot migrates a new SQLite file and loads the content (seconds on a
busy machine) before the stand-in gateway raises SIGTERM."""


def sigterm_once_online(monkeypatch: pytest.MonkeyPatch) -> list[tuple[QuizBot, set[str]]]:
    """Stand in for the gateway session: once the bot is online, SIGTERM, and the session runs
    until the bot is closed. The list gets each bot that went online, with the extensions its
    setup_hook loaded (the bot unloads them on close)."""
    started: list[tuple[QuizBot, set[str]]] = []
    closed = asyncio.Event()
    close = QuizBot.close

    async def connect(self: QuizBot, *, reconnect: bool = True) -> None:
        started.append((self, set(self.extensions)))
        asyncio.get_running_loop().call_later(0.05, signal.raise_signal, signal.SIGTERM)
        await closed.wait()

    async def closing(self: QuizBot) -> None:
        await close(self)
        closed.set()

    monkeypatch.setattr(QuizBot, "connect", connect)
    monkeypatch.setattr(QuizBot, "close", closing)
    return started


async def test_run_bot_closes_cleanly_on_sigterm(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
) -> None:
    started = sigterm_once_online(monkeypatch)
    await asyncio.wait_for(runner.run_bot(make_settings(tmp_path, LOG_LEVEL="DEBUG")), RUN_BOUND)
    ((bot, loaded),) = started
    assert bot.is_closed()
    assert set(EXTENSIONS) <= loaded
    assert bot.service._writer is None  # the service was closed with the bot
    err = capfd.readouterr().err
    assert "SIGTERM received, closing" in err
    assert TOKEN not in err
    assert (tmp_path / "bot.db").exists()


HANGS = 10.0
"""How long the stand-in close hangs: bounded, so that a runner that waits for it fails the
test rather than hanging it."""


def hanging_close(monkeypatch: pytest.MonkeyPatch, *, signals: int) -> list[float]:
    """Online, the bot gets `signals` SIGTERMs 0.2 s apart, and its close hangs HANGS seconds
    unless cancelled (as discord.py's does for 30 s on a gateway that no longer answers), then
    closes for real. The list gets the loop's time of each SIGTERM."""
    sent: list[float] = []
    close = QuizBot.close

    async def connect(self: QuizBot, *, reconnect: bool = True) -> None:
        loop = asyncio.get_running_loop()
        for n in range(signals):
            loop.call_later(
                0.05 + 0.2 * n,
                lambda: (sent.append(loop.time()), signal.raise_signal(signal.SIGTERM)),
            )
        await asyncio.Event().wait()

    async def hanging(self: QuizBot) -> None:
        try:
            await asyncio.sleep(HANGS)
        finally:
            await close(self)

    monkeypatch.setattr(QuizBot, "connect", connect)
    monkeypatch.setattr(QuizBot, "close", hanging)
    return sent


async def test_a_close_that_hangs_is_given_up_after_the_grace(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
) -> None:
    monkeypatch.setattr(runner, "CLOSE_GRACE", 0.5, raising=False)
    sent = hanging_close(monkeypatch, signals=1)
    await asyncio.wait_for(runner.run_bot(make_settings(tmp_path)), RUN_BOUND)
    assert asyncio.get_running_loop().time() - sent[0] < 2.0
    err = capfd.readouterr().err
    assert "still closing after 0.5 s: stopping without waiting for the close" in err
    assert "Traceback" not in err and err.rstrip().endswith("closed")


async def test_a_second_sigterm_stops_a_close_at_once(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
) -> None:
    sent = hanging_close(monkeypatch, signals=2)
    await asyncio.wait_for(runner.run_bot(make_settings(tmp_path)), RUN_BOUND)
    assert len(sent) == 2 and asyncio.get_running_loop().time() - sent[1] < 1.0
    err = capfd.readouterr().err
    assert "SIGTERM received again: stopping without waiting for the close" in err
    assert "Traceback" not in err and err.rstrip().endswith("closed")


def test_a_failed_shard_connect_is_one_line_without_a_traceback(
    tmp_path: Path, root_logging: None
) -> None:
    """discord.py logs each failed attempt (every 5 s) with logger.exception."""
    stream = io.StringIO()
    runner.configure_logging(make_settings(tmp_path), stream)
    shard_log = logging.getLogger("discord.shard")
    try:
        raise ConnectionRefusedError(111, "Connect call failed ('127.0.0.1', 9)")
    except ConnectionRefusedError:
        shard_log.exception("Failed to connect for shard_id: %s. Retrying...", 3)
    try:
        raise ValueError("a bug elsewhere in discord.py")
    except ValueError:
        shard_log.exception("something else")
    first, *rest = stream.getvalue().splitlines()
    assert " WARNING discord.shard: Failed to connect for shard_id: 3. Retrying... " in first
    assert first.endswith(
        "(ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 9))"
    )
    # Anything else discord.py logs keeps its traceback.
    assert " ERROR   discord.shard: something else" in rest[0] and "Traceback" in rest[1]


async def test_a_stopped_bot_leaves_its_whole_database_in_the_sqlite_file(
    fake: FakeDiscordHTTP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_logging: None
) -> None:
    # A host who stops the bot and copies quizbot.db must get everything: nothing may be left
    # behind in quizbot.db-wal.
    sigterm_once_online(monkeypatch)
    await asyncio.wait_for(runner.run_bot(make_settings(tmp_path)), RUN_BOUND)
    database = tmp_path / "bot.db"
    assert not database.with_name("bot.db-wal").exists()
    copy = tmp_path / "copy.db"
    shutil.copyfile(database, copy)
    with contextlib.closing(sqlite3.connect(copy)) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "alembic_version" in tables


async def test_sighup_reloads_the_content(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
) -> None:
    banks = tmp_path / "content"
    shutil.copytree(CONTENT / "mlops", banks)
    (bank,) = banks.rglob("*.yaml")
    reloaded: list[list[str]] = []
    swapped = asyncio.Event()
    close, use_catalog = QuizBot.close, QuizService.use_catalog

    async def swapping(self: QuizService, catalog: Catalog) -> None:
        await use_catalog(self, catalog)
        swapped.set()

    async def connect(self: QuizBot, *, reconnect: bool = True) -> None:
        bank.write_text(bank.read_text().replace("id: mlops-parallelism-mc-5", "id: mc-renamed"))
        signal.raise_signal(signal.SIGHUP)
        await swapped.wait()
        reloaded.append([t.id for t in self.service.catalog])
        await close(self)

    monkeypatch.setattr(QuizService, "use_catalog", swapping)
    monkeypatch.setattr(QuizBot, "connect", connect)
    settings = make_settings(
        tmp_path, CONTENT_DIR=str(banks), CONTENT_WATCH="false", CONTENT_CACHE=""
    )
    await asyncio.wait_for(runner.run_bot(settings), 20)
    [ids] = reloaded
    assert "mc-renamed" in ids and "mlops-parallelism-mc-5" not in ids
    err = capfd.readouterr().err
    assert f"SIGHUP received, reloading the content from {banks}" in err
    assert "reloaded content: 10 tasks in 1 bank (+1, -1, 0 changed)" in err


async def test_run_bot_refuses_broken_banks_without_connecting(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
) -> None:
    banks = tmp_path / "content"
    banks.mkdir()
    (banks / "broken.yaml").write_text("bank: Broken\ntasks: [\n")
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        DISCORD_TOKEN=TOKEN,
        CONTENT_DIR=str(banks),
        DATABASE_URL=f"sqlite:///{tmp_path / 'bot.db'}",
    )
    with pytest.raises(SystemExit) as exit_info:
        await runner.run_bot(settings)
    assert exit_info.value.code == 1
    assert "broken.yaml" in capfd.readouterr().err
    assert fake.calls == []


async def test_a_second_bot_on_one_sqlite_database_is_refused_before_it_opens_it(
    fake: FakeDiscordHTTP, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, root_logging: None
) -> None:
    # The first bot runs on a 0.1.0 database; the second, a newer one started by mistake
    # beside it, must not upgrade (or back up, or touch) the file under it, nor log in.
    database = tmp_path / "bot.db"
    shutil.copyfile(DATABASE_0_1_0, database)
    before = database.read_bytes()
    first = claim_database_file(f"sqlite:///{database}")
    try:
        with pytest.raises(HostError) as refused:
            await runner.run_bot(make_settings(tmp_path))
    finally:
        first.release()
    assert refused.value.setting == "DATABASE_URL"
    assert "another quizbot process" in refused.value.problem
    assert database.read_bytes() == before
    left = await asyncio.to_thread(lambda: sorted(p.name for p in tmp_path.iterdir()))
    assert left == ["bot.db", "bot.db.lock"]  # no backup, no -wal: nothing opened it
    assert fake.calls == []
    # Once the first has stopped, the same start goes through (and upgrades).
    sigterm_once_online(monkeypatch)
    await asyncio.wait_for(runner.run_bot(make_settings(tmp_path)), RUN_BOUND)
    assert database.read_bytes() != before


# -- a PostgreSQL claim lost while the bot runs ------------------------------------------------


def shard_holders(url: str) -> list[int]:
    """The sessions holding a shard lock on the database."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            held = text(
                "SELECT DISTINCT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND classid::bigint = :ns"
            )
            return list(conn.execute(held, {"ns": SHARD}).scalars())
    finally:
        engine.dispose()


def sharded_settings(tmp_path: Path, url: str) -> Settings:
    return make_settings(tmp_path, DATABASE_URL=url, SHARD_COUNT="2", SHARD_IDS="0")


@pytest.mark.postgresql
async def test_a_running_bot_takes_its_shard_again_once_its_restarted_database_is_back(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
    pg_server: PgServer,
    pg_url: str,
) -> None:
    monkeypatch.setattr(runner, "CLAIM_RENEWAL_SECONDS", 0.05)
    retaken_by: list[int] = []
    close = QuizBot.close

    async def connect(self: QuizBot, *, reconnect: bool = True) -> None:
        (before,) = await asyncio.to_thread(shard_holders, pg_url)
        # The server restarts: the hold is cut, and for a while nothing can connect.
        await asyncio.to_thread(pg_server.allow_connections, pg_url, False)
        await asyncio.to_thread(cut_claim_connections, pg_url)
        await asyncio.sleep(0.5)  # about 10 renewals, each refused
        await asyncio.to_thread(pg_server.allow_connections, pg_url, True)
        for _ in range(500):  # the next renewal comes within 0.05 s; 10 s at most
            holders = await asyncio.to_thread(shard_holders, pg_url)
            if holders:
                break
            await asyncio.sleep(0.02)
        retaken_by.extend(holders)
        assert before not in holders
        await close(self)

    monkeypatch.setattr(QuizBot, "connect", connect)
    await asyncio.wait_for(runner.run_bot(sharded_settings(tmp_path, pg_url)), RUN_BOUND)
    assert len(retaken_by) == 1
    err = capfd.readouterr().err
    # One warning for the outage, not one per renewal, then one when held again.
    assert err.count("cannot renew this process's claim on its shards") == 1
    assert "is not currently accepting connections" in err
    assert err.count("the connection holding this process's shards was cut; they are held") == 1
    assert "Traceback" not in err
    assert await asyncio.to_thread(shard_holders, pg_url) == []  # let go on the way out


@pytest.mark.postgresql
async def test_a_running_bot_whose_shard_another_process_took_meanwhile_stops_with_one_line(
    fake: FakeDiscordHTTP,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    root_logging: None,
    pg_url: str,
) -> None:
    # Long enough that the other process starts between two renewals.
    monkeypatch.setattr(runner, "CLAIM_RENEWAL_SECONDS", 2.0)
    other = create_engine(pg_url, poolclass=NullPool)
    claims = []
    closed = asyncio.Event()
    close = QuizBot.close

    async def closing(self: QuizBot) -> None:
        await close(self)
        closed.set()

    def start_another_process() -> None:
        cut_claim_connections(pg_url)
        claims.append(claim_shards(other, ShardPlan.parse(2, "0")))

    async def connect(self: QuizBot, *, reconnect: bool = True) -> None:
        await asyncio.to_thread(start_another_process)
        await closed.wait()  # online until closed, as the gateway session is

    monkeypatch.setattr(QuizBot, "connect", connect)
    monkeypatch.setattr(QuizBot, "close", closing)
    try:
        with pytest.raises(HostError) as stopped:
            await asyncio.wait_for(runner.run_bot(sharded_settings(tmp_path, pg_url)), RUN_BOUND)
        assert stopped.value.setting == "SHARD_IDS"
        assert "shard 0 is already running in another quizbot process" in stopped.value.problem
        # The other process keeps its shard.
        assert len(await asyncio.to_thread(shard_holders, pg_url)) == 1
    finally:
        for claim in claims:
            claim.release()
        other.dispose()
    err = capfd.readouterr().err
    assert "took this one's shards while its claim was lost: closing" in err
    assert "Traceback" not in err
