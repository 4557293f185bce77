"""Running the real `quizbot` process against fakediscord, and reading what it answered.

- `QuizBotRunner`: one bot's life on one SQLite file: `sync` (the `quizbot sync --guild`
  subprocess), `start` (the `quizbot run` process, waited on until it has identified and got
  its guilds), `kill` / `restart` (SIGKILL or SIGTERM, then a fresh process on the same DB).
- `checked_bot`: a `QuizBotRunner` that is stopped on the way out and fails the test if the bot
  logged an error; `banks_env`: its env for a content folder of the test's own banks.
- `reply_of`: what a member finally sees for an interaction, whichever way the bot answered
  (an immediate reply, a deferral then a follow-up, an update of the clicked message).
- `text_of`: every visible string of a message (content, embeds, v2 text displays).
- `ANSWERS`: the answer key of the shipped banks, read from their YAML.

Nothing here imports the bot: the tests see it only through Discord and its database file.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest_asyncio
import yaml
from fakediscord import (
    BotProcess,
    DiscordEmulator,
    Driver,
    Guild,
    InteractionRecord,
    Member,
    Message,
)
from sqlalchemy import create_engine
from sqlalchemy.pool import NullPool

JSON = dict[str, Any]
EPHEMERAL = 1 << 6

REPO_ROOT = Path(__file__).resolve().parents[2]
CONTENT_DIR = REPO_ROOT / "content"
ANSWERS: dict[str, tuple[str, ...]] = {  # the shipped tasks answered with option buttons
    task["id"]: (task["answer"],) if task["kind"] == "choice" else tuple(task["answers"])
    for bank in sorted(CONTENT_DIR.rglob("*.yaml"))
    for task in yaml.safe_load(bank.read_text(encoding="utf-8"))["tasks"]
    if task["kind"] in ("choice", "fill")
}
COMMANDS = {
    "quiz",
    "hint",
    "solution",
    "leaderboard",
    "stats",
    "topics",
    "schedule",
    "config",
    "insights",
    "bank",
    "reminders",
    "practice",
    "review",
    "help",
    "mydata",
}

# Generous for a shared two-core machine; a healthy run needs a fraction of each.
START_TIMEOUT = 45.0
SYNC_TIMEOUT = 60.0
STEP = 15.0


def wrong_option(task_id: str, *, not_: str | None = None) -> str:
    """A wrong option of a single-answer task (A-D), other than `not_`."""
    right = ANSWERS[task_id][0]
    return next(o for o in "ABCD" if o not in (right, not_))


# -- the bot process --------------------------------------------------------------------------


class QuizBotRunner:
    """The real bot (`python -m bot run`) against `emulator`, on a SQLite file in `workdir`
    (or on `database_url`, e.g. a PostgreSQL database)."""

    def __init__(
        self,
        emulator: DiscordEmulator,
        workdir: Path,
        *,
        env: Mapping[str, str] | None = None,
        database_url: str | None = None,
    ) -> None:
        self.emulator = emulator
        self._database_url = database_url
        self.driver: Driver = emulator.driver
        self.workdir = workdir
        self.db_path = workdir / "quiz.db"
        self.extra_env = dict(env or {})
        self.processes: list[BotProcess] = []

    @property
    def database_url(self) -> str:
        return self._database_url or f"sqlite:///{self.db_path}"  # absolute path: four slashes

    @property
    def current(self) -> BotProcess:
        assert self.processes, "the bot was never started"
        return self.processes[-1]

    def env(self) -> dict[str, str]:
        env = {
            "DATABASE_URL": self.database_url,
            "CONTENT_DIR": str(CONTENT_DIR),
            # Beside the test's database, so a restart in a test is served from the cache.
            "CONTENT_CACHE": str(self.db_path.with_name("content-cache.pickle")),
            "QUIZBOT_TIMEZONE": "UTC",
            "SCHEDULE_GRACE_MINUTES": "120",
            "LOG_LEVEL": "INFO",
        }
        env.update(self.extra_env)
        return env

    def _process(self, name: str, args: list[str]) -> BotProcess:
        log_path = self.workdir / f"{name}.log"
        return BotProcess.for_emulator(
            self.emulator, "bot", log_path=log_path, extra_env=self.env(), args=args
        )

    async def sync(self, guild: Guild | None = None, timeout: float = SYNC_TIMEOUT) -> str:  # noqa: ASYNC109
        """`quizbot sync [--guild ID]` as a subprocess; its output. Fails on a non-zero exit.

        Awaited, not run blocking: the emulator serving its requests lives in this event loop.
        """
        args = ["sync"] + (["--guild", str(guild.id)] if guild is not None else [])
        proc = self._process("sync", args)
        child = await asyncio.create_subprocess_exec(
            *proc.argv,
            cwd=proc.cwd,
            env=proc.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            out, _ = await asyncio.wait_for(child.communicate(), timeout)
        except TimeoutError:
            child.kill()
            await child.wait()
            raise
        text = out.decode(errors="replace")
        assert child.returncode == 0, f"quizbot sync exited with {child.returncode}:\n{text}"
        return text

    async def start(self, timeout: float = START_TIMEOUT) -> BotProcess:  # noqa: ASYNC109
        """Start a fresh `quizbot run`; return once it has identified and got its guilds."""
        driver = self.driver
        before = driver.identify_count
        proc = self._process(f"bot-{len(self.processes)}", ["run"]).start()
        self.processes.append(proc)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        # A session of a killed predecessor may still count as "ready" for a moment, so wait
        # for this process's own IDENTIFY first.
        identified = asyncio.ensure_future(driver.wait_for_identify(before + 1, timeout))
        try:
            while not identified.done():
                if proc.returncode is not None:
                    raise RuntimeError(
                        f"quizbot exited with {proc.returncode} before IDENTIFY:\n{proc.log_tail()}"
                    )
                await asyncio.wait({identified}, timeout=0.05)
            try:
                identified.result()
            except TimeoutError as exc:
                raise TimeoutError(f"{exc}\n--- quizbot log ---\n{proc.log_tail()}") from None
        finally:
            identified.cancel()
        await proc.wait_until_ready(driver, timeout=max(1.0, deadline - loop.time()))
        return proc

    async def kill(self, sig: int = signal.SIGKILL, timeout: float = 15.0) -> int | None:  # noqa: ASYNC109
        """Send `sig` to the running bot and wait for it to exit; its exit code."""
        proc = self.current
        if proc.returncode is None and proc.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, sig)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while proc.returncode is None:
            if loop.time() > deadline:
                raise TimeoutError(f"quizbot did not exit after signal {sig}")
            await asyncio.sleep(0.02)
        return proc.returncode

    async def restart(self, sig: int = signal.SIGKILL) -> BotProcess:
        await self.kill(sig)
        return await self.start()

    async def stop(self) -> None:
        for proc in self.processes:
            await proc.stop()

    def logs(self) -> str:
        parts = []
        for proc in self.processes:
            with contextlib.suppress(FileNotFoundError):
                parts.append(f"--- {proc.log_path.name} ---\n{proc.log_path.read_text()}")
        return "\n".join(parts)

    def error_lines(self) -> list[str]:
        """Log lines at ERROR or above, and tracebacks: each one is a bug in the bot."""
        found = []
        for proc in self.processes:
            with contextlib.suppress(FileNotFoundError):
                for line in proc.log_path.read_text(errors="replace").splitlines():
                    if " ERROR " in line or " CRITICAL " in line or "Traceback" in line:
                        found.append(f"{proc.log_path.name}: {line}")
        return found

    # -- the database, read directly ---------------------------------------------------------

    @contextlib.contextmanager
    def db(self) -> Iterator[sqlite3.Connection]:
        """A plain sqlite3 connection to the bot's database (WAL: safe while it runs)."""
        conn = sqlite3.connect(self.db_path, timeout=10)
        conn.row_factory = sqlite3.Row
        try:
            yield conn
        finally:
            conn.close()

    def query(self, sql: str, *params: Any) -> list[Any]:
        """Rows of `sql` (`?` placeholders), each indexable by column name."""
        if self._database_url is not None and not self._database_url.startswith("sqlite"):
            engine = create_engine(self._database_url, poolclass=NullPool)
            try:
                with engine.connect() as conn:
                    result = conn.exec_driver_sql(sql.replace("?", "%s"), params)
                    return list(result.mappings())
            finally:
                engine.dispose()
        with self.db() as conn:
            return conn.execute(sql, params).fetchall()

    async def wait_for_query(
        self,
        sql: str,
        *params: Any,
        until: Callable[[list[sqlite3.Row]], bool] = bool,
        timeout: float = STEP,  # noqa: ASYNC109
    ) -> list[sqlite3.Row]:
        """Poll `sql` until `until(rows)` holds (default: any row); the rows."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            rows = self.query(sql, *params)
            if until(rows):
                return rows
            if loop.time() > deadline:
                raise TimeoutError(f"timed out after {timeout}s waiting for {sql!r}: {rows}")
            await asyncio.sleep(0.05)

    def post_id_of(self, message: Message) -> int:
        [row] = self.query("SELECT id FROM post WHERE message_id = ?", int(message["id"]))
        return int(row["id"])


@contextlib.asynccontextmanager
async def checked_bot(
    emulator: DiscordEmulator,
    workdir: Path,
    *,
    env: Mapping[str, str] | None = None,
    database_url: str | None = None,
) -> AsyncIterator[QuizBotRunner]:
    """A bot stopped on the way out. Anything it logged as an error is a bug, even if the
    member got a polite reply."""
    runner = QuizBotRunner(emulator, workdir, env=env, database_url=database_url)
    try:
        yield runner
    finally:
        await runner.stop()
    assert runner.error_lines() == [], runner.logs()[-6000:]


def banks_env(workdir: Path, banks: Mapping[str, str]) -> dict[str, str]:
    """The bot's env for a content folder holding only `banks` (file name: YAML text)."""
    content = workdir / "content"
    content.mkdir()
    for name, text in banks.items():
        (content / name).write_text(text, encoding="utf-8")
    return {"CONTENT_DIR": str(content)}


