"""Nothing the bot says bypasses the catalogs: the real bot process speaks a pseudo-locale
(tests/i18n/pseudo.py: every message accented and bracketed) as the catalog of French, in a
server set to French whose members' clients are French, through a session that makes it say
as much as it can (posts of every task kind, answers right and wrong, hints, solutions,
pickers, modals, standings, practice, the moderators' commands, a daily quiz and its close
summary, the welcome, a reminder DM). Every text a member was shown is then searched for English
(tests/e2e/english_leaks.py)."""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import yaml
from babel.messages import Catalog
from fakediscord import Channel, DiscordEmulator, Driver, Member, Message
from fakediscord.state import DM

from bot.i18n import DISPLAY_NAMES, LOCALE_DIR_VARIABLE
from bot.i18n.catalogs import extracted_ids
from tests.i18n.catalog_files import write_catalog
from tests.i18n.pseudo import pseudo_messages

from .bot_helpers import (
    ANSWERS,
    CONTENT_DIR,
    STEP,
    QuizBotRunner,
    checked_bot,
    click,
    custom_ids,
    find_custom_id,
    reply_of,
    select,
    wrong_option,
)
from .daily_helpers import DB_TIME, daily_quiz_closed, daily_quiz_posted
from .english_leaks import Leak, LeakFinder, bank_strings
from .test_i18n_commands import wait_for_log

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

LOCALE, DISCORD_LOCALE = "fr", "fr"
MC, FILL = "mlops-parallelism-mc-1", "mlops-parallelism-fill-4"
SHORT, NUMERICAL, MULTI, MATCHING = "git-short-1", "sql-num-1", "python-multi-1", "stats-match-1"
# What members type, which the bot may show back as it is.
WRONG_WORD, NOT_A_NUMBER, WRONG_NUMBER = "svn", "many", "77"
NO_TOPIC, NO_ZONE, ZONE = "No such topic", "Mars/Olympus", "Europe/Paris"
TYPED = {WRONG_WORD, NOT_A_NUMBER, WRONG_NUMBER, NO_TOPIC, NO_ZONE, ZONE}
TASKS: dict[str, dict[str, Any]] = {
    task["id"]: task
    for bank in sorted(CONTENT_DIR.rglob("*.yaml"))
    for task in yaml.safe_load(bank.read_text(encoding="utf-8"))["tasks"]
}


def write_pseudo_catalog(folder: Path, locale: str) -> Path:
    """The pseudo-locale of every message the code holds now (the template may lag behind
    the code while messages are converted), compiled as `locale`'s catalog."""
    template = Catalog()
    for msgid in extracted_ids():
        template.add(msgid)
    plurals = Catalog(locale=locale).num_plurals
    return write_catalog(folder, locale, pseudo_messages(template, plurals))


class Group:
    """A French study group: the owner and five members, all with French clients, in a
    server whose own language is French; a channel per post (/quiz has a cooldown)."""

    CHANNELS = ("mc", "fill", "short", "numerical", "multi", "matching", "daily", "misc")

    def __init__(self, driver: Driver) -> None:
        owner = driver.create_user("owner", locale=DISCORD_LOCALE)
        self.guild = driver.create_guild("Groupe", owner=owner)
        driver.set_guild_locale(self.guild, DISCORD_LOCALE)
        self.owner: Member = self.guild.members[owner.id]
        self.channels: dict[str, Channel] = {
            name: driver.create_text_channel(self.guild, name) for name in self.CHANNELS
        }
        names = ("alice", "bob", "carol", "dave", "erin")
        self.members: list[Member] = []
        for name in names:
            user = driver.create_user(name, locale=DISCORD_LOCALE)
            self.members.append(driver.add_member(self.guild, user))
        self.alice, self.bob, self.carol, self.dave, self.erin = self.members

    def names(self) -> set[str]:
        """What the bot may show as it is: the names of people, the server and channels."""
        users = [self.owner, *self.members]
        return {self.guild.name, *self.channels} | {m.user.username for m in users}


@pytest.fixture
def pseudo_dir(tmp_path: Path) -> Path:
    """A QUIZBOT_LOCALE_DIR with the pseudo-locale as French (extracting the messages runs
    an event loop of its own: not inside the test's)."""
    write_pseudo_catalog(tmp_path / "locales", LOCALE)
    return tmp_path / "locales"


@pytest_asyncio.fixture
async def pseudo_bot(
    emulator: DiscordEmulator, tmp_path: Path, pseudo_dir: Path
) -> AsyncIterator[QuizBotRunner]:
    env = {LOCALE_DIR_VARIABLE: str(pseudo_dir)}
    async with checked_bot(emulator, tmp_path, env=env) as quizbot:
        yield quizbot


