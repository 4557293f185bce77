"""Drive the real bot through what a member sees first, on the emulator, and keep the messages.

The scenes are played in one run of `quizbot run` against fakediscord, as the end-to-end tests
do (their runner and helpers are reused, so the pictures follow the tests' idea of the bot).
"""

from __future__ import annotations

import asyncio
import copy
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakediscord import DiscordEmulator, Driver, Member, Message

from tests.e2e.bot_helpers import ANSWERS, QuizBotRunner, click, find_custom_id, reply_of, select

# From the MLOps seed bank, which stays word for word: the pictures change only with the bot.
CHOICE_TASK = "mlops-parallelism-mc-1"
FILL_TASK = "mlops-parallelism-fill-5"  # three blanks
STEP = 20.0


@dataclass
class Shown:
    """One message as the member sees it; `used` names the slash command it answers."""

    message: Message
    used: str | None = None


@dataclass
class Scene:
    """What one picture shows: messages in a channel, oldest first."""

    name: str
    channel: str
    messages: list[Shown]


@dataclass
class Capture:
    scenes: list[Scene]
    member: str
    bot: str
    # Files the messages carry (the /stats picture), by attachment id.
    files: dict[str, bytes] = field(default_factory=dict)


async def capture() -> Capture:
    """Start the emulator and the bot, play the scenes, stop both."""
    emulator = DiscordEmulator()
    await emulator.start()
    try:
        with tempfile.TemporaryDirectory(prefix="quizbot-pictures-") as workdir:
            runner = QuizBotRunner(emulator, Path(workdir))
            try:
                return await _play(emulator.driver, runner)
            finally:
                await runner.stop()
    finally:
        await emulator.stop()


async def _play(driver: Driver, runner: QuizBotRunner) -> Capture:
    guild = driver.create_guild("Study Group")
    # One channel per post: /quiz has a per-channel cooldown.
    quiz = driver.create_text_channel(guild, "quiz")
    fill = driver.create_text_channel(guild, "practice")
    ada = driver.add_member(guild, driver.create_user("ada", global_name="Ada"))
    await runner.sync(guild)
    await runner.start()

    post, post_id = await _post(driver, runner, ada, quiz, CHOICE_TASK)
    right = ANSWERS[CHOICE_TASK][0]
    wrong = next(o for o in "ABCD" if o != right)
    missed = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{wrong}", user=ada), STEP)
    solved = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{right}", user=ada), STEP)

    fill_post, fill_id = await _post(driver, runner, ada, fill, FILL_TASK)
    picker = await reply_of(click(driver, fill_post, f"quiz:open:{fill_id}", user=ada), STEP)
    *first, last = enumerate(ANSWERS[FILL_TASK], 1)
    for blank, option in first:
        picker = await _pick(driver, picker, ada, fill_id, blank, option)
    # The picture: every blank picked but the last, whose menu is still to open.
    picker_shown = _copy(picker)
    picker = await _pick(driver, picker, ada, fill_id, *last)
    submit = find_custom_id(picker, f"quiz:submit:{fill_id}:")
    await reply_of(click(driver, picker, submit, user=ada), STEP)  # solved: /stats counts it

    stats = await reply_of(driver.slash("stats", user=ada, channel=quiz), STEP)
    files = {str(a["id"]): driver.attachment_bytes(a) for a in stats.get("attachments") or []}
    errors = runner.error_lines()
    if errors:
        raise RuntimeError("the bot logged errors:\n" + "\n".join(errors))
    return Capture(
        scenes=[
            Scene("task-post", quiz.name, [Shown(post)]),
            Scene("feedback", quiz.name, [Shown(_copy(missed)), Shown(_copy(solved))]),
            Scene("picker", fill.name, [Shown(picker_shown)]),
            Scene("stats", quiz.name, [Shown(_copy(stats), used="stats")]),
        ],
        member=_name(ada),
        bot=driver.bot_user.username,
        files=files,
    )


async def _post(
    driver: Driver, runner: QuizBotRunner, who: Member, channel: Any, task: str
) -> tuple[Message, int]:
    await reply_of(driver.slash("quiz", user=who, channel=channel, options={"task": task}), STEP)
    post = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
    return _copy(post), runner.post_id_of(post)


async def _pick(
    driver: Driver, picker: Message, who: Member, post_id: int, blank: int, option: str
) -> Message:
    custom_id = find_custom_id(picker, f"quiz:pick:{post_id}:{blank}:")
    return await reply_of(select(driver, picker, custom_id, [option], user=who), STEP)


def _copy(message: Message) -> Message:
    """A snapshot: the emulator edits its live message dicts in place."""
    return copy.deepcopy(message)


def _name(member: Member) -> str:
    return member.nick or member.user.global_name or member.user.username


def run() -> Capture:
    return asyncio.run(capture())
