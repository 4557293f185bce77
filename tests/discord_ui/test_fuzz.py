"""Hostile values in every slash-command option, every autocomplete and every custom_id field.

Discord's client checks option types, choices, lengths and ranges, and only sends custom_ids the
bot made; a raw payload does neither. Each value here goes through discord.py's own payload
parsing (`Driver`, the fake HTTP below it) and must get exactly one answer within Discord's
3 seconds (on the loop's clock): private, at most 2,000 characters, nothing public that should
not be, and nothing in the log at ERROR or with a traceback.

Every case first runs a fixed list of known-bad values (huge and non-ASCII numbers, 6,000
characters, empty, control characters, markdown and mentions, the wrong JSON type), then
Hypothesis adds derandomized examples, so CI sees the same values on every run.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import discord
import pytest
from discord import app_commands
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import rendering
from bot.discord_ui.client import QuizBot
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine
from tests.discord_ui.conftest import AUTOCOMPLETE, COMMAND, COMPONENT, TOKEN, Driver
from tests.discord_ui.conftest import settings as bot_settings
from tests.discord_ui.fakes import (
    ALICE,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    EPHEMERAL,
    GUILD_ID,
    MOD,
    OTHER_CHANNEL_ID,
    UPDATE_MESSAGE,
    Call,
    FakeDiscordHTTP,
    Member,
    interaction_payload,
)
from tests.discord_ui.test_schedule_cog import TUTORS, cache_guild

T = TypeVar("T")

STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, ATTACHMENT = 3, 4, 5, 6, 7, 8, 11
BUTTON, STRING_SELECT = 2, 3
REPLY_WITHIN = 3.0
"""Discord's deadline for the first response to an interaction, in seconds."""

FUZZ = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# -- hostile values ----------------------------------------------------------------------------

HUGE = ["9" * 19, "9" * 20, "9223372036854775807", "9223372036854775808", "1" + "0" * 30]
NON_ASCII_DIGITS = ["²", "١٢", "#١٢", "１２", "٣" * 25, "𝟗"]
LONG = ["a" * 6000, "9" * 6000, "💡" * 1500, "**" * 3000]
INJECTION = [
    "@everyone",
    "@here",
    "<@111>",
    "<@&555>",
    "<#700000000000000001>",
    "**bold** __under__ `code` ||spoiler|| ~~strike~~",
    "[click me](https://evil.example)",
    "# heading",
    "> quote",
    "```",
]
CONTROL = ["\x00", "\x1b[31mred", "line\nbreak\r\ttab", "\u202eevil", "\ufeff", "\x7f"]
ORDINARY = [
    "",
    " ",
    "1",
    "#1",
    "0",
    "-1",
    "+1",
    " 1 ",
    "%",
    "_",
    "MLOps",
    "mc-split",
    "09:00",
    "Europe/Berlin",
    "easy",
    "week",
    "mods",
    "A",
    "AB",
    "A-",
    "--",
    ":",
    "1:2",
]
TEXTS = ORDINARY + HUGE + NON_ASCII_DIGITS + LONG + INJECTION + CONTROL
WRONG_JSON = [12, -1, 10**20, 1.5, True, None, [], {}, ["a"]]

NUMBERS = [
    0,
    -1,
    1,
    5,
    6,
    999,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64,
    10**20,
    -(2**63) - 1,
    10**4000,
]
WRONG_NUMBERS = ["3", "abc", "", "99999999999999999999", 3.0, 3.5, True, False, None, [], {}]
BOOLS = [True, False, "yes", "true", 1, 0, None, "", []]
SNOWFLAKES = [
    "1",
    "0",
    "-1",
    "abc",
    "",
    "²",
    "١٢",
    "9" * 20,
    "9" * 6000,
    "<@111>",
    "700000000000000009",
    123,
    None,
    1.5,
    [],
]

texts = st.one_of(
    st.text(max_size=300),
    st.text(alphabet="0123456789#²³¹١٢٣０１２ ", max_size=25),
    st.builds(lambda c, n: c * n, st.characters(), st.integers(90, 7000)),
)
json_values = st.one_of(texts, st.integers(), st.floats(), st.booleans(), st.none())
numbers = st.one_of(st.integers(), st.integers(-(2**70), 2**70), json_values)


