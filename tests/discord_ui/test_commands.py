"""Slash commands through the real command tree: /quiz, /hint, /solution and the standings."""

from __future__ import annotations

import io
import logging

import aiohttp
import discord
import pytest
from PIL import Image

from bot import stats_picture
from bot.discord_ui.client import QuizBot
from bot.discord_ui.replies import FORFEIT_LABEL
from bot.quiz.errors import StoreAction, StoreUnavailableError
from bot.quiz.tasks import Catalog
from bot.store import answers as answers_unit
from bot.store import posts
from tests.discord_ui.conftest import Driver
from tests.discord_ui.fakes import (
    ALICE,
    BOB,
    GUILD_ID,
    MOD,
    OTHER_CHANNEL_ID,
    POST_PERMISSIONS,
    FakeDiscordHTTP,
    Member,
    find_component,
    response,
)

# -- /quiz -------------------------------------------------------------------------------------


async def test_quiz_posts_and_confirms_privately(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", task="mc-split")
    deferred, *_ = fake.callbacks()
    assert deferred.callback_type == 5 and deferred.ephemeral  # acknowledged first
    (post,) = fake.posts()
    assert post.data["embeds"][0]["title"] == "Multiple choice · MLOps"
    assert post.data["allowed_mentions"] == {"parse": []}
    confirmation = fake.last_reply()
    assert confirmation.ephemeral
    assert "Posted" in confirmation.text
    posted = await driver.bot.service.posted(1)
    assert posted.post.message_id == fake.channel_posts[-1]


async def test_quiz_filters_by_topic_and_difficulty(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", topic="python", difficulty="hard")
    title = fake.posts()[-1].data["embeds"][0]["title"]
    assert title == "Fill in the blank · Python"


async def test_quiz_with_no_matching_task_says_so(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", topic="Astrology")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "couldn't find a matching task" in reply.text
    assert fake.posts() == []


async def test_quiz_names_the_missing_permission(driver: Driver, fake: FakeDiscordHTTP) -> None:
    perms = discord.Permissions(POST_PERMISSIONS.value)
    perms.embed_links = False
    await driver.command("quiz", task="mc-split", app_permissions=perms)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "**Embed Links**" in reply.text
    assert "Send Messages" not in reply.text
    assert fake.posts() == []


async def test_quiz_reports_a_refused_post(driver: Driver, fake: FakeDiscordHTTP) -> None:
    fake.fail["/channels/{channel_id}/messages"] = discord.Forbidden(
        response(403), {"code": 50013, "message": "Missing Permissions"}
    )
    await driver.command("quiz", task="mc-split")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "missing a permission" in reply.text
    # The refused post does not hold the channel's cooldown.
    del fake.fail["/channels/{channel_id}/messages"]
    await driver.command("quiz", task="mc-split")
    assert "Posted" in fake.last_reply().text


def _not_taken(kind: str) -> Exception:
    """What Discord (or the connection) answers a post it did not take."""
    match kind:
        case "channel-gone":
            return discord.NotFound(response(404), {"code": 10003, "message": "Unknown Channel"})
        case "thread-archived":
            return discord.HTTPException(response(400), {"code": 50083, "message": "Archived"})
        case "discord-5xx":
            return discord.DiscordServerError(response(503), {"code": 0, "message": "Down"})
    return aiohttp.ClientConnectionError("Connection reset by peer")


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("channel-gone", "no longer exists, or I can't see it"),
        ("thread-archived", "This thread is archived or locked"),
        ("discord-5xx", "Discord had a problem (error 503)"),
        ("no-connection", "couldn't reach Discord"),
    ],
)
async def test_quiz_explains_a_post_discord_did_not_take_and_logs_one_line(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture, kind: str, said: str
) -> None:
    fake.fail["/channels/{channel_id}/messages"] = _not_taken(kind)
    await driver.command("quiz", task="mc-split")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert said in reply.text
    assert "Something went wrong" not in reply.text
    (logged,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert logged.levelno == logging.WARNING and not logged.exc_info


async def test_a_refused_quiz_leaves_no_post_behind(driver: Driver, fake: FakeDiscordHTTP) -> None:
    """Nobody ever saw the refused post: /hint must not offer it as the latest here, nor may it
    hold its task back from the member's practice."""
    fake.fail["/channels/{channel_id}/messages"] = discord.Forbidden(
        response(403), {"code": 50013, "message": "Missing Permissions"}
    )
    await driver.command("quiz", task="mc-split")
    del fake.fail["/channels/{channel_id}/messages"]

    await driver.command("hint")
    assert "No quiz has been posted in this channel yet" in fake.last_reply().text
    await driver.command("practice", topic="MLOps", difficulty="easy")
    practice = fake.last_reply()
    assert practice.ephemeral
    assert "Multiple choice · MLOps" in practice.text
    assert "open on a public post" not in practice.text


async def test_a_quiz_discord_failed_on_its_side_keeps_its_post(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """After Discord's own error the message may be out (it can store it and still answer
    503), and its buttons need the post: only a refusal forgets it."""
    fake.fail["/channels/{channel_id}/messages"] = discord.DiscordServerError(
        response(503), {"code": 0, "message": "Down"}
    )
    await driver.command("quiz", task="mc-split")
    del fake.fail["/channels/{channel_id}/messages"]
    assert "Discord had a problem (error 503)" in fake.last_reply().text

    await driver.command("hint")
    assert "No quiz has been posted in this channel yet" not in fake.last_reply().text


async def test_a_quiz_posted_while_the_database_fails_to_record_its_message_says_posted(
    driver: Driver, fake: FakeDiscordHTTP, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord took the post, so it is out and answers: "nothing was saved, try again" would
    have the member post it twice."""

    def disk_full(conn: object, post_id: int, message_id: int) -> None:
        raise StoreUnavailableError(StoreAction.WRITE, "database or disk is full")

    with monkeypatch.context() as patched:
        patched.setattr(posts, "set_post_message", disk_full)
        await driver.command("quiz", task="mc-split")
    assert "Posted **" in fake.last_reply().text
    await driver.command("quiz", task="fill-one", member=BOB)
    assert "moments ago" in fake.last_reply().text  # the channel's cooldown holds
    message = fake.messages[fake.channel_posts[-1]]
    await driver.click(message, r"quiz:ans:\d+:B", member=BOB)
    assert "✅" in fake.last_reply().text
    assert len(fake.posts()) == 1


async def test_quiz_cooldown_is_per_channel(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", task="mc-split")
    await driver.command("quiz", task="mc-split", member=BOB)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "moments ago" in reply.text
    assert len(fake.posts()) == 1
    await driver.command("quiz", task="mc-split", member=BOB, channel_id=OTHER_CHANNEL_ID)
    assert len(fake.posts()) == 2


async def test_quiz_cooldown_follows_guild_config(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await bot.service.update_guild_config(800000000000000001, cooldown_seconds=0)
    await driver.command("quiz", task="mc-split")
    await driver.command("quiz", task="fill-one")
    assert len(fake.posts()) == 2


async def test_mods_only_policy(driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot) -> None:
    await bot.service.update_guild_config(800000000000000001, post_policy="mods")
    await driver.command("quiz", task="mc-split", member=ALICE)
    refused = fake.last_reply()
    assert refused.ephemeral
    assert "Only moderators" in refused.text
    assert fake.posts() == []
    await driver.command("quiz", task="mc-split", member=MOD)
    assert len(fake.posts()) == 1


async def test_mod_role_counts_as_moderator(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await bot.service.update_guild_config(800000000000000001, post_policy="mods", mod_role_id=555)
    # Roles resolve through the guild cache, which the gateway fills on GUILD_CREATE.
    bot._connection._add_guild_from_data(
        {  # type: ignore[arg-type]
            "id": "800000000000000001",
            "name": "Study group",
            "owner_id": "1",
            "features": [],
            "emojis": [],
            "stickers": [],
            "roles": [_role(800000000000000001, "@everyone"), _role(555, "tutors")],
        }
    )
    tutor = Member(444, "tutor", roles=(555,))
    await driver.command("quiz", task="mc-split", member=tutor)
    assert len(fake.posts()) == 1


async def test_quiz_in_a_dm_is_refused(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("quiz", task="mc-split", guild=False)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "only works in a server" in reply.text


async def test_topic_and_task_autocomplete(driver: Driver) -> None:
    topics = await driver.autocomplete("quiz", "topic", topic="ml")
    assert [c["value"] for c in topics] == ["MLOps"]
    tasks = await driver.autocomplete("quiz", "task", topic="Python", task="")
    assert [c["value"] for c in tasks] == ["fill-two", "fill-five"]
    typed = await driver.autocomplete("quiz", "task", task="FIVE")
    assert [c["value"] for c in typed] == ["fill-five"]
    assert all(len(c["name"]) <= 100 for c in tasks)


# -- /hint and /solution -----------------------------------------------------------------------


async def test_hint_defaults_to_the_latest_post_here(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await driver.post("mc-split")
    await driver.post("fill-one")
    await driver.command("hint")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "device-moving method" in reply.text
    assert (await bot.service.run_read(answers_unit.read_progress, 2, ALICE.id)).hint_seen
    assert not (await bot.service.run_read(answers_unit.read_progress, 1, ALICE.id)).hint_seen


async def test_hint_and_solution_autocomplete_posts_of_this_server(
    driver: Driver, bot: QuizBot
) -> None:
    await driver.post("mc-split")
    await driver.post("fill-one")
    await bot.service.create_post(
        1, 2, bot.service.catalog.get_or_raise("fill-two"), 3
    )  # another server
    choices = await driver.autocomplete("hint", "task", task="")
    assert [c["value"] for c in choices] == ["2", "1"]
    assert "fill-one" in choices[0]["name"]
    assert await driver.autocomplete("solution", "task", task="mc") == [choices[1]]


async def test_hint_for_a_chosen_post(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.post("mc-split")
    await driver.post("fill-one")
    await driver.command("hint", task="1")
    assert "what gets copied" in fake.last_reply().text
    await driver.command("hint", task="mc-split")  # typed, not picked from the list
    assert "what gets copied" in fake.last_reply().text


async def test_hint_with_nothing_posted(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("hint")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "No quiz has been posted in this channel yet" in reply.text


async def test_solution_asks_before_forfeiting(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    post = await driver.post("mc-split")
    command = await driver.command("solution")
    prompt = fake.last_reply()
    assert prompt.ephemeral
    assert "haven't finished" in prompt.text
    assert "Data parallelism copies" not in prompt.text
    button = find_component(fake.response_to(command), r"quiz:reveal:1")
    assert button["label"] == FORFEIT_LABEL
    assert not (await bot.service.run_read(answers_unit.read_progress, 1, ALICE.id)).finished

    await driver.click(fake.response_to(command), r"quiz:reveal:\d+")
    shown = fake.last_reply()
    assert shown.callback_type == 7
    assert "Data parallelism copies the model" in shown.text
    assert shown.data["components"] == []
    assert (await bot.service.run_read(answers_unit.read_progress, 1, ALICE.id)).forfeited

    await driver.click(post, r"quiz:ans:\d+:B")
    assert "opened the solution" in fake.last_reply().text


async def test_solution_after_finishing_needs_no_confirmation(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B")
    await driver.command("solution", task="1")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "Data parallelism copies the model" in reply.text
    assert reply.custom_ids() == []


# -- standings ---------------------------------------------------------------------------------


async def test_leaderboard_shows_top_ten_and_my_rank(driver: Driver, fake: FakeDiscordHTTP) -> None:
    post = await driver.post("mc-split")
    for n in range(11):
        await driver.click(post, r"quiz:ans:\d+:B", member=Member(1000 + n, f"student{n}"))
    await driver.click(post, r"quiz:ans:\d+:A", member=ALICE)
    await driver.click(post, r"quiz:ans:\d+:B", member=ALICE)

    await driver.command("leaderboard", period="all")
    board = fake.last_reply()
    assert not board.ephemeral  # the board is public
    text = board.text
    assert "Leaderboard · all time" in text
    assert text.count("Student") == 10
    assert "**12.** you · **7** pts" in text


async def test_the_leaderboard_says_how_ties_are_ranked_and_whose_days_and_weeks_count(
    bot: QuizBot, driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """Two members with the same points and solves: the board must say why one is above."""
    await bot.service.update_guild_config(GUILD_ID, timezone="America/New_York")
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=BOB)
    await driver.click(post, r"quiz:ans:\d+:B", member=ALICE)

    await driver.command("leaderboard", period="week")
    (embed,) = fake.last_reply().data["embeds"]
    footer = embed["footer"]["text"]
    assert "Ties: more solved first, then whoever reached the score first" in footer
    assert "Weeks start on Monday 00:00, America/New_York time" in footer

    await driver.command("leaderboard", period="today")
    (embed,) = fake.last_reply().data["embeds"]
    assert "Days start at 00:00, America/New_York time" in embed["footer"]["text"]

    await driver.command("leaderboard", period="all")
    (embed,) = fake.last_reply().data["embeds"]
    assert "America/New_York" not in embed["footer"]["text"]


async def test_odd_names_cannot_reorder_or_hide_a_leaderboard_line(
    driver: Driver, fake: FakeDiscordHTTP
) -> None:
    """A right-to-left override in a name would show the rest of its line backwards
    ("devlos 1 · stp **03**" for 30 pts); a name of invisible characters shows nobody."""
    flipper = Member(501, "\u202eeve")
    blank = Member(502, "\u3164\u200b")
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=flipper)
    await driver.click(post, r"quiz:ans:\d+:B", member=blank)

    await driver.command("leaderboard", period="all")
    first, second, *_ = fake.last_reply().data["embeds"][0]["description"].splitlines()
    assert first == "🥇 \u2068Eve\u2069 · **10** pts · 1 solved"
    assert second == "🥈 member 502 · **10** pts · 1 solved"


async def test_leaderboard_when_empty(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("leaderboard")
    assert "No points yet" in fake.last_reply().text


async def test_stats_for_me_and_for_a_member(driver: Driver, fake: FakeDiscordHTTP) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=BOB)
    await driver.command("stats", member=BOB)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "Stats · Bob" in reply.text
    assert "1 of 1 tried" in reply.text
    assert "100%" in reply.text

    await driver.command("stats")
    assert "No quizzes tried yet" in fake.last_reply().text
    assert fake.last_reply().uploads == []  # nothing to draw


async def test_stats_attach_a_picture_of_the_figures(driver: Driver, fake: FakeDiscordHTTP) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:A", member=BOB)
    await driver.click(post, r"quiz:ans:\d+:B", member=BOB)
    await driver.command("stats", member=BOB)
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "1 of 1 tried" in reply.text  # the text stays
    (upload,) = reply.uploads
    assert upload.filename == "stats.png"
    image = Image.open(io.BytesIO(upload.data))
    assert (image.format, image.width) == ("PNG", 1040)
    (embed,) = reply.data["embeds"]
    assert embed["image"]["url"] == "attachment://stats.png"
    (attachment,) = reply.data["attachments"]
    assert attachment["filename"] == "stats.png"
    assert "2 answers on 1 day." in attachment["description"]  # alt text
    # Solved after a miss: not on the first try, and due for review at once.
    assert "MLOps: 0 of 1 on the first try, 1 due for review." in attachment["description"]


@pytest.mark.parametrize("step", ["render", "describe"])
async def test_stats_still_answer_in_text_when_the_picture_fails(
    driver: Driver,
    fake: FakeDiscordHTTP,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    step: str,
) -> None:
    def broken(progress: object) -> bytes:
        raise ValueError("a bug in the drawing")

    monkeypatch.setattr(stats_picture, step, broken)
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=BOB)
    await driver.command("stats", member=BOB)
    reply = fake.last_reply()
    assert "1 of 1 tried" in reply.text
    assert reply.uploads == []
    assert "image" not in reply.data["embeds"][0]
    assert "could not draw the stats picture" in caplog.text


async def test_stats_still_answer_in_text_when_discord_refuses_the_picture(
    driver: Driver, fake: FakeDiscordHTTP, caplog: pytest.LogCaptureFixture
) -> None:
    post = await driver.post("mc-split")
    await driver.click(post, r"quiz:ans:\d+:B", member=BOB)
    callback = "/interactions/{webhook_id}/{webhook_token}/callback"

    def once() -> discord.HTTPException:
        # As Discord answers an attachment it will not take (a description over 1,024
        # characters, say): the whole message is refused.
        del fake.fail[callback]
        return discord.HTTPException(response(400), {"code": 50035, "message": "Invalid Form Body"})

    fake.fail[callback] = once  # type: ignore[assignment]
    await driver.command("stats", member=BOB)
    refused, reply = fake.replies()[-2:]
    assert refused.uploads  # the first try had the picture
    assert "1 of 1 tried" in reply.text  # the second, the figures alone
    assert reply.ephemeral
    assert reply.uploads == []
    assert "image" not in reply.data["embeds"][0]
    assert "refused the stats picture" in caplog.text


async def test_topics_lists_banks_with_counts(driver: Driver, fake: FakeDiscordHTTP) -> None:
    await driver.command("topics")
    reply = fake.last_reply()
    assert reply.ephemeral
    assert "**MLOps**" in reply.text and "**Python**" in reply.text
    assert "1 easy · 1 medium" in reply.text
    assert "2 hard" in reply.text
    assert "4 tasks" in reply.text


async def test_topics_with_no_banks_loaded_says_so(
    driver: Driver, fake: FakeDiscordHTTP, bot: QuizBot
) -> None:
    await bot.service.use_catalog(Catalog.of([]))  # CONTENT_DIR empty, no server uploads
    await driver.command("topics")
    reply = fake.last_reply()
    assert reply.ephemeral
    (embed,) = reply.data["embeds"]
    assert embed["description"] == "No task banks are loaded."
    assert "footer" not in embed  # no "0 tasks · /quiz topic:<name> to post one"


def _role(role_id: int, name: str) -> dict[str, object]:
    return {
        "id": str(role_id),
        "name": name,
        "color": 0,
        "hoist": False,
        "position": 0,
        "permissions": "0",
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def test_threads_need_send_messages_in_threads() -> None:
    from bot.discord_ui.error_texts import missing_post_permissions

    perms = discord.Permissions(POST_PERMISSIONS.value)
    assert missing_post_permissions(perms) == []
    assert missing_post_permissions(perms, thread=True) == ["Send Messages in Threads"]
    perms.send_messages_in_threads = True
    perms.send_messages = False
    assert missing_post_permissions(perms, thread=True) == []
    assert missing_post_permissions(perms) == ["Send Messages"]
