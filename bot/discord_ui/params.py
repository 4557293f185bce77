"""Slash-command parameters: how each option is declared to Discord and parsed when it arrives.

Discord's client enforces what an option declares (choices, lengths, ranges); a raw payload
skips the client, so every option below is parsed again when the command runs, by the one
function in `bot.quiz.refs` for its kind of value. A value it refuses ends as a private reply
naming the option (bot/discord_ui/errors.py): discord.py hands our transformer's exception to
the tree's on_error as a TransformerError, and `errors.unwrap` takes the domain error out.

Also the shared autocompletes (topics, zones) and `typed`, the text an autocomplete was given.
One definition each, so /quiz and /schedule add offer and accept the same topics and
difficulties.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeAlias

import discord
from discord import app_commands

from bot import rendering
from bot.clock import Period
from bot.quiz import refs
from bot.quiz.errors import InvalidInputError
from bot.quiz.rules import MAX_TASKS_PER_RUN
from bot.quiz.tasks import Difficulty
from bot.schedule.zones import MAX_CHOICES, zone_choices

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction: TypeAlias = discord.Interaction["QuizBot"]
CHOICE_NAME = 100
"""Discord's limit on an autocomplete choice's name."""


class Checked(app_commands.Transformer["QuizBot"]):
    """An option parsed by `bot.quiz.refs` when the command runs. `option` is the name the
    member sees (the parameter's display name), for the refusal."""

    def __init__(self, option: str) -> None:
        super().__init__()
        self.option = option


class Text(Checked):
    """Free text of 1 to `limit` characters (declared as min_length/max_length)."""

    def __init__(self, option: str, limit: int = refs.TEXT_LIMIT) -> None:
        super().__init__(option)
        self.limit = limit

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def min_value(self) -> int:
        return 1

    @property
    def max_value(self) -> int:
        return self.limit

    async def transform(self, interaction: Interaction, value: Any, /) -> str:
        return refs.text(value, self.option, self.limit)


class ValueChoices(Checked):
    """A StrEnum parameter offered as choices named by their values ("easy", not "EASY" as
    discord.py's plain Enum parameter shows them); the command receives the enum member."""

    def __init__(self, enum: type[StrEnum], option: str) -> None:
        super().__init__(option)
        self.enum = enum

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        # Only str values, in the Transformer's type: a list of narrower choices is no subtype.
        return [app_commands.Choice(name=member.value, value=member.value) for member in self.enum]

    async def transform(self, interaction: Interaction, value: Any, /) -> StrEnum:
        return refs.choice(value, self.option, self.enum)


class WholeNumber(Checked):
    """A whole number from `low` to `high` (declared as min_value/max_value)."""

    def __init__(self, option: str, low: int, high: int) -> None:
        super().__init__(option)
        self.low = low
        self.high = high

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return self.low

    @property
    def max_value(self) -> int:
        return self.high

    async def transform(self, interaction: Interaction, value: Any, /) -> int:
        return refs.whole_number(value, self.option, self.low, self.high)


class Flag(Checked):
    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.boolean

    async def transform(self, interaction: Interaction, value: Any, /) -> bool:
        return refs.flag(value, self.option)


class ScheduleId(Checked):
    """A daily quiz's number, as /schedule list shows it."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.integer

    @property
    def min_value(self) -> int:
        return 1

    async def transform(self, interaction: Interaction, value: Any, /) -> int:
        return refs.schedule_id(value)


class ServerRole(Checked):
    """A role of this server (discord.py passes an unresolved role id through unchecked)."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.role

    async def transform(self, interaction: Interaction, value: Any, /) -> discord.Role:
        if not isinstance(value, discord.Role):
            raise InvalidInputError(self.option, "takes a role of this server")
        if value.is_default():
            # Every member has @everyone: as the moderator role it would hand every member
            # /schedule, /config, /bank and /insights.
            raise InvalidInputError(
                self.option, "can't be @everyone: every member would count as a moderator"
            )
        return value


TopicParam = app_commands.Transform[str, Text("topic")]
"""The topic option of /quiz and /schedule add."""
TaskParam = app_commands.Transform[str, Text("task")]
"""The task option of /quiz (a task id) and of /hint and /solution (a post)."""
DifficultyParam = app_commands.Transform[Difficulty, ValueChoices(Difficulty, "difficulty")]
"""The difficulty option of /quiz and /schedule add."""
PeriodParam = app_commands.Transform[Period, ValueChoices(Period, "period")]
"""The period option of /leaderboard."""
CountParam = app_commands.Transform[int, WholeNumber("count", 1, MAX_TASKS_PER_RUN)]
"""Tasks per day of /schedule add."""
ScheduleIdParam = app_commands.Transform[int, ScheduleId("id")]
"""The id option of /schedule remove, pause and resume."""


def typed(current: object) -> str:
    """What an autocomplete was given, as text to match: Discord sends what the member has
    typed so far, a raw payload may send anything (a number, a list, 6,000 characters)."""
    if isinstance(current, str):
        return current[: refs.TEXT_LIMIT]
    if type(current) is int and abs(current) <= refs.MAX_ID:
        return str(current)
    return ""


async def topic_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The loaded topics containing what was typed (any case), as written or as shown (a
    topic's Markdown is rendered in the choice's name)."""
    needle = typed(current).casefold()
    choices = []
    for topic in interaction.client.service.catalog_for(interaction.guild_id).topics():
        name = rendering.plain_label(topic, CHOICE_NAME)
        if needle in topic.casefold() or needle in name.casefold():
            choices.append(app_commands.Choice(name=name, value=topic))
    return choices[:MAX_CHOICES]


async def zone_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Time zones matching what was typed; with nothing typed, the server's zone first."""
    preferred = None
    if interaction.guild_id is not None:
        preferred = (await interaction.client.service.zone(interaction.guild_id)).key
    return [app_commands.Choice(name=z, value=z) for z in zone_choices(typed(current), preferred)]


# -- what a raw payload sends, against what each option declares ---------------------------------

SNOWFLAKE_RESOLVED: dict[int, tuple[str, ...]] = {
    discord.AppCommandOptionType.user.value: ("users", "members"),
    discord.AppCommandOptionType.channel.value: ("channels",),
    discord.AppCommandOptionType.role.value: ("roles",),
    discord.AppCommandOptionType.mentionable.value: ("users", "members", "roles"),
    discord.AppCommandOptionType.attachment.value: ("attachments",),
}
"""Where Discord resolves each kind of id option: it always sends the object beside the id."""
NUMBERS = frozenset({discord.AppCommandOptionType.integer, discord.AppCommandOptionType.number})
PLAIN_OPTIONS = frozenset({3, 4, 5, 10})
"""string, integer, boolean, number: discord.py hands their values on as the JSON has them."""
DISCORD_NUMBER_LIMIT = 2**53
"""Discord's integer and number options range from -2^53 to 2^53; a larger one is forged."""


def leaf_options(data: Any) -> list[dict[str, Any]]:
    """The options the command itself takes, under its subcommand (group) if any. Call it on
    a payload `errors.readable_payload` accepted: every option is then a dict with a name."""
    options = data.get("options", []) if isinstance(data, dict) else []
    while options and options[0].get("type") in (1, 2):  # a subcommand (group)
        options = options[0].get("options", [])
    return list(options)


def unresolved_option(data: Any) -> str | None:
    """The name of an id option whose object the payload does not carry, else None.

    discord.py would hand such a value to the handler as a bare `discord.Object` (an
    attachment without a filename, a member without roles), or refuse it only for some types:
    refused here, for every type, before any handler runs."""
    resolved = data.get("resolved") if isinstance(data, dict) else None
    resolved = resolved if isinstance(resolved, dict) else {}
    for option in leaf_options(data):
        keys = SNOWFLAKE_RESOLVED.get(option.get("type"))  # type: ignore[arg-type]
        if keys is None:
            continue
        if not any(
            isinstance(resolved.get(key), dict) and str(option.get("value")) in resolved[key]
            for key in keys
        ):
            return str(option["name"])
    return None


def fits(kind: discord.AppCommandOptionType, value: object, *, focused: bool) -> bool:
    """Whether `value` has the JSON type Discord sends for an option of `kind`. The focused
    option of an autocomplete is what the member has typed so far: text, also for a number
    option ("-", "1e")."""
    if isinstance(value, bool):
        return kind is discord.AppCommandOptionType.boolean and not focused
    if kind is discord.AppCommandOptionType.string:
        return isinstance(value, str)
    if kind in NUMBERS:
        whole = kind is discord.AppCommandOptionType.integer
        if isinstance(value, int) or (not whole and isinstance(value, float)):
            return abs(value) <= DISCORD_NUMBER_LIMIT
        return focused and isinstance(value, str)
    if kind is discord.AppCommandOptionType.boolean:
        return False
    return isinstance(value, str)  # an id (checked by `errors.readable_payload`)


def autocomplete_answerable(interaction: Interaction) -> bool:
    """Whether an autocomplete payload names an option with an autocomplete, and every value
    in it has its option's declared type: the one guard in front of every autocomplete handler
    (`QuizTree.interaction_check`), which answers anything else with no suggestions, as it
    would a value that matches nothing. Without it, discord.py hands an int to a handler
    written for text, or logs a traceback for an option without an autocomplete, and the
    member's client waits for suggestions that never come."""
    try:
        command = interaction.command
    except app_commands.AppCommandError:  # a command or subcommand this bot does not have
        return False
    if not isinstance(command, app_commands.Command):
        return False
    options = leaf_options(interaction.data)
    if unresolved_option(interaction.data) is not None:
        return False
    declared = {p.display_name: p for p in command.parameters}
    focused = [o for o in options if o.get("focused") is True]
    if len(focused) != 1:
        return False
    target = declared.get(focused[0]["name"])
    if target is None or not target.autocomplete:
        return False
    for option in options:
        parameter = declared.get(option["name"])
        if parameter is None:
            return False
        # An id option's value becomes an object of the payload's type, so the types must
        # agree; for text, numbers and flags it is the value's own JSON type that counts.
        kinds = {option.get("type"), parameter.type.value}
        if len(kinds) > 1 and not kinds <= PLAIN_OPTIONS:
            return False
        if not fits(parameter.type, option.get("value"), focused=option is focused[0]):
            return False
    return True
