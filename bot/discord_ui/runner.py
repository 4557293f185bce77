"""`quizbot run` and `quizbot sync`."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Final, TextIO, TypeVar

import aiohttp
import discord

from bot.content import ContentError
from bot.content.cache import load_banks_cached
from bot.discord_ui.api_base import point_discord_at
from bot.discord_ui.client import QuizBot
from bot.discord_ui.command_sync import invite_url, sync_if_changed
from bot.discord_ui.gateway_status import StatusWriter
from bot.host_errors import HostError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.settings import README_TOKEN_SECTION, Settings
from bot.store import Store, make_engine
from bot.store.process_claim import ProcessClaim, claim_database_file, claim_shards

log = logging.getLogger(__name__)

CLAIM_RENEWAL_SECONDS: Final = 30.0
"""How often a running bot renews its claim on its servers (`ProcessClaim.renew`)."""

CLOSE_GRACE: Final = 5.0
"""Seconds a SIGTERM leaves the bot to close: a silent gateway would hold discord.py's close for
30 s, and a supervisor kills a process 10 s after its SIGTERM (docker stop's default)."""
STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)

T = TypeVar("T")

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


class ConnectFailureLine(logging.Filter):
    """discord.py logs each failed gateway connect with a traceback, every 5 s for ever; it is
    the host's network, not a bug, so each becomes one WARNING line with the reason."""

    PREFIX: Final = "Failed to connect for shard_id"

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and str(record.msg).startswith(self.PREFIX):
            error = record.exc_info[1]
            reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
            record.msg = f"{record.msg} ({reason.replace('%', '%%')})"
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def _filter_once(logger: logging.Logger, kind: type[logging.Filter]) -> None:
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())


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
    _filter_once(logging.getLogger("discord.shard"), ConnectFailureLine)
    return handler


def _prepare(settings: Settings) -> None:
    configure_logging(settings)
    if settings.discord_api_base:
        point_discord_at(settings.discord_api_base)
        log.info("using the Discord API at %s", settings.discord_api_base)


@contextlib.asynccontextmanager
async def _logging_in(settings: Settings) -> AsyncIterator[None]:
    """A refused token or an unreachable API is the host's to fix: a HostError, not a crash
    (only at login: later trouble is discord.py's to retry)."""
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
    """Start the bot and serve until SIGTERM or SIGINT, which stop it in every phase: loading
    the banks, opening (or upgrading) the database, logging in, connecting the shards, serving
    and closing. The handlers are installed before any of these begins."""
    _prepare(settings)
    token = settings.token()
    loop = asyncio.get_running_loop()
    work = loop.create_task(_start_and_serve(settings, token), name="quizbot-run")
    with _stopping(loop, work) as stop:
        try:
            await asyncio.wait({work})
        except asyncio.CancelledError:  # run_bot's own caller gave up on it
            work.cancel()
            await asyncio.wait({work})
            raise
    if not (work.cancelled() and stop.requested):
        try:
            work.result()
        except ContentError as exc:
            log.error("not starting: %s", exc)
            raise SystemExit(1) from None
    log.info("closed")


class _Stop:
    """SIGTERM and SIGINT: the first cancels the bot's work wherever it is (a running bot
    closes as `async with bot` does); a second, or CLOSE_GRACE, stops waiting for the close."""

    def __init__(self, loop: asyncio.AbstractEventLoop, work: asyncio.Task[None]) -> None:
        self.loop = loop
        self.work = work
        self.requested: str | None = None
        self._deadline: asyncio.TimerHandle | None = None

    def __call__(self, signame: str) -> None:
        if self.requested is None:
            self.requested = signame
            log.info("%s received, closing", signame)
            self._deadline = self.loop.call_later(CLOSE_GRACE, self._late)
            self.work.cancel()
        elif not self.work.done():
            log.warning("%s received again: stopping without waiting for the close", signame)
            self.work.cancel()

    def _late(self) -> None:
        if not self.work.done():
            log.warning(
                "still closing after %g s: stopping without waiting for the close", CLOSE_GRACE
            )
            self.work.cancel()

    def cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()


