"""Crash safety: SIGKILL the real bot while many members are clicking, restart it, and check
that no answer a member was told about is lost and no member got a fourth attempt.

The truth about what members were told is the emulator's: an answer counts as acknowledged
when the interaction callback (or the follow-up after a deferral) carrying its outcome
reached fakediscord before the kill. The truth about what was stored is the database (the
SQLite file, or the PostgreSQL database), read directly.

Runs on each engine: `[sqlite]`, and `[postgresql]` on the tests' throwaway server (the bot is
killed, not the server). Repeat with CRASH_REPEAT=10 (each repetition is a fresh emulator, bot
and database), e.g. `CRASH_REPEAT=10 pytest -n0 -s -k "crash and postgresql"`; CRASH_MEMBERS
sets the crowd (default 100). Each run prints one `crash-run` line of numbers (see them with
`pytest -n0 -s`: xdist's workers keep their output). `python -m benchmarks.crash_pg` runs it
against a durable server.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fakediscord import DiscordEmulator, Driver, InteractionRecord, Member, Message

from tests.pg_server import PgServer

from .bot_helpers import ANSWERS, STEP, QuizBotRunner, is_ephemeral, reply_of, text_of

pytestmark = pytest.mark.e2e

REPEAT = int(os.environ.get("CRASH_REPEAT", "1"))
MEMBERS = int(os.environ.get("CRASH_MEMBERS", "100"))
LATECOMERS = 5
"""Members who first click after the restart: the old buttons must grade them."""
KILL_AT = 0.4
"""Kill once this share of the planned clicks has been answered."""
START_SPREAD = 0.4
"""Members start clicking within this many seconds of each other."""
THINK = 0.05
"""Up to this many seconds between one member's clicks."""

TASKS = ("mlops-parallelism-mc-1", "mlops-parallelism-mc-3")  # easy (10 pts), medium (20 pts)
POINTS = {"mlops-parallelism-mc-1": 10, "mlops-parallelism-mc-3": 20}
_LEFT = re.compile(r"You have \*\*(\d)\*\* attempts? left")
_EARNED = re.compile(r"You earned \*\*(\d+)\*\* points?")


def points_for(task: str, wrong_tries: int) -> int:
    """The engine's formula: points × (3 − wrong) / 3, rounded half up (no hint here)."""
    return (POINTS[task] * (3 - wrong_tries) * 2 + 3) // 6


@dataclass(frozen=True)
class Outcome:
    status: str  # correct | wrong | failed | repeated | finished
    attempt_no: int | None
    """The attempt this answer was stored as (None: finished, or a repeat of a stored wrong
    answer, which is not graded again)."""


def parse_outcome(task: str, text: str) -> Outcome:
    if "✅ Right" in text:
        earned = _EARNED.search(text)
        assert earned, text
        by_points = {points_for(task, w): w + 1 for w in range(3)}
        return Outcome("correct", by_points[int(earned.group(1))])
    if "isn't it either" in text and "last attempt" in text:
        return Outcome("failed", 3)
    if "Not quite" in text:
        left = _LEFT.search(text)
        assert left, text
        return Outcome("wrong", 3 - int(left.group(1)))
    if "already finished" in text:
        return Outcome("finished", None)
    if "You already tried" in text and "didn't use an attempt" in text:
        return Outcome("repeated", None)
    raise AssertionError(f"unexpected answer reply: {text!r}")


@dataclass
class Click:
    member: Member
    post_id: int
    task: str
    option: str
    record: InteractionRecord
    after_restart: bool


@dataclass
class Player:
    member: Member
    post: Message
    post_id: int
    task: str
    plan: list[str]
    burst: bool = False
    """Fire every click at once (a double-clicker), instead of one after the other."""
    done: int = 0
    """Clicks answered before the kill."""
    finished: bool = False


def acknowledged(record: InteractionRecord) -> str | None:
    """The outcome text the member got, if the emulator received it; None otherwise."""
    response = record.response
    if response is None:
        return None
    if response["type"] == 4:
        return text_of(record.original_message or {})
    if response["type"] == 5 and record.followups:
        return text_of(record.followups[0])
    return None  # only "thinking…": the outcome never reached the member


def make_plan(rng: random.Random, task: str) -> tuple[list[str], bool]:
    right = ANSWERS[task][0]
    wrongs = [o for o in "ABCD" if o != right]
    rng.shuffle(wrongs)
    kind = rng.choices(
        ["right", "wrong-right", "wrong-wrong-right", "fail", "burst"], [3, 3, 2, 1, 1]
    )[0]
    if kind == "right":
        return [right], False
    if kind == "wrong-right":
        return [wrongs[0], right], False
    if kind == "wrong-wrong-right":
        return [wrongs[0], wrongs[1], right], False
    if kind == "fail":
        return wrongs[:3], False
    return [wrongs[0], wrongs[1], wrongs[2], right, wrongs[0]], True


