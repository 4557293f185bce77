"""Content changes end to end: the real bot watches its CONTENT_DIR (a copy in tmp_path).

- A task's answer, question and notes are edited while its post is open: the bot reloads, and
  the post keeps grading, explaining and showing the task as it was posted; a new post of the
  task uses the edit.
- A broken bank is written: the bot keeps serving the last good banks, and picks the content up
  once the bank is fixed.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member, Message

from .bot_helpers import (
    CONTENT_DIR,
    STEP,
    QuizBotRunner,
    click,
    is_ephemeral,
    reply_of,
    text_of,
)

pytestmark = pytest.mark.e2e

MC1 = "mlops-parallelism-mc-1"
MC5 = "mlops-parallelism-mc-5"
BANK = Path("mlops") / "data-vs-model-parallelism.yaml"
OLD_QUESTION = "What is the main difference between data parallelism and model parallelism"
OLD_NOTE = "Confusing which is split: data or model"


class World:
    def __init__(self, driver: Driver) -> None:
        self.guild: Guild = driver.create_guild("Study Group")
        self.channels: dict[str, Channel] = {
            name: driver.create_text_channel(self.guild, name) for name in ("one", "two", "three")
        }
        add = driver.add_member
        self.alice, self.bob, self.carol, self.dave = (
            add(self.guild, name) for name in ("alice", "bob", "carol", "dave")
        )


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


@pytest.fixture
def content(tmp_path: Path) -> Path:
    folder = tmp_path / "content"
    shutil.copytree(CONTENT_DIR / "mlops", folder / "mlops")
    return folder


@pytest_asyncio.fixture
async def quizbot(
    emulator: DiscordEmulator, tmp_path: Path, content: Path, world: World
) -> AsyncIterator[QuizBotRunner]:
    runner = QuizBotRunner(emulator, tmp_path, env={"CONTENT_DIR": str(content)})
    try:
        await runner.sync(world.guild)
        await runner.start()
        await wait_for_log(runner, f"watching {content} for content changes")
        yield runner
    finally:
        await runner.stop()
    assert runner.error_lines() == [], runner.logs()[-6000:]


def log_lines(runner: QuizBotRunner, text: str) -> list[str]:
    log = runner.current.log_path.read_text(errors="replace")
    return [line for line in log.splitlines() if text in line]


async def wait_for_log(
    runner: QuizBotRunner, text: str, count: int = 1, timeout: float = 2 * STEP  # noqa: ASYNC109
) -> list[str]:
    """The bot's log lines containing `text`, once there are `count` of them."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while len(found := log_lines(runner, text)) < count:
        if loop.time() > deadline:
            raise TimeoutError(f"no {count}x {text!r} in the log:\n{runner.logs()[-4000:]}")
        await asyncio.sleep(0.05)
    return found


def edit_bank(content: Path, old: str, new: str) -> None:
    file = content / BANK
    text = file.read_text()
    assert text.count(old) == 1, old
    file.write_text(text.replace(old, new))


async def post_task(
    quizbot: QuizBotRunner, channel: Channel, task: str, who: Member
) -> tuple[Message, int]:
    """`/quiz task:<task>` in `channel` (a channel of its own: /quiz has a cooldown)."""
    driver = quizbot.driver
    options = {"task": task}
    confirm = await reply_of(driver.slash("quiz", user=who, channel=channel, options=options))
    assert is_ephemeral(confirm) and "Posted" in confirm["content"], confirm
    post = await driver.wait_for_message(channel, lambda m: bool(m.get("embeds")), timeout=STEP)
    return post, quizbot.post_id_of(post)