# -- what a case sends ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One slash-command option: where it lives and how to send a value in it."""

    command: str
    """e.g. "quiz" or "schedule add"."""
    name: str
    kind: int
    fixed: list[Any]
    strategy: st.SearchStrategy[Any]
    member: Member = field(default_factory=lambda: ALICE)
    others: dict[str, tuple[int, Any]] = field(default_factory=dict)
    """Valid values of the command's other (required) options."""
    public: bool = False
    """Whether a right value makes something public (a /quiz post, the leaderboard)."""
    autocompleted: bool = False

    def data(self, value: Any, *, focused: bool = False) -> dict[str, Any]:
        options = [
            {"name": name, "type": kind, "value": v} for name, (kind, v) in self.others.items()
        ]
        option: dict[str, Any] = {"name": self.name, "type": self.kind, "value": value}
        if focused:
            option["focused"] = True
        options.append(option)
        group, _, sub = self.command.partition(" ")
        if sub:
            options = [{"name": sub, "type": 1, "options": options}]
        data: dict[str, Any] = {"id": "1", "name": group, "type": 1, "options": options}
        if "channel" in self.others:
            data["resolved"] = {"channels": {str(OTHER_CHANNEL_ID): RESOLVED_CHANNEL}}
        if "file" in self.others:
            data["resolved"] = {"attachments": {RESOLVED_FILE["id"]: RESOLVED_FILE}}
        return data

    def __str__(self) -> str:
        return f"/{self.command} {self.name}"


RESOLVED_CHANNEL = {
    "id": str(OTHER_CHANNEL_ID),
    "type": 0,
    "guild_id": str(GUILD_ID),
    "name": "daily",
    "position": 0,
    "permission_overwrites": [],
    "nsfw": False,
    "parent_id": None,
    "permissions": "0",
}
RESOLVED_FILE = {
    "id": "800000000000000001",
    "filename": "bank.gift",
    "size": 2 * 1024 * 1024,  # refused before it is downloaded
    "url": "https://cdn.discordapp.com/attachments/1/2/bank.gift",
    "proxy_url": "https://media.discordapp.net/attachments/1/2/bank.gift",
}
ADD = {"channel": (CHANNEL, str(OTHER_CHANNEL_ID)), "time": (STRING, "09:00")}


def snowflake_option(command: str, name: str, kind: int, **kwargs: Any) -> Option:
    return Option(
        command, name, kind, SNOWFLAKES, st.one_of(texts, st.integers().map(str)), **kwargs
    )


# -- every option of every command, from the command tree ---------------------------------------

WRONG_JSON_EXTRA = [0, 2**63, 10**4000, -(10**30), 1e308, -0.0, False, {"value": "a"}, [1, 2]]
"""More values of the wrong JSON type or range, for every kind of option."""
VALUES: dict[discord.AppCommandOptionType, tuple[list[Any], st.SearchStrategy[Any]]] = {
    discord.AppCommandOptionType.string: (TEXTS + WRONG_JSON + WRONG_JSON_EXTRA, json_values),
    discord.AppCommandOptionType.integer: (NUMBERS + WRONG_NUMBERS + WRONG_JSON_EXTRA, numbers),
    discord.AppCommandOptionType.number: (NUMBERS + WRONG_NUMBERS + WRONG_JSON_EXTRA, numbers),
    discord.AppCommandOptionType.boolean: (BOOLS + WRONG_JSON_EXTRA, json_values),
}
SNOWFLAKE_VALUES = (SNOWFLAKES + WRONG_JSON_EXTRA, st.one_of(texts, st.integers().map(str)))
VALID: dict[str, tuple[int, Any]] = {
    "channel": (CHANNEL, str(OTHER_CHANNEL_ID)),
    "time": (STRING, "09:00"),
    "file": (ATTACHMENT, RESOLVED_FILE["id"]),
}
"""A right value of each required option, sent beside the option under test."""
PUBLIC = frozenset({"quiz", "leaderboard", "insights"})
"""Commands whose right values make something public (a /quiz post, the leaderboard)."""