class Session:
    """Drives the group's members through the bot, waiting for each answer to be complete."""

    def __init__(self, quizbot: QuizBotRunner, group: Group) -> None:
        self.quizbot, self.group, self.driver = quizbot, group, quizbot.driver

    async def slash(
        self, command: str, who: Member, where: str = "misc", **options: Any
    ) -> Message:
        return await reply_of(
            self.driver.slash(
                command, user=who, channel=self.group.channels[where], options=options
            )
        )

    async def press(self, message: Message, custom_id: str, who: Member) -> Message:
        return await reply_of(click(self.driver, message, custom_id, user=who))

    async def pick(
        self, message: Message, custom_id: str, values: list[str], who: Member
    ) -> Message:
        return await reply_of(select(self.driver, message, custom_id, values, user=who))

    async def post(self, task: str, channel: str) -> tuple[Message, int]:
        await self.slash("quiz", self.group.alice, channel, task=task)
        ch = self.group.channels[channel]
        post = await self.driver.wait_for_message(ch, lambda m: bool(m.get("embeds")), timeout=STEP)
        return post, self.quizbot.post_id_of(post)

    async def typed(self, message: Message, custom_id: str, who: Member, answer: str) -> Message:
        record = click(self.driver, message, custom_id, user=who).record
        response = await record.wait_response(STEP)
        assert int(response["type"]) == 9, response  # the modal
        return await reply_of(self.driver.submit_modal(record, {"answer": answer}))


def first_value(message: Message, custom_id: str) -> str:
    """The first option of the select `custom_id` on `message`."""

    def walk(components: list[Any]) -> str | None:
        for component in components:
            if component.get("custom_id") == custom_id:
                return str(component["options"][0]["value"])
            found = walk(component.get("components") or [])
            if found is not None:
                return found
        return None

    value = walk(message.get("components") or [])
    assert value is not None, custom_ids(message)
    return value


async def choice_task(s: Session) -> None:
    g = s.group
    post, pid = await s.post(MC, "mc")
    right, wrong = ANSWERS[MC][0], wrong_option(MC)
    answer = f"quiz:ans:{pid}:"
    await s.press(post, answer + right, g.alice)
    await s.press(post, answer + wrong, g.bob)
    await s.press(post, answer + wrong, g.bob)  # the same wrong answer again
    for option in [o for o in "ABCD" if o != right]:  # three misses: the solution
        await s.press(post, answer + option, g.carol)
    await s.press(post, answer + right, g.bob)
    await s.press(post, answer + wrong, g.alice)  # finished already
    await s.press(post, answer + right, g.carol)  # failed already
    await s.slash("hint", g.dave, "mc")
    await s.press(post, answer + right, g.dave)
    await s.press(post, f"quiz:hint:{pid}", g.erin)
    prompt = await s.slash("solution", g.erin, "mc", task=str(pid))
    await s.press(prompt, f"quiz:reveal:{pid}", g.erin)
    await s.press(post, answer + right, g.erin)  # opened the solution already
    await s.slash("solution", g.dave, "mc")
    await s.slash("solution", g.alice, "mc", task="no-such-task")


async def fill_picker(s: Session) -> None:
    g = s.group
    post, pid = await s.post(FILL, "fill")
    answers = ANSWERS[FILL]
    picker = await s.press(post, f"quiz:open:{pid}", g.alice)
    picker = await s.press(picker, find_custom_id(picker, f"quiz:submit:{pid}:"), g.alice)
    picks = [*answers[:-1], "B" if answers[-1] != "B" else "D"]
    for blank, option in enumerate(picks, 1):
        picker = await s.pick(
            picker, find_custom_id(picker, f"quiz:pick:{pid}:{blank}:"), [option], g.alice
        )
    picker = await s.press(picker, find_custom_id(picker, f"quiz:submit:{pid}:"), g.alice)
    last = len(answers)
    picker = await s.pick(
        picker, find_custom_id(picker, f"quiz:pick:{pid}:{last}:"), [answers[-1]], g.alice
    )
    await s.press(picker, find_custom_id(picker, f"quiz:submit:{pid}:"), g.alice)
    await s.press(post, f"quiz:open:{pid}", g.alice)  # finished already


