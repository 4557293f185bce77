"""Slash-command parameters more than one command shares: the topic and zone autocompletes,
and enum parameters (difficulty, period, post policy) whose choices read as their values.

One definition each, so /quiz and /schedule add offer the same topics and difficulties.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot import rendering
from bot.clock import Period
from bot.quiz.tasks import Difficulty
from bot.schedule.zones import MAX_CHOICES, zone_choices

if TYPE_CHECKING:
    pass

Interaction = discord.Interaction["QuizBot"]
CHOICE_NAME = 100
"""Discord's limit on an autocomplete choice's name."""


class ValueChoices(app_commands.Transformer):
    """A StrEnum parameter offered as choices named by their values ("easy", not "EASY" as
    discord.py's plain Enum parameter shows them); the command receives the enum member."""

    def __init__(self, enum: type[StrEnum]) -> None:
        super().__init__()
        self.enum = enum

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[str]]:
        return [app_commands.Choice(name=member.value, value=member.value) for member in self.enum]

    async def transform(self, interaction: Interaction, value: Any, /) -> StrEnum:
        return self.enum(value)


DifficultyParam = app_commands.Transform[Difficulty, ValueChoices(Difficulty)]
"""The difficulty option of /quiz and /schedule add."""
PeriodParam = app_commands.Transform[Period, ValueChoices(Period)]
"""The period option of /leaderboard."""


async def topic_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The loaded topics containing what was typed (any case)."""
    needle = current.casefold()
    return [
        app_commands.Choice(name=rendering.truncate(topic, CHOICE_NAME), value=topic)
        for topic in interaction.client.service.catalog.topics()
        if needle in topic.casefold()
    ][:MAX_CHOICES]


async def zone_autocomplete(
    interaction: Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Time zones matching what was typed; with nothing typed, the server's zone first."""
    preferred = None
    if interaction.guild_id is not None:
        preferred = (await interaction.client.service.zone(interaction.guild_id)).key
    return [app_commands.Choice(name=z, value=z) for z in zone_choices(current, preferred)]
