"""/config: a server's settings at a glance, and its time zone, moderator role, who may post
with /quiz and the channels' posting cooldown (moderators)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.checks import moderator_group, moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import ServerRole, Text, ValueChoices, WholeNumber, zone_autocomplete
from bot.discord_ui.replies import Reply
from bot.quiz.rules import MAX_COOLDOWN_SECONDS, PostPolicy
from bot.schedule.zones import known_zones, resolve_zone
from bot.store import GuildConfigInfo
from bot.wording import plural

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
PostPolicyParam = app_commands.Transform[PostPolicy, ValueChoices(PostPolicy, "policy")]
CooldownParam = app_commands.Transform[int, WholeNumber("seconds", 0, MAX_COOLDOWN_SECONDS)]
DEFAULT_COOLDOWN = GuildConfigInfo(0).cooldown_seconds


def cooldown_text(seconds: int) -> str:
    if seconds == 0:
        return "none: `/quiz` may post in a channel at any time"
    return f"{plural(seconds, 'second', bold=True)} between `/quiz` posts in one channel"


def settings_embed(
    config: GuildConfigInfo, zone: str, *, schedules: int, banks: int
) -> discord.Embed:
    """`/config show`: every setting (`zone`: the one in use, the host's default when none is
    set), how to change it, and the server's daily quizzes and banks."""
    embed = discord.Embed(title="⚙️ This server's settings", colour=discord.Colour.blurple())
    where = "" if config.timezone else " (the bot's default: none set here)"
    embed.add_field(name="Time zone", value=f"**{zone}**{where} · `/config timezone`", inline=False)
    # @everyone (the server's id), stored before `/config modrole` refused it, names no one.
    named = config.mod_role_id not in (None, config.guild_id)
    role = f"<@&{config.mod_role_id}> and " if named else ""
    embed.add_field(
        name="Moderators",
        value=f"{role}members with Manage Server · `/config modrole`",
        inline=False,
    )
    who = "anyone" if config.post_policy == PostPolicy.ANYONE else "moderators only"
    embed.add_field(
        name="Who may post with /quiz", value=f"{who} · `/config posting`", inline=False
    )
    embed.add_field(
        name="Cooldown",
        value=f"{cooldown_text(config.cooldown_seconds)} · `/config cooldown`",
        inline=False,
    )
    embed.add_field(name="Daily quizzes", value=f"**{schedules}** · `/schedule list`")
    embed.add_field(name="Own banks", value=f"**{banks}** · `/bank list`")
    return embed


class ConfigCog(commands.Cog):
    config = moderator_group("config", "This server's quiz settings (moderators).")

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        # Listing tzdata reads the disk: do it once, off the loop, not in the first autocomplete.
        await asyncio.to_thread(known_zones)

    @config.command(name="show", description="This server's settings at a glance.")
    @moderator_only()
    async def config_show(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        service = self.bot.service
        async with Responder(interaction) as responder:
            config = await service.guild_config(guild_id)
            zone = await service.zone(guild_id)
            schedules = await self.bot.scheduler.schedules_of(guild_id)
            banks = await service.list_banks(guild_id)
            embed = settings_embed(config, zone.key, schedules=len(schedules), banks=len(banks))
            await responder.send(Reply(embeds=(embed,)))

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

    @config.command(name="cooldown", description="How long /quiz waits between posts in a channel.")
    @app_commands.describe(
        seconds=f"0 (no wait) to {MAX_COOLDOWN_SECONDS}; the default is {DEFAULT_COOLDOWN}"
    )
    @moderator_only()
    async def config_cooldown(self, interaction: Interaction, seconds: CooldownParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, cooldown_seconds=seconds)
            await responder.send(content=f"Cooldown: {cooldown_text(seconds)}, from now on.")


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ConfigCog(bot))