def _tree_parameters() -> list[tuple[str, list[app_commands.Parameter]]]:
    """Every slash command of the bot, by qualified name, with its parameters: what a
    raw payload can name, so that no option (or a new one) goes unfuzzed."""

    async def walk() -> list[tuple[str, list[app_commands.Parameter]]]:
        service = QuizService(Catalog(), Store(make_engine("sqlite://")))
        bot = QuizBot(bot_settings(Path("unused.db")), service, run_scheduler=False)
        await bot.setup_hook()
        try:
            return [
                (command.qualified_name, command.parameters)
                for command in bot.tree.walk_commands()
                if isinstance(command, app_commands.Command)
            ]
        finally:
            await bot.service.close()

    return asyncio.run(walk())


def _tree_options() -> list[Option]:
    options = []
    for command, parameters in _tree_parameters():
        required = [p.display_name for p in parameters if p.required]
        for parameter in parameters:
            fixed, strategy = VALUES.get(parameter.type, SNOWFLAKE_VALUES)
            others = {name: VALID[name] for name in required if name != parameter.display_name}
            options.append(
                Option(
                    command,
                    parameter.display_name,
                    parameter.type.value,
                    fixed,
                    strategy,
                    member=MOD,
                    others=others,
                    public=command.partition(" ")[0] in PUBLIC,
                    autocompleted=parameter.autocomplete,
                )
            )
    return options


OPTIONS = _tree_options()
AUTOCOMPLETES = [option for option in OPTIONS if option.autocompleted]
NOT_AUTOCOMPLETED = [option for option in OPTIONS if not option.autocompleted]


def test_the_fuzz_covers_every_option_and_every_autocomplete() -> None:
    """The lists come from the command tree; these are the ones a member met before."""
    assert {str(o) for o in AUTOCOMPLETES} >= {
        "/quiz topic",
        "/quiz task",
        "/hint task",
        "/solution task",
        "/schedule add timezone",
        "/schedule add topic",
        "/schedule remove id",
        "/config timezone zone",
        "/reminders on timezone",
        "/bank download name",
        "/practice topic",
    }
    kinds = {o.kind for o in OPTIONS}
    assert {STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, ATTACHMENT} <= kinds


# -- the harness ---------------------------------------------------------------------------------