async def redrawn(driver: Driver, post: Message) -> Message:
    """The post once the bot has edited it (its live counts)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + STEP
    while (message := driver.get_message(post["id"])) is None or not message.get(
        "edited_timestamp"
    ):
        assert loop.time() < deadline, "the post was never redrawn"
        await asyncio.sleep(0.05)
    return message


async def answer(driver: Driver, post: Message, post_id: int, option: str, who: Member) -> str:
    reply = await reply_of(click(driver, post, f"quiz:ans:{post_id}:{option}", user=who))
    assert is_ephemeral(reply), reply
    return text_of(reply)


async def test_an_open_post_keeps_grading_the_old_way_after_its_answer_is_edited(
    driver: Driver, world: World, quizbot: QuizBotRunner, content: Path
) -> None:
    post, post_id = await post_task(quizbot, world.channels["one"], MC1, world.alice)

    # The answer moves from A to D; the question and B's note are rewritten.
    hint = '\n    hint: "Data parallelism splits data;'
    edit_bank(content, "    answer: A" + hint, "    answer: D" + hint)
    edit_bank(content, OLD_QUESTION, "EDITED question")
    edit_bank(content, OLD_NOTE, "EDITED note")
    await wait_for_log(quizbot, "reloaded content: 10 tasks in 1 bank (+0, -0, 1 changed)")

    # The open post: A is still right, D wrong, and B still gets the note it was posted with.
    assert "✅ Right" in await answer(driver, post, post_id, "A", world.alice)
    assert "Not quite" in await answer(driver, post, post_id, "D", world.bob)
    wrong = await answer(driver, post, post_id, "B", world.carol)
    assert OLD_NOTE in wrong and "EDITED" not in wrong
    shown = await redrawn(driver, post)  # with the live counts, from its posted version
    assert OLD_QUESTION in text_of(shown) and "EDITED" not in text_of(shown)

    # A new post of the task is the edited one.
    fresh, fresh_id = await post_task(quizbot, world.channels["two"], MC1, world.alice)
    assert "EDITED question" in text_of(fresh)
    assert "Not quite" in await answer(driver, fresh, fresh_id, "A", world.alice)
    assert "✅ Right" in await answer(driver, fresh, fresh_id, "D", world.bob)

    # A restart still grades the old post the old way.
    await quizbot.restart()
    assert "✅ Right" in await answer(driver, post, post_id, "A", world.dave)
    assert quizbot.query("SELECT count(*) AS n FROM task_version")[0]["n"] == 2


async def test_a_broken_bank_keeps_the_last_good_one_until_it_is_fixed(
    driver: Driver, world: World, quizbot: QuizBotRunner, content: Path
) -> None:
    # A second bank that does not parse, and a task renamed in the first.
    (content / "mlops" / "broken.yaml").write_text("bank: Broken\ntasks: [\n")
    edit_bank(content, f"id: {MC5}", "id: mc-renamed")
    refused = (await wait_for_log(quizbot, "content not reloaded"))[0]
    assert "1 problem" in refused and "still serving the last good content (10 tasks)" in refused
    problem = (await wait_for_log(quizbot, "content problem:"))[0]
    assert " WARNING " in problem and "broken.yaml" in problem and "YAML does not parse" in problem

    # Still the last good banks: the old id posts, the new one is unknown.
    await post_task(quizbot, world.channels["one"], MC5, world.alice)
    options = {"task": "mc-renamed"}
    unknown = await reply_of(
        driver.slash("quiz", user=world.bob, channel=world.channels["two"], options=options)
    )
    assert "couldn't find a matching task" in text_of(unknown)
    topics = await reply_of(driver.slash("topics", user=world.carol, channel=world.channels["two"]))
    assert "10 tasks" in text_of(topics)

    # Fixed: the rename is picked up.
    (content / "mlops" / "broken.yaml").unlink()
    await wait_for_log(quizbot, "reloaded content: 10 tasks in 1 bank (+1, -1, 0 changed)")
    await post_task(quizbot, world.channels["three"], "mc-renamed", world.alice)


async def test_a_deleted_and_recreated_content_dir_is_watched_again(
    driver: Driver, world: World, quizbot: QuizBotRunner, content: Path, tmp_path: Path
) -> None:
    """As a deploy that replaces the folder does: the watch follows it, without a SIGHUP."""
    staged = tmp_path / "staged"
    shutil.copytree(content, staged)
    shutil.rmtree(content)
    gone = (await wait_for_log(quizbot, f"{content} is gone; watching for it to come back"))[0]
    assert " WARNING " in gone

    text = (staged / BANK).read_text()
    (staged / BANK).write_text(text.replace(OLD_QUESTION, "RECREATED question"))
    staged.rename(content)
    await wait_for_log(quizbot, f"{content} is back; watching it for content changes")
    await wait_for_log(quizbot, "reloaded content: 10 tasks in 1 bank (+0, -0, 1 changed)")
    post, _ = await post_task(quizbot, world.channels["one"], MC1, world.alice)
    assert "RECREATED question" in text_of(post)

    # Still watching the folder that came back.
    edit_bank(content, "RECREATED question", "EDITED AGAIN question")
    await wait_for_log(quizbot, "reloaded content: 10 tasks in 1 bank (+0, -0, 1 changed)", 2)
    again, _ = await post_task(quizbot, world.channels["two"], MC1, world.alice)
    assert "EDITED AGAIN question" in text_of(again)
