"""What a quiz bot needs before it is measured: its own database, commands and posts.

Each quiz bot source (this checkout, or `--bot-src`) gets a channel, a database made by its
own store and its own posts, created with its own /quiz: two versions never share a schema.
The floor answers any click, so it reuses the first source's posts. The review scenario needs
no posts: its database gets every member's due review cards before the bot first starts, and
the members are spread over their sittings (`ReviewLoad.prime`) once it runs.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Sequence
from pathlib import Path

from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member, Message

from benchmarks.bots import BotSource, prepare_db, quiz_bot_env, sync_commands
from benchmarks.load_phases import CLICKS, TASK_ID, ClickLoad, Load, post_id_of
from benchmarks.review_load import ReviewLoad, review_tasks, write_seed_file

ANSWERS, REVIEWS = "answers", "review"
SCENARIOS = (ANSWERS, REVIEWS)

BUSIEST_RATE = 2500
"""Answers/s no bot reaches in a closed loop: enough posts for it never run out."""


def posts_needed(
    *, runs: int, members: int, closed_seconds: float, warmup: float, rate: float,
    open_seconds: float
) -> int:
    """Posts for `runs` measured runs on one set of posts, so that members always have
    attempts left (a member that runs out anyway wraps around to posts it finished, which
    the report counts)."""
    per_run = BUSIEST_RATE * (closed_seconds + warmup + 1) + rate * open_seconds
    return max(10, math.ceil(runs * per_run / members / len(CLICKS)) + 2)


class SourceSetup:
    """One quiz bot source's database, channel and (after its first start) posts."""

    def __init__(
        self,
        source: BotSource,
        channel: Channel,
        workdir: Path,
        posts: int,
        scenario: str,
        database_url: str | None = None,
    ) -> None:
        self.source = source
        self.scenario = scenario
        self.channel = channel
        self.db_path = workdir / f"{slug(source.name)}.db"
        self.env = quiz_bot_env(self.db_path, source.content_dir, database_url=database_url)
        self.logs = workdir
        self.posts_wanted = posts
        self.load: ClickLoad | None = None
        self.posting_seconds = 0.0
        self.review_tasks = review_tasks(source.content_dir) if scenario == REVIEWS else []

    @classmethod
    async def prepare(
        cls,
        emulator: DiscordEmulator,
        source: BotSource,
        guild: Guild,
        workdir: Path,
        posts: int,
        *,
        scenario: str = ANSWERS,
        members: Sequence[Member] = (),
        database_url: str | None = None,
    ) -> SourceSetup:
        """`database_url`: an empty database for a source on PostgreSQL (its own store makes
        the schema); None for a fresh SQLite file in `workdir`."""
        name = "quiz-" + slug(source.name)
        channel = emulator.driver.create_text_channel(guild, name)
        setup = cls(source, channel, workdir, posts, scenario, database_url)
        log = workdir / f"{source.name}-prepare.log"
        seeds = None
        if scenario == REVIEWS:
            seeds = write_seed_file(
                workdir / f"{slug(source.name)}-review-cards.json",
                [m.id for m in members],
                setup.review_tasks,
            )
        await prepare_db(emulator, source, setup.env, guild.id, log, review_cards=seeds)
        return setup

    async def ensure_load(
        self, emulator: DiscordEmulator, guild: Guild, poster: Member, members: list[Member]
    ) -> ClickLoad:
        """The load on this source's posts; the first call (its bot running) creates them
        (for the review scenario: spreads the members over their sittings, again each round)."""
        if isinstance(self.load, ReviewLoad):
            await self.load.prime()
        if self.load is None:
            log = self.logs / f"{self.source.name}-sync.log"
            await sync_commands(emulator, self.source, self.env, guild.id, log)
            t0 = time.monotonic()
            d = emulator.driver
            if self.scenario == REVIEWS:
                load = ReviewLoad(d, self.channel, self.review_tasks, members)
                await load.prime()
                self.load = load
            else:
                posts = await create_posts(d, self.channel, poster, self.posts_wanted)
                self.load = Load(d, posts, members)
            self.posting_seconds = time.monotonic() - t0
        return self.load


def slug(name: str) -> str:
    """A bot's name as part of a file or channel name: `quizbot@old[postgresql]` →
    `quizbot-old-postgresql`."""
    return name.replace("@", "-").replace("[", "-").replace("]", "")


def _is_post(message: Message) -> bool:
    return any(
        "quiz:ans:" in (c.get("custom_id") or "")
        for row in message.get("components") or []
        for c in row.get("components") or []
    )


async def create_posts(
    d: Driver, channel: Channel, poster: Member, count: int, batch: int = 8
) -> list[Message]:
    """`count` quizzes posted with /quiz (a few at a time); their messages, by post id."""

    async def one() -> None:
        ix = d.slash("quiz", user=poster, channel=channel, options={"task": TASK_ID})
        await ix.wait_followups(1, timeout=30)
        text = ix.followups[0].get("content") or ""
        if not text.startswith("Posted"):
            raise RuntimeError(f"/quiz did not post: {text!r}")

    for start in range(0, count, batch):
        await asyncio.gather(*(one() for _ in range(min(batch, count - start))))
    posts = [m for m in d.channel_messages(channel) if _is_post(m)]
    if len(posts) != count:
        raise RuntimeError(f"expected {count} posts, found {len(posts)}")
    return sorted(posts, key=post_id_of)
