"""The emulator itself, exercised by real discord.py clients (a subprocess and in-process)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from fakediscord import Channel, DiscordEmulator, Driver, Guild, Member
from fakediscord import permissions as perm
from fakediscord.gateway import Session

from .conftest import SpawnBot

pytestmark = pytest.mark.e2e

# Upper bound for any single test step; a healthy run needs a fraction of this.
STEP = 10.0

BUTTON_ROW = [
    {
        "type": 1,
        "components": [{"type": 2, "style": 1, "label": "Answer", "custom_id": "answer"}],
    }
]


class World:
    """A small guild: owner, a student, a moderator role, two text channels."""

    def __init__(self, driver: Driver) -> None:
        self.guild: Guild = driver.create_guild("Study Group")
        self.general: Channel = driver.create_text_channel(self.guild, "general")
        self.quiz: Channel = driver.create_text_channel(self.guild, "quiz")
        self.mod_role = driver.create_role(
            self.guild, "Moderator", permissions=perm.MANAGE_MESSAGES
        )
        self.alice: Member = driver.add_member(self.guild, "alice")
        self.bob: Member = driver.add_member(self.guild, "bob", roles=[self.mod_role])


@pytest.fixture
def world(driver: Driver) -> World:
    return World(driver)


# ---- floor bot in a subprocess ---------------------------------------------------------------


async def test_floor_bot_answers_button_click_ephemerally(
    driver: Driver, world: World, spawn_bot: SpawnBot
) -> None:
    panel = driver.add_bot_message(world.general, "Ready?", components=BUTTON_ROW)
    bot = spawn_bot("fakediscord.floor_bot")
    await bot.wait_until_ready(driver, timeout=20)

    click = driver.click_button(panel, "answer", user=world.alice)
    response = await click.wait_response(timeout=STEP)

    assert response["type"] == 4
    assert response["data"]["content"] == "ok"
    assert response["data"]["flags"] == 64
    assert click.latency is not None and 0 < click.latency < 3
    [reply] = driver.ephemeral_messages(world.alice)
    assert reply["content"] == "ok" and reply["flags"] & 64
    assert reply["interaction_metadata"]["interacted_message_id"] == panel["id"]
    assert driver.ephemeral_messages(world.bob) == []
    assert driver.channel_messages(world.general) == [panel]  # ephemeral stays out of the channel


async def test_floor_bot_resumes_after_reconnect_and_gets_missed_events(
    driver: Driver, world: World, spawn_bot: SpawnBot, emulator: DiscordEmulator
) -> None:
    panel = driver.add_bot_message(world.general, "Ready?", components=BUTTON_ROW)
    bot = spawn_bot()
    await bot.wait_until_ready(driver, timeout=20)

    assert driver.request_reconnect() == 1
    # Dispatched while the bot is reconnecting: must be replayed after RESUME.
    missed = driver.click_button(panel, "answer", user=world.alice)
    await driver.wait_for_resume(1, timeout=STEP)
    assert (await missed.wait_response(timeout=STEP))["data"]["content"] == "ok"

    after = driver.click_button(panel, "answer", user=world.bob)
    assert (await after.wait_response(timeout=STEP))["data"]["content"] == "ok"
    assert driver.identify_count == 1
    assert driver.resume_count == 1
    assert emulator.gateway.connect_paths == ["/", "/resume"]


# ---- an in-process discord.py client with app commands ------------------------------------------


def plain_client() -> discord.Client:
    # A short guild_ready_timeout makes on_ready (and wait_until_ready) fire ~0.1 s after
    # the last GUILD_CREATE instead of discord.py's default 2 s.
    return discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.1)


class TutorClient(discord.Client):
    """A tiny bot exercising the routes the real bot will use."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(intents=discord.Intents.default(), guild_ready_timeout=0.1)
        self.tree = app_commands.CommandTree(self)
        self.home = discord.Object(guild_id)
        self.seen: list[discord.Interaction] = []
        self._register()

    async def setup_hook(self) -> None:
        self.tree.copy_global_to(guild=self.home)
        await self.tree.sync(guild=self.home)

    def _register(self) -> None:
        tree = self.tree

        @tree.command(description="Echo with typed options")
        @app_commands.describe(text="what to say")
        async def echo(
            interaction: discord.Interaction,
            text: str,
            times: app_commands.Range[int, 1, 5] = 1,
            who: discord.Member | None = None,
            where: discord.TextChannel | None = None,
        ) -> None:
            self.seen.append(interaction)
            parts = [text * times, who.name if who else "-", where.name if where else "-"]
            perms = interaction.app_permissions
            parts.append(
                f"send={perms.send_messages} admin={interaction.permissions.administrator}"
            )
            await interaction.response.send_message(" ".join(parts))

        @tree.command(description="Defer, think, then follow up")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send("done")
            await interaction.followup.send("and one more", ephemeral=True)

        @tree.command(description="Post a panel with a button and a select")
        async def panel(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Pick one", view=PanelView())

        @tree.command(description="Ask for feedback in a modal")
        async def feedback(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(FeedbackModal())

        @tree.command(description="Reply, read the reply back, then delete it")
        async def fleeting(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("here for a moment")
            original = await interaction.original_response()
            await interaction.edit_original_response(content=f"{original.content}, edited")
            await interaction.delete_original_response()

        quiz = app_commands.Group(name="quiz", description="Quiz commands")
        admin = app_commands.Group(name="admin", description="Admin only", parent=quiz)

        @quiz.command(description="Start a quiz")
        async def start(interaction: discord.Interaction, topic: str) -> None:
            await interaction.response.send_message(f"starting {topic}", ephemeral=True)

        @start.autocomplete("topic")
        async def topic_choices(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            topics = ["algebra", "algorithms", "biology"]
            return [app_commands.Choice(name=t, value=t) for t in topics if t.startswith(current)]

        @admin.command(description="Reset the scores")
        async def reset(interaction: discord.Interaction, confirm: bool) -> None:
            await interaction.response.send_message(f"reset confirm={confirm}", ephemeral=True)

        tree.add_command(quiz)


class PanelView(discord.ui.View):
    @discord.ui.button(label="Hint", custom_id="hint")
    async def hint(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content="Hint: think", view=None)

    @discord.ui.button(label="Reveal", custom_id="reveal")
    async def reveal(
        self, interaction: discord.Interaction, button: discord.ui.Button[Any]
    ) -> None:
        await interaction.response.defer()  # type 6 for a component: edit the panel later
        await interaction.edit_original_response(content="Answer: 42")

    @discord.ui.select(
        custom_id="level",
        options=[discord.SelectOption(label=x, value=x) for x in ("easy", "hard")],
    )
    async def level(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"level={select.values[0]}", ephemeral=True)


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    comment: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Comment", custom_id="comment")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"thanks: {self.comment.value}", ephemeral=True)


StartClient = Callable[[discord.Client], Awaitable[discord.Client]]
TUTOR_COMMANDS = {"echo", "slow", "panel", "feedback", "fleeting", "quiz"}


@pytest_asyncio.fixture
async def start_client(discord_pointed_at_emulator: DiscordEmulator) -> AsyncIterator[StartClient]:
    """Run clients in this event loop; close them (gateway code 1000) on teardown."""
    token = discord_pointed_at_emulator.token
    clients: list[discord.Client] = []
    tasks: list[asyncio.Task[None]] = []

    async def start(client: discord.Client) -> discord.Client:
        clients.append(client)
        await client.login(token)
        tasks.append(asyncio.create_task(client.connect()))
        await asyncio.wait_for(client.wait_until_ready(), STEP)
        return client

    try:
        yield start
    finally:
        for client in clients:
            await client.close()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, STEP)


@pytest_asyncio.fixture
async def tutor(driver: Driver, world: World, start_client: StartClient) -> TutorClient:
    client = TutorClient(world.guild.id)
    await start_client(client)
    await driver.wait_for_commands(world.guild, names=TUTOR_COMMANDS)
    return client


async def test_app_command_sync_stores_commands(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    stored = {c["name"]: c for c in driver.commands(world.guild)}
    assert set(stored) == TUTOR_COMMANDS
    assert driver.commands() == []  # synced to the guild only
    echo_options = {o["name"]: o for o in stored["echo"]["options"]}
    assert echo_options["text"]["type"] == 3 and echo_options["text"]["required"] is True
    assert echo_options["times"]["min_value"] == 1 and echo_options["times"]["max_value"] == 5
    assert echo_options["who"]["type"] == 6 and echo_options["where"]["type"] == 7

    fetched = await tutor.tree.fetch_commands(guild=tutor.home)
    assert {c.name: c.id for c in fetched} == {n: int(c["id"]) for n, c in stored.items()}
    # A second sync keeps the ids, as Discord does for unchanged names.
    await tutor.tree.sync(guild=tutor.home)
    assert {c["name"]: c["id"] for c in driver.commands(world.guild)} == {
        n: c["id"] for n, c in stored.items()
    }


async def test_slash_command_with_options_and_resolved_entities(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    call = driver.slash(
        "echo",
        user=world.alice,
        channel=world.general,
        options={"text": "hi", "times": 2, "who": world.bob, "where": world.quiz},
    )
    response = await call.wait_response(timeout=STEP)

    assert response["type"] == 4
    assert response["data"]["content"] == "hihi bob quiz send=True admin=False"
    [posted] = driver.channel_messages(world.general)
    assert posted["content"].startswith("hihi") and posted["type"] == 20
    assert posted["interaction_metadata"]["user"]["id"] == str(world.alice.id)
    interaction = tutor.seen[-1]
    assert interaction.id == call.id and interaction.guild_id == world.guild.id

    owner = world.guild.members[world.guild.owner_id]
    call = driver.slash("echo", user=owner, channel=world.general, options={"text": "x"})
    assert (await call.wait_response(timeout=STEP))["data"]["content"].endswith("admin=True")

    with pytest.raises(ValueError, match="required option 'text'"):
        driver.slash("echo", user=world.alice, channel=world.general)
    with pytest.raises(ValueError, match="outside"):
        driver.slash(
            "echo", user=world.alice, channel=world.general, options={"text": "a", "times": 9}
        )


async def test_subcommand_group_and_autocomplete(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    reset = driver.slash(
        "quiz admin reset", user=world.bob, channel=world.quiz, options={"confirm": True}
    )
    assert (await reset.wait_response(timeout=STEP))["data"]["content"] == "reset confirm=True"

    typing = driver.autocomplete(
        "quiz start", user=world.alice, channel=world.quiz, focused="topic", value="alg"
    )
    response = await typing.wait_response(timeout=STEP)
    assert response["type"] == 8
    assert [c["value"] for c in response["data"]["choices"]] == ["algebra", "algorithms"]

    start = driver.slash(
        "quiz start", user=world.alice, channel=world.quiz, options={"topic": "algebra"}
    )
    answer = await start.wait_response(timeout=STEP)
    assert answer["data"] == {"tts": False, "content": "starting algebra", "flags": 64}
    assert driver.ephemeral_messages(world.alice)[-1]["content"] == "starting algebra"
    assert driver.channel_messages(world.quiz) == []


async def test_defer_then_followups(driver: Driver, world: World, tutor: TutorClient) -> None:
    call = driver.slash("slow", user=world.alice, channel=world.general)
    assert (await call.wait_response(timeout=STEP))["type"] == 5
    first, second = await call.wait_followups(2, timeout=STEP)

    # The first follow-up fills in the "thinking" message and inherits its ephemerality.
    assert call.original_message is first
    assert first["content"] == "done" and first["flags"] & 64 and not first["flags"] & 128
    assert second["content"] == "and one more" and second["id"] != first["id"]
    assert [m["content"] for m in driver.ephemeral_messages(world.alice)] == [
        "done",
        "and one more",
    ]


async def test_view_button_updates_message_and_select_replies(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    call = driver.slash("panel", user=world.alice, channel=world.general)
    await call.wait_response(timeout=STEP)
    panel = call.original_message
    assert panel is not None and not driver.is_ephemeral(panel)

    choose = driver.select(panel, "level", ["hard"], user=world.bob)
    assert (await choose.wait_response(timeout=STEP))["data"]["content"] == "level=hard"
    with pytest.raises(ValueError, match="not options"):
        driver.select(panel, "level", ["impossible"], user=world.bob)

    hint = driver.click_button(panel, "hint", user=world.alice)
    assert (await hint.wait_response(timeout=STEP))["type"] == 7
    assert panel["content"] == "Hint: think" and panel["components"] == []
    assert panel["edited_timestamp"] is not None


async def test_deferred_update_then_edit_original(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    call = driver.slash("panel", user=world.alice, channel=world.general)
    await call.wait_response(timeout=STEP)
    panel = call.original_message
    assert panel is not None

    reveal = driver.click_button(panel, "reveal", user=world.bob)
    assert (await reveal.wait_response(timeout=STEP))["type"] == 6
    edited = await driver.wait_for_edit(panel, lambda m: m["content"] == "Answer: 42", timeout=STEP)
    assert edited is panel and reveal.original_message is panel


async def test_modal_roundtrip(driver: Driver, world: World, tutor: TutorClient) -> None:
    opened = driver.slash("feedback", user=world.alice, channel=world.general)
    modal = await opened.wait_response(timeout=STEP)
    assert modal["type"] == 9 and modal["data"]["custom_id"]

    submitted = driver.submit_modal(opened, {"comment": "more algebra please"})
    answer = await submitted.wait_response(timeout=STEP)
    assert answer["data"]["content"] == "thanks: more algebra please"
    with pytest.raises(ValueError, match="no inputs"):
        driver.submit_modal(opened, {"comment": "ok", "rating": "5"})


async def test_original_response_get_edit_delete(
    driver: Driver, world: World, tutor: TutorClient
) -> None:
    call = driver.slash("fleeting", user=world.alice, channel=world.general)
    await call.wait_response(timeout=STEP)
    original = await call.wait_original(lambda m: driver.get_message(m["id"]) is None, timeout=STEP)
    assert original["content"] == "here for a moment, edited"
    assert driver.channel_messages(world.general) == []


async def test_message_post_edit_fetch_history_and_thread(
    driver: Driver, world: World, start_client: StartClient
) -> None:
    client = await start_client(plain_client())
    channel = client.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)

    first = await channel.send("first", embed=discord.Embed(title="Score", description="10"))
    second = await channel.send("second", file=discord.File(io.BytesIO(b"a,b\n1,2\n"), "s.csv"))
    await first.edit(content="first (edited)")
    fetched = await channel.fetch_message(first.id)
    history = [m.content async for m in channel.history(limit=10)]

    assert fetched.content == "first (edited)" and fetched.edited_at is not None
    assert fetched.embeds[0].title == "Score"
    assert history == ["second", "first (edited)"]
    assert await second.attachments[0].read() == b"a,b\n1,2\n"
    stored = driver.channel_messages(world.general)
    assert [m["content"] for m in stored] == ["first (edited)", "second"]
    assert driver.attachment_bytes(stored[1]["attachments"][0]) == b"a,b\n1,2\n"

    thread = await first.create_thread(name="discussion")
    await thread.send("in the thread")
    thread_channel = world.guild.channels[thread.id]
    assert thread.id == first.id and thread_channel.parent_id == world.general.id
    msg = await driver.wait_for_message(thread_channel, lambda m: "thread" in m["content"])
    assert msg["content"] == "in the thread"


async def test_denied_and_deleted_channels_surface_as_client_errors(
    driver: Driver, world: World, start_client: StartClient
) -> None:
    driver.deny_bot(world.quiz, perm.SEND_MESSAGES)
    driver.deny_bot(world.general, perm.EMBED_LINKS)
    doomed = driver.create_text_channel(world.guild, "doomed")
    client = await start_client(plain_client())
    guild = client.get_guild(world.guild.id)
    assert guild is not None
    quiz = guild.get_channel(world.quiz.id)
    general = guild.get_channel(world.general.id)
    assert isinstance(quiz, discord.TextChannel) and isinstance(general, discord.TextChannel)

    # The overwrites arrived in GUILD_CREATE, so the client's own permission math agrees.
    assert not quiz.permissions_for(guild.me).send_messages
    assert general.permissions_for(guild.me).send_messages
    assert not general.permissions_for(guild.me).embed_links

    with pytest.raises(discord.Forbidden) as denied:
        await quiz.send("hello")
    assert denied.value.code == 50013 and denied.value.status == 403
    with pytest.raises(discord.Forbidden):
        await general.send(embed=discord.Embed(title="no embeds here"))
    await general.send("plain text is fine")

    driver.delete_channel(doomed)
    with pytest.raises(discord.NotFound) as gone:
        await client.get_partial_messageable(doomed.id).send("anyone?")
    assert gone.value.code == 10003
    assert [m["content"] for m in driver.channel_messages(world.general)] == ["plain text is fine"]


async def test_unknown_route_is_recorded_and_rejected(
    emulator: DiscordEmulator, driver: Driver, world: World, start_client: StartClient
) -> None:
    client = await start_client(plain_client())
    channel = client.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)
    message = await channel.send("react to me")

    with pytest.raises(discord.NotFound):
        await message.add_reaction("\N{THUMBS UP SIGN}")

    [route] = emulator.unknown_routes
    assert route.method == "PUT" and "/reactions/" in route.path
    emulator.unknown_routes.clear()  # provoked on purpose; the fixture asserts none remain


async def test_invalid_message_bodies_get_discord_errors(
    driver: Driver, world: World, start_client: StartClient
) -> None:
    client = await start_client(plain_client())
    channel = client.get_channel(world.general.id)
    assert isinstance(channel, discord.TextChannel)

    with pytest.raises(discord.HTTPException) as too_long:
        await channel.send("x" * 2001)
    assert too_long.value.code == 50035
    with pytest.raises(discord.HTTPException) as empty:
        await channel.send(embeds=[])
    assert empty.value.code == 50006


async def test_wrong_token_fails_login(discord_pointed_at_emulator: DiscordEmulator) -> None:
    client = discord.Client(intents=discord.Intents.default())
    with pytest.raises(discord.LoginFailure):
        async with client:
            await asyncio.wait_for(client.login("not-the-token"), STEP)


# ---- emulator internals a bot cannot see directly ------------------------------------------


async def test_spliced_interaction_json_matches_the_recorded_payload(
    emulator: DiscordEmulator, driver: Driver, world: World
) -> None:
    # A session with no socket: frames land in its replay buffer, where they can be read.
    listener = Session("inspect", intents=0, shard=None)
    emulator.gateway.active.append(listener)
    panel = driver.add_bot_message(world.general, "Ready?", components=BUTTON_ROW)
    driver.click_button(panel, "answer", user=world.alice)  # warms the caches
    panel_edit = {"content": "Ready now?"}
    emulator.messages.edit(panel, panel_edit)

    click = driver.click_button(panel, "answer", user=world.alice)
    frame = json.loads(listener.replay[-1][1])

    assert frame["t"] == "INTERACTION_CREATE"
    assert frame["d"] == json.loads(json.dumps(click.payload))
    assert frame["d"]["message"]["content"] == "Ready now?"  # cache invalidated by the edit
    assert frame["d"]["member"]["permissions"] == str(world.guild.roles[world.guild.id].permissions)
    with pytest.raises(ValueError, match="no component"):
        driver.click_button(panel, "nope", user=world.alice)


async def test_interactions_reach_only_the_shard_that_owns_the_guild(
    emulator: DiscordEmulator, driver: Driver, world: World
) -> None:
    """Discord's routing, which a sharded bot relies on: one guild, one shard, one handler."""
    shards = [Session(f"shard-{n}", intents=0, shard=[n, 2]) for n in range(2)]
    emulator.gateway.active.extend(shards)
    owner = (world.guild.id >> 22) % 2
    panel = driver.add_bot_message(world.general, "Ready?", components=BUTTON_ROW)
    before = [len(s.replay) for s in shards]

    driver.click_button(panel, "answer", user=world.alice)

    got = [
        [json.loads(text)["t"] for _, text in list(s.replay)[n:]]
        for s, n in zip(shards, before, strict=True)
    ]
    assert got[owner] == ["INTERACTION_CREATE"]
    assert got[1 - owner] == []
    assert shards[0].receives(None) and not shards[1].receives(None)  # DMs: shard 0 only
