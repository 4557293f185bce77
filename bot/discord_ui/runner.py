"""`quizbot run` and `quizbot sync`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import AsyncIterator, Callable
from typing import Final, TextIO

import aiohttp
import discord

from bot.content import ContentError
from bot.content.cache import load_banks_cached
from bot.discord_ui.api_base import point_discord_at
from bot.discord_ui.client import QuizBot
from bot.host_errors import HostError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.settings import README_TOKEN_SECTION, Settings
from bot.store import Store, make_engine
from bot.store.process_claim import ProcessClaim, claim_database_file, claim_shards

log = logging.getLogger(__name__)

CLAIM_RENEWAL_SECONDS: Final = 30.0
"""How often a running bot renews its claim on its servers (`ProcessClaim.renew`)."""

REDACTED = "[token redacted]"
LOG_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class RedactingFormatter(logging.Formatter):
    """Never let the token reach a log line, whoever logs it and however (message, argument
    or traceback). discord.py itself does not log it; this guards our code and the future."""

    def __init__(self, secrets: list[str], fmt: str = LOG_FORMAT) -> None:
        super().__init__(fmt)
        self._secrets = [s for s in secrets if s]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


def configure_logging(settings: Settings, stream: TextIO | None = None) -> logging.Handler:
    handler = logging.StreamHandler(stream or sys.stderr)
    secret = settings.discord_token.get_secret_value().strip() if settings.discord_token else ""
    handler.setFormatter(RedactingFormatter([secret]))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(settings.log_level)
    # The webhook adapter logs interaction callback URLs, which hold interaction tokens.
    logging.getLogger("discord.webhook.async_").setLevel(max(root.level, logging.INFO))
    # One INFO line per changed file; the reload's own line says what it did.
    logging.getLogger("watchfiles").setLevel(max(root.level, logging.WARNING))
    return handler


def _prepare(settings: Settings) -> None:
    configure_logging(settings)
    if settings.discord_api_base:
        point_discord_at(settings.discord_api_base)
        log.info("using the Discord API at %s", settings.discord_api_base)


@contextlib.asynccontextmanager
async def _logging_in(settings: Settings) -> AsyncIterator[None]:
    """A refused token or an unreachable API is the host's to fix: a HostError, not a crash.

    Only around the login: later connection trouble is discord.py's to retry.
    """
    try:
        yield
    except discord.LoginFailure:
        raise HostError(
            "DISCORD_TOKEN",
            "Discord refused the bot token",
            f"copy the current token from the Developer Portal (Bot → Reset Token); "
            f"see {README_TOKEN_SECTION}",
        ) from None
    except aiohttp.ClientConnectionError as exc:
        api = settings.discord_api_base or discord.http.Route.BASE
        problem = f"cannot reach the Discord API at {api}: {_connection_failure(exc)}"
        if settings.discord_api_base:
            raise HostError(
                "DISCORD_API_BASE",
                problem,
                "start the emulated Discord first, or unset DISCORD_API_BASE to use Discord",
            ) from None
        raise HostError(
            "network", problem, "check the host's internet connection, DNS, proxy and firewall"
        ) from None


def _connection_failure(exc: aiohttp.ClientConnectionError) -> str:
    # The OS's words ("Connect call failed", "Name or service not known"); never the token.
    if isinstance(exc, aiohttp.ClientConnectorError):
        return exc.os_error.strerror or str(exc.os_error)
    return str(exc) or type(exc).__name__


def build_bot(settings: Settings, catalog: Catalog, store: Store) -> QuizBot:
    service = QuizService(catalog, store, default_zone=settings.zone)
    return QuizBot(settings, service)


async def run_bot(settings: Settings) -> None:
    _prepare(settings)
    token = settings.token()
    try:
        catalog = load_banks_cached(settings.content_dir, settings.content_cache)
    except ContentError as exc:
        log.error("not starting: %s", exc)
        raise SystemExit(1) from None
    log.info("loaded %d tasks from %s", len(catalog), settings.content_dir)
    # Before the engine opens the file: a second bot must not upgrade the schema under the
    # first. Raises a HostError if another process runs on it.
    file_claim = await asyncio.to_thread(claim_database_file, settings.database_url)
    try:
        await _serve_on_database(settings, token, catalog)
    finally:
        file_claim.release()
    log.info("closed")


async def _serve_on_database(settings: Settings, token: str, catalog: Catalog) -> None:
    # Upgrades the schema if this quizbot is newer than the database (after backing an SQLite
    # file up; the migrations module logs where), or raises a SchemaError, a HostError the CLI
    # prints as one line. Off the loop: it may take a while.
    engine = await asyncio.to_thread(
        make_engine, settings.database_url, synchronous=settings.sqlite_synchronous
    )
    try:
        shard_claim = await asyncio.to_thread(claim_shards, engine, settings.shards)
        try:
            await _serve(settings, token, build_bot(settings, catalog, Store(engine)), shard_claim)
        finally:
            await asyncio.to_thread(shard_claim.release)
    finally:
        # Closing the last connection checkpoints SQLite's WAL into the database file and
        # removes the -wal file, so a stopped bot's quizbot.db holds everything on its own
        # (a copy of the file alone is a whole backup). Off the loop: it writes to disk.
        await asyncio.to_thread(engine.dispose)


async def _keep_claim(
    claim: ProcessClaim, close: Callable[[], None], every: float
) -> HostError | None:
    """Renew the claim every `every` seconds while the bot runs. If another process holds it
    now, `close` the bot and return why, for `_serve` to raise as the host's one line."""
    unreachable = False
    while True:
        await asyncio.sleep(every)
        try:
            renewal = await asyncio.to_thread(claim.renew)
        except HostError as exc:
            log.warning("another process took this one's shards while its claim was lost: closing")
            close()
            return exc
        except Exception:  # a bug: serving goes on, without renewals
            log.exception("renewing this process's claim on its shards failed")
            return None
        if renewal.unreachable is not None:
            if not unreachable:  # once per outage: the store reports each refused click itself
                log.warning(
                    "cannot renew this process's claim on its shards (%s); trying again every %g s",
                    renewal.unreachable,
                    every,
                )
            unreachable = True
            continue
        if renewal.retaken:
            log.warning("the connection holding this process's shards was cut; they are held again")
        unreachable = False