class Harness:
    """One bot on its own event loop, with three posts to aim at; Hypothesis calls back into
    it synchronously, one example at a time."""

    def __init__(
        self,
        tmp_path: Path,
        fake: FakeDiscordHTTP,
        catalog: Catalog,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self.fake = fake
        self.caplog = caplog
        self.stamps: list[float] = []
        handle = fake.handle

        async def stamped(*args: Any) -> Any:
            self.stamps.append(self.loop.time())
            return await handle(*args)

        fake.handle = stamped  # type: ignore[method-assign]
        db = tmp_path / "fuzz.db"
        self.bot = self.run(self._start(db, catalog))
        self.driver = Driver(self.bot, fake)
        self.posts = {task: self.run(self.driver.post(task)) for task in POSTED}
        # A daily quiz, for the schedule id options and their autocomplete to find.
        add = Option("schedule add", "topic", STRING, [], texts, member=MOD, others=ADD)
        self.command(add, "MLOps")

    @staticmethod
    async def _start(db: Path, catalog: Catalog) -> QuizBot:
        service = QuizService(catalog, Store(make_engine(f"sqlite:///{db}")), batch_window=0.001)
        bot = QuizBot(bot_settings(db), service, live_count_interval=0.05)
        await bot.login(TOKEN)
        cache_guild(bot)
        await bot.service.update_guild_config(GUILD_ID, cooldown_seconds=0)
        return bot

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)

    def close(self) -> None:
        self.run(self.bot.close())
        self.loop.close()

    def post_id(self, task: str) -> int:
        return int(self.posts[task]["components"][0]["components"][0]["custom_id"].split(":")[2])

    # -- one interaction ------------------------------------------------------------------------

    def send(self, payload: dict[str, Any], *, public: bool = False) -> list[Call]:
        """Dispatch `payload` and check its answer; returns the calls made for it."""
        first_call, first_record = len(self.fake.calls), len(self.caplog.records)
        sent_at = self.loop.time()
        self.run(self.driver.dispatch(payload))
        token = payload["token"]
        calls = self.fake.calls[first_call:]
        mine = [
            (call, at)
            for call, at in zip(calls, self.stamps[first_call:], strict=True)
            if token in call.url
        ]
        what = f"{payload['type']} {str(payload['data'])[:300]}"
        callbacks = [(c, at) for c, at in mine if c.path.endswith("/callback")]
        assert len(callbacks) == 1, f"{len(callbacks)} responses to {what}"
        (response, answered_at) = callbacks[0]
        assert answered_at - sent_at <= REPLY_WITHIN, what
        replies = [c for c, _ in mine if c.callback_type != AUTOCOMPLETE_RESULT and c.data]
        if payload["type"] == AUTOCOMPLETE:
            assert response.callback_type == AUTOCOMPLETE_RESULT, what
            choices = response.data["choices"]
            assert len(choices) <= 25
            assert all(rendering.discord_len(c["name"]) <= 100 for c in choices)
        else:
            assert response.callback_type in (
                CHANNEL_MESSAGE,
                DEFERRED_CHANNEL_MESSAGE,
                DEFERRED_UPDATE,
                UPDATE_MESSAGE,
            ), what
            if response.callback_type in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE):
                assert len(mine) > 1, f"deferred and never answered: {what}"
            assert replies, what
        for reply in replies:
            content = reply.data.get("content") or ""
            assert rendering.discord_len(content) <= rendering.MESSAGE_CONTENT, what
            assert reply.data.get("allowed_mentions", {"parse": []}) == {"parse": []}, what
            # Only a command's own result may be public (the leaderboard's embed); a refusal
            # is private, or an update of the private message it was clicked on.
            shown_to_all = public and bool(reply.data.get("embeds"))
            assert reply.ephemeral or shown_to_all or self._edits_private_message(reply, payload), (
                what
            )
        posted = [c for c in calls if c.method == "POST" and c.path.endswith("/messages")]
        if posted:  # only /quiz posts, and says so
            assert public and any("Posted" in r.text for r in replies), f"posted: {what}"
        records = self.caplog.records[first_record:]
        bad = [r for r in records if r.exc_info or r.levelno >= logging.ERROR]
        assert not bad, f"{what}: {[r.getMessage() for r in bad]}"
        return [c for c, _ in mine]

    def _edits_private_message(self, reply: Call, payload: dict[str, Any]) -> bool:
        """An update of the clicked message, or of the member's deferred private reply."""
        message = payload.get("message")
        edits = reply.callback_type == UPDATE_MESSAGE or reply.method == "PATCH"
        if edits and message is not None:
            return bool(int(message.get("flags", 0)) & EPHEMERAL)
        return (
            edits
            and self.fake.messages.get(
                self.fake.interaction_message.get(int(payload["id"]), 0), {}
            ).get("flags", 0)
            & EPHEMERAL
            != 0
        )

    def command(self, option: Option, value: Any) -> None:
        payload = interaction_payload(
            self.fake, kind=COMMAND, data=option.data(value), member=option.member
        )
        self.send(payload, public=option.public)

    def autocomplete(self, option: Option, value: Any) -> None:
        payload = interaction_payload(
            self.fake,
            kind=AUTOCOMPLETE,
            data=option.data(value, focused=True),
            member=option.member,
        )
        self.send(payload)

    def click(self, custom_id: str, on: str, values: Any = None) -> None:
        """A component with `custom_id` on a message: a task's public post, or a private
        message ("private") such as the picker."""
        kind = BUTTON if values is None else STRING_SELECT
        component: dict[str, Any] = {"type": kind, "custom_id": custom_id}
        if kind == BUTTON:
            component |= {"style": 1, "label": "x"}
        else:
            component["options"] = [{"label": "A", "value": "A"}]
        if on == "private":
            message = self.fake.message_payload({"flags": EPHEMERAL}, channel_id=0)
        else:
            message = dict(self.posts[on])
        message["components"] = [{"type": 1, "components": [component]}]
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": kind}
        if values is not None:
            data["values"] = values
        payload = interaction_payload(self.fake, kind=COMPONENT, data=data, message=message)
        self.send(payload)


POSTED = ("mc-split", "fill-one", "fill-two")