def quizbot_with(banks: Mapping[str, str]) -> Any:
    """A test module's `quizbot` fixture: a `checked_bot` whose content folder holds only
    `banks` (file name: YAML text)."""

    @pytest_asyncio.fixture
    async def quizbot(emulator: DiscordEmulator, tmp_path: Path) -> AsyncIterator[QuizBotRunner]:
        async with checked_bot(emulator, tmp_path, env=banks_env(tmp_path, banks)) as bot:
            yield bot

    return quizbot


def attempts(quizbot: QuizBotRunner, post_id: int, user_id: int) -> list[tuple[int, str]]:
    """A member's stored attempts at a post: (attempt number, picks), in order."""
    rows = quizbot.query(
        "SELECT attempt_no, picks FROM attempt WHERE post_id = ? AND user_id = ? "
        "ORDER BY attempt_no",
        post_id,
        user_id,
    )
    return [(int(r[0]), str(r[1])) for r in rows]


# -- what a member sees ----------------------------------------------------------------------


@dataclass
class Click:
    """An interaction plus the edited_timestamp of its message when it was sent, so a
    deferred update (type 6) can be told apart from the edit that follows it."""

    record: InteractionRecord
    baseline: str | None = None


def click(driver: Driver, message: Message | int, custom_id: str, *, user: Any) -> Click:
    msg = driver.get_message(message["id"] if isinstance(message, dict) else message)
    baseline = msg.get("edited_timestamp") if msg else None
    return Click(driver.click_button(message, custom_id, user=user), baseline)


