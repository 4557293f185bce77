"""/config: a server's time zone, moderator role and who may post with /quiz (moderators)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.checks import moderator_group, moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import ServerRole, Text, ValueChoices, zone_autocomplete
from bot.quiz.rules import PostPolicy
from bot.schedule.zones import known_zones, resolve_zone

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
PostPolicyParam = app_commands.Transform[PostPolicy, ValueChoices(PostPolicy, "policy")]


class ConfigCog(commands.Cog):
    config = moderator_group("config", "This server's quiz settings (moderators).")

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # Listing tzdata reads the disk: do it once, off the loop, not in the first autocomplete.
        await asyncio.to_thread(known_zones)

    @config.command(name="timezone", description="The server's time zone.")
    @app_commands.describe(
        zone="IANA time zone, e.g. Europe/Berlin: leaderboard days and new daily quizzes use it"
    )
    @app_commands.autocomplete(zone=zone_autocomplete)
    @moderator_only()
    async def config_timezone(
        self, interaction: Interaction, zone: app_commands.Transform[str, Text("zone")]
    ) -> None:
        guild_id = guild_id_of(interaction)
        name = resolve_zone(zone)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, timezone=name)
            await responder.send(
                content=(
                    f"Time zone set to **{name}**. Leaderboard days and weeks, and new daily "
                    "quizzes, use it; existing daily quizzes keep the zone they were made with."
                )
            )

    @config.command(name="modrole", description="The role whose members count as moderators.")
    @app_commands.describe(
        role="Its members may use /schedule, /config, /insights and /bank (empty: none)"
    )
    @moderator_only()
    async def config_modrole(
        self,
        interaction: Interaction,
        role: app_commands.Transform[discord.Role, ServerRole("role")] | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(
                guild_id, mod_role_id=role.id if role else None
            )
            text = (
                f"Members with {role.mention} now count as moderators."
                if role
                else "No moderator role: only members with Manage Server are moderators."
            )
            await responder.send(content=text)

    @config.command(name="posting", description="Who may post quizzes with /quiz.")
    @app_commands.describe(policy="anyone, or only moderators")
    @moderator_only()
    async def config_posting(self, interaction: Interaction, policy: PostPolicyParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, post_policy=policy.value)
            who = "Anyone" if policy is PostPolicy.ANYONE else "Only moderators"
            await responder.send(content=f"{who} may post quizzes with /quiz.")


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ConfigCog(bot))