@contextmanager
def harness(
    tmp_path: Path, fake: FakeDiscordHTTP, catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> Iterator[Harness]:
    caplog.set_level(logging.WARNING)
    h = Harness(tmp_path, fake, catalog, caplog)
    try:
        yield h
    finally:
        h.close()


# -- the cases -----------------------------------------------------------------------------------


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_every_option_refuses_hostile_values_privately(
    option: Option,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with harness(tmp_path, fake, catalog, caplog) as h:
        for value in option.fixed:
            h.command(option, value)

        @FUZZ
        @given(option.strategy)
        def more(value: Any) -> None:
            h.command(option, value)

        more()


@pytest.mark.parametrize("option", AUTOCOMPLETES, ids=str)
def test_every_autocomplete_answers_hostile_text(
    option: Option,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with harness(tmp_path, fake, catalog, caplog) as h:
        for value in option.fixed:
            h.autocomplete(option, value)

        @FUZZ
        @given(option.strategy)
        def more(value: Any) -> None:
            h.autocomplete(option, value)

        more()


UNKNOWN = "no such thing 7"
WRONG_TYPED: dict[int, list[Any]] = {
    STRING: [12, -1, 0, 1.5, True, False, None, [], {}, ["a"], {"a": 1}, 10**30, 10**4000],
    INTEGER: [1.5, -0.5, True, None, [], {}, ["1"], {"value": 1}, 2**53 + 1, -(2**63), 10**4000],
}
"""Values of another JSON type than the autocompleted option's, or outside Discord's range."""


@pytest.mark.parametrize("option", AUTOCOMPLETES, ids=str)
def test_a_wrong_typed_autocomplete_value_gets_what_an_unknown_one_gets(
    option: Option,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with harness(tmp_path, fake, catalog, caplog) as h:
        h.autocomplete(option, UNKNOWN)
        unknown = h.fake.calls[-1].data
        for value in WRONG_TYPED[option.kind]:
            h.autocomplete(option, value)
            assert h.fake.calls[-1].data == unknown, (option, value)


@pytest.mark.parametrize("option", NOT_AUTOCOMPLETED, ids=str)
def test_an_autocomplete_for_an_option_without_one_gets_no_suggestions(
    option: Option,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """discord.py logs a traceback for these (CommandSignatureMismatch) and answers nothing."""
    with harness(tmp_path, fake, catalog, caplog) as h:
        for value in ["", "a", 1, None]:
            h.autocomplete(option, value)
            assert h.fake.calls[-1].data == {"choices": []}


AUTOCOMPLETE_SHAPES = [
    {
        "id": "1",
        "name": "nosuch",
        "type": 1,
        "options": [{"name": "x", "type": 3, "value": "", "focused": True}],
    },
    {
        "id": "1",
        "name": "reminders",
        "type": 1,
        "options": [
            {
                "name": "nosuch",
                "type": 1,
                "options": [{"name": "timezone", "type": 3, "value": "", "focused": True}],
            }
        ],
    },
    {
        "id": "1",
        "name": "quiz",
        "type": 1,
        "options": [{"name": "nosuch", "type": 3, "value": "", "focused": True}],
    },
    {"id": "1", "name": "quiz", "type": 1, "options": [{"name": "topic", "type": 3, "value": ""}]},
    {
        "id": "1",
        "name": "quiz",
        "type": 1,
        "options": [
            {"name": "topic", "type": 3, "value": "", "focused": True},
            {"name": "task", "type": 3, "value": "", "focused": True},
        ],
    },
    {
        "id": "1",
        "name": "quiz",
        "type": 1,
        "options": [{"name": "topic", "type": 4, "value": 1, "focused": True}],
    },
    {
        "id": "1",
        "name": "quiz",
        "type": 1,
        "options": [
            {"name": "task", "type": 3, "value": "", "focused": True},
            {"name": "topic", "type": 3, "value": ["MLOps"]},
        ],
    },
    {
        "id": "1",
        "name": "reminders",
        "type": 1,
        "options": [
            {
                "name": "on",
                "type": 1,
                "options": [{"name": "timezone", "type": 3, "value": 12, "focused": True}],
            }
        ],
    },
]


@pytest.mark.parametrize("data", AUTOCOMPLETE_SHAPES, ids=lambda d: str(d)[:60])
def test_an_autocomplete_the_bot_cannot_match_gets_no_suggestions(
    data: dict[str, Any],
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An unknown command, subcommand or option, none or two focused, a value of another
    type than the option's: answered with an empty list, as a text that matches nothing."""
    with harness(tmp_path, fake, catalog, caplog) as h:
        payload = interaction_payload(fake, kind=AUTOCOMPLETE, data=data, member=MOD)
        h.send(payload)
        assert h.fake.calls[-1].data == {"choices": []}


def test_an_attachment_the_payload_does_not_carry_is_refused_naming_it(
    tmp_path: Path, fake: FakeDiscordHTTP, catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    """discord.py hands the handler a bare Object for it (no filename): a traceback before."""
    with harness(tmp_path, fake, catalog, caplog) as h:
        option = Option("bank upload", "file", ATTACHMENT, [], texts, member=MOD)
        payload = interaction_payload(
            fake, kind=COMMAND, data=option.data("800000000000000009"), member=MOD
        )
        (reply,) = [c for c in h.send(payload) if c.data]
        assert reply.text == "I can't use that value for `file`. Pick one from the list, please."


FIELDS = [*TEXTS, "2", "3", "4", "5", "6", "Z", "ZZ", "AZ", "ZZZZZ", "-----", "A-C-E-", "a"]
field_values = st.one_of(st.sampled_from(FIELDS), texts)
MESSAGES = ("mc-split", "fill-one", "fill-two", "private")


@dataclass(frozen=True)
class Pattern:
    """A custom_id pattern: its prefix, and a valid value for each field (`{post}` is a real
    post's id) that the case replaces one field at a time."""

    prefix: str
    valid: tuple[str, ...]
    select: bool = False

    def custom_id(self, fields: tuple[str, ...]) -> str:
        return ":".join((self.prefix, *fields))

    def __str__(self) -> str:
        return self.prefix


PATTERNS = [
    Pattern("quiz:ans", ("{post}", "B")),
    Pattern("quiz:hint", ("{post}",)),
    Pattern("quiz:open", ("{post}",)),
    Pattern("quiz:pick", ("{post}", "1", "--"), select=True),
    Pattern("quiz:submit", ("{post}", "AC")),
    Pattern("quiz:reveal", ("{post}",)),
]


@pytest.mark.parametrize("pattern", PATTERNS, ids=str)
def test_every_custom_id_refuses_hostile_fields_privately(
    pattern: Pattern,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with harness(tmp_path, fake, catalog, caplog) as h:

        def click(custom: tuple[str, ...], on: str, values: Any = ("A",)) -> None:
            post = str(h.post_id("fill-two" if on == "private" else on))
            custom_id = pattern.custom_id(tuple(f.replace("{post}", post) for f in custom))
            h.click(custom_id, on, list(values) if pattern.select else None)

        for on in MESSAGES:  # every pattern, as made, on every kind of message
            click(pattern.valid, on)
        for index in range(len(pattern.valid)):
            for value in FIELDS:
                custom = list(pattern.valid)
                custom[index] = value
                click(tuple(custom), "private" if index else "mc-split")
        if pattern.select:
            for values in (["Z"], [], ["A", "B"], ["a" * 6000], [1], "A"):
                click(pattern.valid, "private", values)

        @FUZZ
        @given(
            st.tuples(*(st.one_of(st.just(v), field_values) for v in pattern.valid)),
            st.sampled_from(MESSAGES),
            st.lists(field_values, max_size=2),
        )
        def more(custom: tuple[str, ...], on: str, values: list[str]) -> None:
            click(custom, on, values)

        more()


def test_the_mod_role_option_accepts_a_real_role(
    tmp_path: Path, fake: FakeDiscordHTTP, catalog: Catalog, caplog: pytest.LogCaptureFixture
) -> None:
    """The harness itself: a right value gets through (the refusals above are not the only
    answer it can give)."""
    with harness(tmp_path, fake, catalog, caplog) as h:
        option = snowflake_option("config modrole", "role", ROLE, member=MOD)
        data = option.data(str(TUTORS))
        data["resolved"] = {
            "roles": {
                str(TUTORS): {
                    "id": str(TUTORS),
                    "name": "tutors",
                    "color": 0,
                    "hoist": False,
                    "position": 1,
                    "permissions": "0",
                    "managed": False,
                    "mentionable": False,
                    "flags": 0,
                }
            }
        }
        payload = interaction_payload(fake, kind=COMMAND, data=data, member=MOD)
        (reply,) = [c for c in h.send(payload) if c.data]
        assert "now count as moderators" in reply.text