@contextlib.contextmanager
def _stopping(loop: asyncio.AbstractEventLoop, work: asyncio.Task[None]) -> Iterator[_Stop]:
    stop = _Stop(loop, work)
    installed = []
    for sig in STOP_SIGNALS:
        # Windows event loops have no signal handlers; Ctrl-C still works there.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop, sig.name)
            installed.append(sig)
    try:
        yield stop
    finally:
        stop.cancel_deadline()
        for sig in installed:
            loop.remove_signal_handler(sig)


async def _off_loop(step: Callable[[], T]) -> T:
    """`step()` in a daemon thread, awaited: `asyncio.run` joins `to_thread`'s threads, so a
    SIGTERM would wait for a long step. One cut short leaves nothing the exit does not undo."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():  # cancelled by a SIGTERM meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        result, error = None, None
        try:
            result = step()
        except BaseException as exc:  # handed to the awaiting task, as to_thread does
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: the process is ending
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="quizbot-start-up", daemon=True).start()
    return await future


async def _start_and_serve(settings: Settings, token: str) -> None:
    catalog = await _off_loop(
        lambda: load_banks_cached(settings.content_dir, settings.content_cache)
    )
    log.info("loaded %d tasks from %s", len(catalog), settings.content_dir)
    # Before the engine opens the file: a second bot must not upgrade the schema under the
    # first. Raises a HostError if another process runs on it.
    file_claim = await _off_loop(lambda: claim_database_file(settings.database_url))
    try:
        await _serve_on_database(settings, token, catalog)
    finally:
        file_claim.release()


async def _serve_on_database(settings: Settings, token: str, catalog: Catalog) -> None:
    # Upgrades the schema if this quizbot is newer than the database (after backing an SQLite
    # file up; the migrations module logs where), or raises a SchemaError, a HostError the CLI
    # prints as one line. Off the loop: it may take a while.
    log.info("opening the database (creating it, or upgrading its schema, if needed)")
    engine = await _off_loop(
        lambda: make_engine(settings.database_url, synchronous=settings.sqlite_synchronous)
    )
    try:
        shard_claim = await _off_loop(lambda: claim_shards(engine, settings.shards))
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
    """Log in and stay online until `run_bot` cancels this on SIGTERM or SIGINT (leaving
    `async with bot` closes the bot), or until another process takes the servers `claim`
    holds (raised as its HostError)."""
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Task[None]] = set()

    def close() -> None:
        task = loop.create_task(bot.close())
        closing.add(task)
        task.add_done_callback(closing.discard)

    def reload(signame: str) -> None:
        log.info("%s received, reloading the content from %s", signame, settings.content_dir)
        bot.reload_content()

    handlers = {}
    if hasattr(signal, "SIGHUP"):  # not on Windows
        handlers[signal.SIGHUP] = reload
    for sig, handler in handlers.items():
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, handler, sig.name)
    keeper = None
    status = StatusWriter(bot, settings.health_status_path)
    after_login: list[asyncio.Task[None]] = []
    try:
        async with bot:
            status.start()
            keeper = loop.create_task(_keep_claim(claim, close, CLAIM_RENEWAL_SECONDS))
            log.info("logging in to Discord")
            async with _logging_in(settings):
                await bot.login(token)
            after_login.append(loop.create_task(_log_invite_url(bot), name="quizbot-invite"))
            if settings.shards.owns_direct_messages:  # one process registers: shard 0's
                after_login.append(
                    loop.create_task(sync_if_changed(bot.tree), name="quizbot-command-sync")
                )
            for task in after_login:
                task.add_done_callback(_report_bug)
            log.info("connecting to the Discord gateway (%s)", settings.shards.describe())
            await bot.connect()
    finally:
        for task in after_login:
            task.cancel()
        await asyncio.gather(*after_login, return_exceptions=True)  # _report_bug logged them
        await status.stop()
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


def _report_bug(task: asyncio.Task[None]) -> None:
    """A step after login that raised: a bug (Discord's refusals are its own warning lines)."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("%s failed; the bot serves on", task.get_name(), exc_info=error)


async def _log_invite_url(bot: QuizBot) -> None:
    """Once, when the bot is first ready: the link that adds it to a server."""
    await bot.wait_until_ready()
    if bot.application_id is not None:
        log.info("invite the bot to a server: %s", invite_url(bot.application_id))


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
