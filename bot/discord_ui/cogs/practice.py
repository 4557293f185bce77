"""/practice and /review: a member's private sessions (what comes next:
bot/practice_sessions.py); every response is ephemeral."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import DifficultyParam, TopicParam, topic_autocomplete
from bot.discord_ui.post_view import session_message
from bot.i18n import _

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]


class PracticeCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="practice", description="Practise privately: tasks only you see, no leaderboard."
    )
    @app_commands.guild_only()
    @app_commands.describe(
        topic="Only tasks of this topic", difficulty="Only tasks of this difficulty"
    )
    @app_commands.autocomplete(topic=topic_autocomplete)
    async def practice(
        self,
        interaction: Interaction,
        topic: TopicParam | None = None,
        difficulty: DifficultyParam | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            step = await self.bot.service.sessions.start_practice(
                guild_id,
                interaction.channel_id or 0,
                interaction.user.id,
                topic or None,  # "" is no topic
                difficulty,
            )
            await responder.send(**session_message(step))

    @app_commands.command(
        name="review", description="Your due reviews, privately: what you missed comes back."
    )
    @app_commands.guild_only()
    async def review(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            step = await self.bot.service.sessions.start_review(
                guild_id, interaction.channel_id or 0, interaction.user.id
            )
            message = session_message(step)
            notice = await self.bot.service.take_reminder_notice(guild_id, interaction.user.id)
            if notice is not None:
                # The notice is a marked constant (bot/quiz/reminders.py): translated here.
                message["content"] = f"{_(notice)}\n\n{message['content']}"
            await responder.send(**message)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(PracticeCog(bot))