def select(
    driver: Driver, message: Message | int, custom_id: str, values: list[str], *, user: Any
) -> Click:
    msg = driver.get_message(message["id"] if isinstance(message, dict) else message)
    baseline = msg.get("edited_timestamp") if msg else None
    return Click(driver.select(message, custom_id, values, user=user), baseline)


async def press(driver: Driver, message: Message, prefix: str, who: Member) -> Message:
    """What `who` sees after clicking the message's button whose custom_id starts `prefix`."""
    return await reply_of(click(driver, message, find_custom_id(message, prefix), user=who))


async def picked(driver: Driver, picker: Message, prefix: str, option: str, who: Member) -> Message:
    """A private picker after `who` picks `option` in its select whose custom_id starts
    `prefix`."""
    custom_id = find_custom_id(picker, prefix)
    updated = await reply_of(select(driver, picker, custom_id, [option], user=who))
    assert updated["id"] == picker["id"]  # the picker redraws itself
    return updated


async def opened(
    driver: Driver, message: Message, custom_id: str, user: Member, *, modal: str = "quiz:typed:"
) -> InteractionRecord:
    """Press a button that answers with a modal (callback type 9) whose custom_id starts
    `modal` (a typed task's, by default)."""
    record = click(driver, message, custom_id, user=user).record
    response = await record.wait_response(STEP)
    assert int(response["type"]) == 9, response
    assert response["data"]["custom_id"].startswith(modal)
    return record