async def typed_tasks(s: Session) -> None:
    g = s.group
    post, pid = await s.post(SHORT, "short")
    await s.typed(post, f"quiz:type:{pid}", g.bob, "   ")  # blank: no attempt
    await s.typed(post, f"quiz:type:{pid}", g.bob, WRONG_WORD)
    await s.typed(post, f"quiz:type:{pid}", g.bob, TASKS[SHORT]["answers"][0])
    post, pid = await s.post(NUMERICAL, "numerical")
    await s.typed(post, f"quiz:type:{pid}", g.carol, NOT_A_NUMBER)  # no number: no attempt
    await s.typed(post, f"quiz:type:{pid}", g.carol, WRONG_NUMBER)
    await s.typed(post, f"quiz:type:{pid}", g.carol, str(TASKS[NUMERICAL]["answers"][0]))


async def multi_and_matching(s: Session) -> None:
    g = s.group
    post, pid = await s.post(MULTI, "multi")
    right = sorted(TASKS[MULTI]["answers"])
    wrong = [o for o in "ABCDE" if o not in right][:2]
    await s.pick(post, f"quiz:multi:{pid}", wrong, g.dave)
    await s.pick(post, f"quiz:multi:{pid}", right, g.dave)

    post, pid = await s.post(MATCHING, "matching")
    picker = await s.press(post, f"quiz:open:{pid}", g.erin)
    picker = await s.press(picker, find_custom_id(picker, f"quiz:submit:{pid}:"), g.erin)
    for _ in range(len(TASKS[MATCHING]["pairs"])):  # every stem, whichever page it is on
        selects = [c for c in custom_ids(picker) if c.startswith(f"quiz:pick:{pid}:")]
        unset = [c for c in selects if c.split(":")[-1][int(c.split(":")[3]) - 1] == "-"]
        if unset:
            picker = await s.pick(picker, unset[0], [first_value(picker, unset[0])], g.erin)
            continue
        pages = [c for c in custom_ids(picker) if c.startswith(f"quiz:page:{pid}:")]
        if not pages:
            break
        picker = await s.press(picker, pages[-1], g.erin)
    await s.press(picker, find_custom_id(picker, f"quiz:submit:{pid}:"), g.erin)


async def standings_and_more(s: Session) -> None:
    g = s.group
    await s.slash("leaderboard", g.dave)
    await s.slash("leaderboard", g.alice, period="all")
    await s.slash("stats", g.alice, member=g.bob)
    await s.slash("stats", g.alice)
    await s.slash("topics", g.erin)
    await s.slash("help", g.erin)
    await s.slash("help", g.owner)
    practice = await s.slash("practice", g.bob)
    answer = next((c for c in custom_ids(practice) if c.startswith("quiz:")), None)
    if answer is not None and ":ans:" in answer:
        await s.press(practice, answer, g.bob)
    await s.slash("review", g.carol)
    await s.slash("reminders on", g.carol, hour=9)
    await s.slash("reminders off", g.carol)
    await s.slash("mydata show", g.bob)
    await s.slash("mydata delete", g.bob)  # asks first
    await s.slash("leaderboard", g.erin, period="week")
    await s.slash("insights overview", g.owner, post=True)  # public
    choices = s.driver.autocomplete(
        "quiz", user=g.alice, channel=g.channels["misc"], focused="task", value="git"
    )
    await choices.wait_response(STEP)


async def moderators(s: Session) -> None:
    g = s.group
    await s.slash("config language", g.owner, language=LOCALE)
    await s.slash("config show", g.owner)
    await s.slash("config cooldown", g.owner, seconds=30)
    await s.slash("schedule list", g.owner)
    await s.slash("bank list", g.owner)
    await s.slash("insights overview", g.owner)
    await s.slash("insights tasks", g.owner)
    await s.slash("schedule add", g.alice, channel=g.channels["misc"], time="09:00")  # refused
    await s.slash("config timezone", g.owner, zone=NO_ZONE)  # no such zone
    await s.slash("config timezone", g.owner, zone=ZONE)


async def mistakes(s: Session) -> None:
    """What members get wrong: each has its own kind reply."""
    g = s.group
    await s.slash("hint", g.bob, "misc")  # nothing posted here
    await s.slash("solution", g.bob, "misc")
    await s.slash("quiz", g.alice, "mc", task=MC)  # the channel's cooldown
    await s.slash("quiz", g.alice, "misc", topic=NO_TOPIC)
    await s.slash("stats", g.erin, member=g.owner)  # no answers yet
    await s.slash("mydata delete", g.owner)  # nothing kept


