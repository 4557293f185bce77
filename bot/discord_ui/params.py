"""Slash-command parameters, declared to Discord and parsed again when they arrive, and the
command tree that guards every command payload (`QuizTree`).

A raw payload skips Discord's client, so each option is parsed by the one `bot.quiz.refs`
function for its kind; a refusal ends as a private reply naming the option (`clicks.unwrap`
takes it out of discord.py's TransformerError). Also the shared autocompletes, one each, so
/quiz and /schedule add offer and accept the same topics.
"""

from __future__ import annotations

import contextlib
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeAlias

import discord
from discord import app_commands

from bot import rendering
from bot.clock import Period
from bot.discord_ui.clicks import enter, report, send_private
from bot.discord_ui.error_texts import UNREADABLE, unusable_value
from bot.i18n import N_, _
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
            raise InvalidInputError(
                self.option, N_("The `{option}` option takes a role of this server.")
            )
        if value.is_default():
            # Every member has @everyone: as the moderator role it would hand every member
            # /schedule, /config, /bank and /insights.
            raise InvalidInputError(
                self.option,
                N_(
                    "The `{option}` option can't be @everyone: every member would count as a "
                    "moderator."
                ),
            )
        return value


TopicParam = app_commands.Transform[str, Text("topic")]
TaskParam = app_commands.Transform[str, Text("task")]  # a task id, or a post (/hint, /solution)
DifficultyParam = app_commands.Transform[Difficulty, ValueChoices(Difficulty, "difficulty")]
PeriodParam = app_commands.Transform[Period, ValueChoices(Period, "period")]
CountParam = app_commands.Transform[int, WholeNumber("count", 1, MAX_TASKS_PER_RUN)]
ScheduleIdParam = app_commands.Transform[int, ScheduleId("id")]


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
    a payload `readable_payload` accepted: every option is then a dict with a name."""
    options = data.get("options", []) if isinstance(data, dict) else []
    while options and options[0].get("type") in (1, 2):  # a subcommand (group)
        options = options[0].get("options", [])
    return list(options)


def unresolved_option(data: Any) -> str | None:
    """The name of an id option whose object the payload does not carry, else None:
    discord.py would hand a handler a bare `discord.Object`, or refuse only some types."""
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
    return isinstance(value, str)  # an id (checked by `readable_payload`)


def autocomplete_answerable(interaction: Interaction) -> bool:
    """Whether an autocomplete payload names an option with an autocomplete, and every value
    has its option's declared type. Otherwise discord.py hands an int to a handler written
    for text, or logs a traceback, and the member waits for suggestions that never come."""
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


SNOWFLAKE_LIMIT = 2**63
SNOWFLAKE_OPTIONS = frozenset({6, 7, 8, 9, 11})
"""user, channel, role, mentionable, attachment: discord.py reads their values with int()."""
NUMBER_OPTION = 10


def _readable(option: Any) -> bool:
    """Whether discord.py can read one option of a command payload without failing."""
    if not isinstance(option, dict) or not isinstance(option.get("name"), str):
        return False
    kind = option.get("type")
    if kind in (1, 2):  # a subcommand (group): its own options
        return all(_readable(o) for o in _listed(option.get("options", [])))
    if "value" not in option:
        return False
    value = option["value"]
    if kind in SNOWFLAKE_OPTIONS:
        # Discord's ids fit a signed 64-bit integer, as the database's columns do: a larger
        # one is forged, and would only fail when stored.
        return (
            isinstance(value, str)
            and value.isascii()
            and value.isdigit()
            and len(value) <= len(str(SNOWFLAKE_LIMIT))  # int() refuses 4,300+ digits
            and 0 < int(value) < SNOWFLAKE_LIMIT
        )
    if kind == NUMBER_OPTION and not option.get("focused") and value not in (None, ""):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(kind, int)


def _listed(options: Any) -> list[Any]:
    return options if isinstance(options, list) else [None]


def readable_payload(data: Any) -> bool:
    """Whether discord.py can read a command payload's options. Discord only sends readable
    ones; a raw payload can send a user option "abc", which would fail inside the library,
    before any handler or error hook, and leave the member without a reply."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("name"), str)
        and all(_readable(o) for o in _listed(data.get("options", [])))
    )


class QuizTree(app_commands.CommandTree["QuizBot"]):
    async def interaction_check(self, interaction: discord.Interaction[QuizBot], /) -> bool:
        """The one guard between a raw payload and every handler: refuse privately what
        discord.py could not read, or an id option without its object; answer a malformed
        autocomplete with no suggestions."""
        enter(interaction)  # the member's language, for the whole handler
        autocomplete = interaction.type is discord.InteractionType.autocomplete
        if readable_payload(interaction.data):
            if autocomplete:
                if autocomplete_answerable(interaction):
                    return True
            elif (name := unresolved_option(interaction.data)) is None:
                return True
            else:
                await send_private(interaction, unusable_value(f"`{name}`"))
                return False
        if autocomplete:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.autocomplete([])
        else:
            await send_private(interaction, _(UNREADABLE))
        return False

    async def on_error(
        self, interaction: discord.Interaction[QuizBot], error: app_commands.AppCommandError, /
    ) -> None:
        await report(interaction, error)