async def reply_of(action: InteractionRecord | Click, timeout: float = STEP) -> Message:  # noqa: ASYNC109
    """The message that carries the bot's answer to an interaction, once it is complete.

    4: the reply itself. 5: the deferral's placeholder, once a follow-up filled it in.
    7: the updated message. 6: the clicked message, once the bot has edited it.
    """
    if isinstance(action, Click):
        record, baseline = action.record, action.baseline
    else:
        record, baseline = action, None
    response = await record.wait_response(timeout)
    rtype = int(response["type"])
    if rtype in (4, 7):
        assert record.original_message is not None
        return record.original_message
    if rtype == 5:
        [first, *_] = await record.wait_followups(1, timeout)
        return first

    def edited() -> Message | None:
        msg = record.original_message
        if msg is None or msg.get("edited_timestamp") in (None, baseline):
            return None
        return msg

    if rtype == 6:
        return await record.changed.wait_for(
            edited, timeout, f"the edit after deferring interaction {record.id}"
        )
    raise AssertionError(f"unexpected callback type {rtype} for interaction {record.id}")


def text_of(message: Message) -> str:
    """Everything a reader sees in a message, as one string."""
    parts: list[str] = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
        for field in embed.get("fields") or []:
            parts += [field.get("name") or "", field.get("value") or ""]
        parts.append((embed.get("footer") or {}).get("text") or "")
    parts += _component_texts(message.get("components") or [])
    return "\n".join(p for p in parts if p)


def _component_texts(components: list[JSON]) -> list[str]:
    out: list[str] = []
    for comp in components:
        if comp.get("type") == 10:  # text display (components v2)
            out.append(comp.get("content") or "")
        out += _component_texts(comp.get("components") or [])
    return out


def custom_ids(message: Message) -> list[str]:
    """Every custom_id on a message, in order (nested rows and v2 containers included)."""
    found: list[str] = []

    def walk(components: list[JSON]) -> None:
        for comp in components:
            if comp.get("custom_id"):
                found.append(comp["custom_id"])
            walk(comp.get("components") or [])

    walk(message.get("components") or [])
    return found


def find_custom_id(message: Message, prefix: str) -> str:
    matches = [c for c in custom_ids(message) if c.startswith(prefix)]
    assert len(matches) == 1, f"want one custom_id starting {prefix!r}, got {custom_ids(message)}"
    return matches[0]


def is_ephemeral(message: Message) -> bool:
    return bool(int(message.get("flags") or 0) & EPHEMERAL)


def raw_command(
    driver: Any,
    world: Any,
    who: Any,
    channel: Any,
    name: str,
    options: list[dict[str, Any]],
    resolved: dict[str, Any],
) -> dict[str, Any]:
    """A slash command as a hand-made INTERACTION_CREATE payload from `who`, with the member
    permissions Discord would compute: how a crafted request reaches the bot even when the
    client hides the command (default_member_permissions)."""
    from fakediscord import payloads

    [cmd] = [c for c in driver.commands(world.guild) if c["name"] == name]
    member_perms = driver.world.member_permissions(channel, who.id)
    guild = str(world.guild.id)
    return {
        "type": 2,
        "application_id": str(driver.application_id),
        "version": 1,
        "guild_id": guild,
        "guild": {"id": guild, "locale": "en-US", "features": []},
        "guild_locale": "en-US",
        "channel_id": str(channel.id),
        "channel": payloads.channel(channel, driver.world, permissions=member_perms),
        "member": payloads.member(who, permissions=member_perms),
        "app_permissions": str(driver.world.bot_permissions(channel)),
        "locale": "en-US",
        "context": 0,
        "authorizing_integration_owners": {"0": guild},
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": 25 * 1024 * 1024,
        "data": {
            "id": cmd["id"],
            "name": name,
            "type": 1,
            "guild_id": guild,
            "options": options,
            "resolved": resolved,
        },
    }