async def _serve(settings: Settings, token: str, bot: QuizBot, claim: ProcessClaim) -> None:
    """Log in and stay online until SIGTERM or SIGINT closes the bot, or until another process
    takes the servers `claim` holds (raised as its HostError)."""
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Task[None]] = set()

    def close() -> None:
        task = loop.create_task(bot.close())
        closing.add(task)
        task.add_done_callback(closing.discard)

    def stop(signame: str) -> None:
        log.info("%s received, closing", signame)
        close()

    def reload(signame: str) -> None:
        log.info("%s received, reloading the content from %s", signame, settings.content_dir)
        bot.reload_content()

    handlers = {signal.SIGTERM: stop, signal.SIGINT: stop}
    if hasattr(signal, "SIGHUP"):  # not on Windows
        handlers[signal.SIGHUP] = reload
    for sig, handler in handlers.items():
        # Windows event loops have no signal handlers; Ctrl-C still works there.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, handler, sig.name)
    keeper = None
    try:
        async with bot:
            keeper = loop.create_task(_keep_claim(claim, close, CLAIM_RENEWAL_SECONDS))
            async with _logging_in(settings):
                await bot.login(token)
            await bot.connect()
    finally:
        lost = None
        if keeper is not None:
            if keeper.done():
                lost = keeper.result()
            else:
                keeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keeper
        for sig in handlers:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        if closing:
            await asyncio.gather(*closing, return_exceptions=True)
    if lost is not None:
        raise lost


async def sync_commands(settings: Settings, guild_id: int | None) -> None:
    """Register the slash commands over HTTP only (no gateway), then close."""
    _prepare(settings)
    token = settings.token()
    # Syncing needs the command definitions, not the banks or the real database.
    bot = build_bot(settings, Catalog(), Store(make_engine("sqlite://")))
    async with bot:
        async with _logging_in(settings):
            await bot.login(token)
        if guild_id is not None:
            guild = discord.Object(guild_id)
            bot.tree.copy_global_to(guild=guild)
            try:
                synced = await bot.tree.sync(guild=guild)
            except (discord.Forbidden, discord.NotFound) as exc:
                # A mistyped id, or a server the bot is not in: the host's to fix.
                raise HostError(
                    "--guild",
                    f"Discord refused the commands for server {guild_id} "
                    f"({exc.status} {exc.text or exc.response.reason})",
                    "check the server's id (right-click the server, Copy Server ID) and that "
                    f"the bot was invited to it with the applications.commands scope; see "
                    f"{README_TOKEN_SECTION}",
                ) from None
            where = f"server {guild_id}"
        else:
            synced = await bot.tree.sync()
            where = "every server (global commands can take up to an hour to appear)"
        names = ", ".join(f"/{command.name}" for command in synced) or "none"
        print(f"Synced {len(synced)} commands to {where}: {names}")
