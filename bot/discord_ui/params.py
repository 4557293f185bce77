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
    """The loaded topics containing what was typed (any case)."""
    needle = typed(current).casefold()
    return [
        app_commands.Choice(name=rendering.truncate(topic, CHOICE_NAME), value=topic)
        for topic in interaction.client.service.catalog_for(interaction.guild_id).topics()
        if needle in topic.casefold()
    ][:MAX_CHOICES]


async def zone_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Time zones matching what was typed; with nothing typed, the server's zone first."""
    preferred = None
    if interaction.guild_id is not None:
        preferred = (await interaction.client.service.zone(interaction.guild_id)).key
    return [app_commands.Choice(name=z, value=z) for z in zone_choices(typed(current), preferred)]