async def daily_quiz(s: Session) -> None:
    g = s.group
    daily, run = await daily_quiz_posted(
        s.quizbot, g.owner, g.channels["daily"], difficulty="easy", topic="MLOps"
    )
    await s.slash("schedule list", g.owner)
    [post] = s.quizbot.query("SELECT * FROM post WHERE id = ?", int(run["post_ids"]))
    task, pid = post["task_id"], int(post["id"])
    right, wrong = ANSWERS[task][0], wrong_option(task)
    await s.press(daily, f"quiz:ans:{pid}:{right}", g.alice)
    await s.press(daily, f"quiz:ans:{pid}:{wrong}", g.bob)
    await s.press(daily, f"quiz:ans:{pid}:{right}", g.bob)
    await s.press(daily, f"quiz:ans:{pid}:{wrong}", g.carol)
    await daily_quiz_closed(s.quizbot, daily, run)
    await s.press(daily, f"quiz:ans:{pid}:{right}", g.erin)  # closed
    await s.slash("hint", g.erin, "daily", task=str(pid))  # free once closed
    for command in ("schedule pause", "schedule resume", "schedule remove"):
        await s.slash(command, g.owner, id=1)
    await s.slash("schedule list", g.owner)


async def welcome(s: Session) -> None:
    """The bot joins a second French server: its public welcome."""
    driver = s.driver
    # discord.py counts a GUILD_CREATE before its READY as a server it was already in.
    await wait_for_log(s.quizbot, "logged in as")
    owner = driver.create_user("chef", locale=DISCORD_LOCALE)
    guild = driver.create_guild("Classe", owner=owner, with_bot=False)
    driver.set_guild_locale(guild, DISCORD_LOCALE)
    channel = driver.create_text_channel(guild, "general")
    driver.set_system_channel(guild, channel)
    driver.add_bot(guild)
    await driver.wait_for_message(channel, timeout=STEP)


async def reminder_dm(s: Session) -> None:
    """Carol's missed task is due for review at her reminder hour: the bot's DM."""
    g = s.group
    soon = datetime.now(UTC) + timedelta(seconds=15)  # her hour still, once the bot is up
    await s.slash("reminders on", g.carol, hour=soon.hour, timezone="UTC")
    await s.quizbot.kill(signal.SIGTERM)
    with s.quizbot.db() as conn:
        past = (soon - timedelta(days=1)).replace(tzinfo=None).strftime(DB_TIME)
        conn.execute("UPDATE review_card SET due = ? WHERE user_id = ?", (past, g.carol.id))
        conn.commit()
    await s.quizbot.start()

    def dm() -> Message | None:
        for channel in s.driver.world.channels.values():
            if channel.type == DM and g.carol.id in channel.recipient_ids and channel.messages:
                return next(iter(channel.messages.values()))
        return None

    await s.driver.world.changed.wait_for(dm, STEP * 2, "the reminder DM to carol")


def command_texts(commands: list[dict[str, Any]]) -> list[str]:
    """The descriptions and choice names of commands as a client shows them (their names
    stay English)."""
    texts: list[str] = []
    for command in commands:
        texts.append(str(command.get("description") or ""))
        texts += [str(choice["name"]) for choice in command.get("choices") or []]
        texts += command_texts(command.get("options") or [])
    return texts


def finder(group: Group) -> LeakFinder:
    # Each language's name is written in that language, in every locale (/config language).
    names = group.names() | {"Classe", "chef"} | set(DISPLAY_NAMES.values())
    return LeakFinder(bank_strings(CONTENT_DIR) | names | TYPED)


async def test_a_french_group_is_never_shown_english(
    driver: Driver, pseudo_bot: QuizBotRunner
) -> None:
    group = Group(driver)
    said = driver.record_what_the_bot_says()
    await pseudo_bot.sync(group.guild)
    await pseudo_bot.start()
    s = Session(pseudo_bot, group)
    for part in (
        moderators,
        choice_task,
        mistakes,
        fill_picker,
        typed_tasks,
        multi_and_matching,
        standings_and_more,
        welcome,
        daily_quiz,
        reminder_dm,
    ):
        await part(s)

    assert len(said) > 100  # the session made the bot say a lot, modals and choices too
    assert any("modal" in shown for shown in said) and any("choices" in shown for shown in said)
    shown = "\n".join(str(x) for x in said)
    assert "⟦" in shown  # and the pseudo catalog was the one it spoke from
    # The commands' descriptions, as the members' French clients show them.
    said.append({"content": "\n".join(command_texts(driver.commands_as_seen(group.alice.user)))})
    leaks: list[Leak] = finder(group).leaks_in(said)
    assert leaks == [], f"{len(leaks)} English texts reached a French member:\n" + "\n".join(
        str(leak) for leak in leaks
    )