async def post_tasks(driver: Driver, bot: QuizBotRunner, guild, channels, poster) -> list:  # type: ignore[no-untyped-def]
    posts = []
    for channel, task in zip(channels, TASKS, strict=True):
        rec = driver.slash("quiz", user=poster, channel=channel, options={"task": task})
        assert "Posted" in (await reply_of(rec))["content"]
        msg = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
        posts.append((msg, bot.post_id_of(msg), task))
    return posts


@pytest.fixture
def database_url(request: pytest.FixtureRequest, backend: str) -> Iterator[str | None]:
    """None (the runner's SQLite file) or a fresh database on the tests' PostgreSQL server."""
    if backend == "sqlite":
        yield None
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database()
    yield url
    server.drop_database(url)


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
)
@pytest.mark.parametrize("repeat", range(REPEAT))
async def test_sigkill_under_load_loses_no_acknowledged_answer(
    emulator: DiscordEmulator,
    driver: Driver,
    tmp_path: Path,
    repeat: int,
    backend: str,
    database_url: str | None,
) -> None:
    started_at = time.monotonic()
    rng = random.Random(f"crash-{repeat}")
    guild = driver.create_guild("Crash Course")
    channels = [driver.create_text_channel(guild, f"quiz-{n}") for n in range(len(TASKS))]
    crowd = [driver.add_member(guild, f"member{n:03d}") for n in range(MEMBERS + LATECOMERS)]
    members, latecomers = crowd[:MEMBERS], crowd[MEMBERS:]

    bot = QuizBotRunner(emulator, tmp_path, database_url=database_url)
    try:
        await bot.sync(guild)
        await bot.start()
        posts = await post_tasks(driver, bot, guild, channels, guild.members[guild.owner_id])

        players = []
        for n, member in enumerate(members):
            post, post_id, task = posts[n % len(posts)]
            plan, burst = make_plan(rng, task)
            players.append(Player(member, post, post_id, task, plan, burst))
        planned = sum(len(p.plan) for p in players)
        clicks: list[Click] = []
        killed = asyncio.Event()

        def send(player: Player, option: str, *, after_restart: bool) -> Click:
            rec = driver.click_button(
                player.post, f"quiz:ans:{player.post_id}:{option}", user=player.member
            )
            c = Click(player.member, player.post_id, player.task, option, rec, after_restart)
            clicks.append(c)
            return c

        async def outcome_or_kill(rec: InteractionRecord) -> str | None:
            waiter = asyncio.ensure_future(reply_of(rec, timeout=30))
            stop = asyncio.ensure_future(killed.wait())
            try:
                await asyncio.wait({waiter, stop}, return_when=asyncio.FIRST_COMPLETED)
                return text_of(waiter.result()) if waiter.done() else None
            finally:
                waiter.cancel()
                stop.cancel()

        async def play(player: Player) -> None:
            await asyncio.sleep(rng.uniform(0, START_SPREAD))
            if player.burst:
                if killed.is_set():
                    return
                burst = [send(player, o, after_restart=False) for o in player.plan]
                player.done = len(player.plan)
                await asyncio.gather(*(outcome_or_kill(c.record) for c in burst))
                return
            for option in player.plan:
                if killed.is_set():
                    return
                click = send(player, option, after_restart=False)
                text = await outcome_or_kill(click.record)
                if text is None:
                    return
                player.done += 1
                if parse_outcome(player.task, text).status != "wrong":
                    player.finished = True
                    return
                await asyncio.sleep(rng.uniform(0, THINK))

        async def kill_midway() -> None:
            target = int(planned * KILL_AT)
            await driver.world.changed.wait_for(
                lambda: sum(1 for c in clicks if acknowledged(c.record) is not None) >= target,
                120,
                f"{target} answered clicks",
            )
            await bot.kill(signal.SIGKILL)
            killed.set()

        load_started = time.monotonic()
        killer = asyncio.ensure_future(kill_midway())
        await asyncio.wait_for(asyncio.gather(killer, *(play(p) for p in players)), timeout=120)
        load_seconds = time.monotonic() - load_started

        # What the members were told before the kill, and what was in flight.
        before = [c for c in clicks if not c.after_restart]
        acked = [(c, acknowledged(c.record)) for c in before]
        acked = [(c, text) for c, text in acked if text is not None]
        in_flight = len(before) - len(acked)
        for c, text in acked:
            assert is_ephemeral(c.record.original_message or {}), text
        outcomes = [(c, parse_outcome(c.task, text), text) for c, text in acked]
        assert in_flight > 0 or len(before) < planned, "the kill did not land mid-load"

        # A fresh process on the same database.
        await bot.start()
        restarted_at = time.monotonic()

        # Old buttons answer: whoever finished is told so, latecomers are graded.
        finished = [c for c, o, _ in outcomes if o.status in ("correct", "failed")]
        for c in rng.sample(finished, min(5, len(finished))):
            text = await click_again(driver, c, rng)
            assert "already finished" in text, text
        for member in latecomers:
            post, post_id, task = posts[rng.randrange(len(posts))]
            rec = driver.click_button(post, f"quiz:ans:{post_id}:{ANSWERS[task][0]}", user=member)
            clicks.append(Click(member, post_id, task, ANSWERS[task][0], rec, True))
            text = text_of(await reply_of(rec, timeout=30))
            assert "✅ Right" in text and "first try" in text, text

        # The interrupted members carry on where they think they are.
        async def resume(player: Player) -> None:
            for option in player.plan[player.done :]:
                click = send(player, option, after_restart=True)
                text = text_of(await reply_of(click.record, timeout=30))
                # A click stored before the kill but never acknowledged is a repeat now.
                if parse_outcome(player.task, text).status not in ("wrong", "repeated"):
                    return

        await asyncio.wait_for(
            asyncio.gather(*(resume(p) for p in players if not p.finished and not p.burst)),
            timeout=120,
        )

        # ---- the database, read directly ------------------------------------------------
        rows = bot.query("SELECT post_id, user_id, attempt_no, picks, correct FROM attempt")
        stored = {(r["post_id"], r["user_id"], r["attempt_no"]): r for r in rows}
        scores = {(r["post_id"], r["user_id"]): r for r in bot.query("SELECT * FROM score")}

        def check(c: Click, o: Outcome, text: str) -> None:
            key = (c.post_id, c.member.id)
            if o.status == "finished":
                assert key in scores, f"told 'already finished' but no score: {text}"
                return
            if o.status == "repeated":  # the same wrong answer is stored, once
                same = [
                    r
                    for (p, u, _), r in stored.items()
                    if (p, u) == key and r["picks"] == c.option and not r["correct"]
                ]
                assert len(same) == 1, f"told 'already tried' of {c.option}: {text}"
                return
            row = stored.get((c.post_id, c.member.id, o.attempt_no))
            assert row is not None, f"acknowledged answer lost: {c.option} #{o.attempt_no} {text}"
            assert row["picks"] == c.option
            assert bool(row["correct"]) == (o.status == "correct")
            if o.status in ("correct", "failed"):
                assert key in scores and bool(scores[key]["solved"]) == (o.status == "correct")

        for c, o, text in outcomes:
            check(c, o, text)
        after = [(c, acknowledged(c.record)) for c in clicks if c.after_restart]
        for c, text in after:
            assert text is not None, f"no answer after the restart for {c.option}"
            check(c, parse_outcome(c.task, text), text)

        per_member = Counter((r["post_id"], r["user_id"]) for r in rows)
        max_attempts = max(per_member.values())
        assert max_attempts <= 3
        for (post_id, user_id), n in per_member.items():
            numbers = sorted(a for (p, u, a) in stored if (p, u) == (post_id, user_id))
            assert numbers == list(range(1, n + 1)), (post_id, user_id, numbers)
            correct = [
                a
                for (p, u, a), r in stored.items()
                if (p, u) == (post_id, user_id) and r["correct"]
            ]
            assert correct in ([], [n]), "no attempt may follow a right answer"
        assert bot.error_lines() == [], bot.logs()[-6000:]

        stats = {
            "backend": backend,
            "repeat": repeat,
            "members": MEMBERS,
            "planned_clicks": planned,
            "sent_before_kill": len(before),
            "acked_before_kill": len(acked),
            "in_flight_at_kill": in_flight,
            "acked_found_in_db": sum(
                1
                for c, o, _ in outcomes
                if o.status == "finished" or (c.post_id, c.member.id, o.attempt_no) in stored
            ),
            "stored_without_ack": len(rows)
            - sum(1 for _, o, _ in outcomes if o.attempt_no)
            - sum(1 for c, t in after if parse_outcome(c.task, t).attempt_no),
            "clicks_after_restart": len(after),
            "max_attempts_per_member": max_attempts,
            "load_seconds": round(load_seconds, 2),
            "restart_to_checked_seconds": round(time.monotonic() - restarted_at, 2),
            "run_seconds": round(time.monotonic() - started_at, 2),
        }
        print("crash-run", json.dumps(stats))
    finally:
        await bot.stop()


async def click_again(driver: Driver, c: Click, rng: random.Random) -> str:
    """The member of `c` clicks the same post again, any option; the reply's text."""
    assert c.record.source_message_id is not None
    option = rng.choice("ABCD")
    rec = driver.click_button(
        c.record.source_message_id, f"quiz:ans:{c.post_id}:{option}", user=c.member
    )
    return text_of(await reply_of(rec, timeout=30))
