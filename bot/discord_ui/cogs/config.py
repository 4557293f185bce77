"""/config: a server's settings at a glance, and its time zone, moderator role, who may post
with /quiz, the channels' posting cooldown and the language of its public messages
(moderators)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.checks import moderator_group, moderator_only
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.params import (
    Checked,
    ServerRole,
    Text,
    ValueChoices,
    WholeNumber,
    zone_autocomplete,
)
from bot.discord_ui.replies import Reply
from bot.i18n import DISPLAY_NAMES, N_, SHIPPED_LOCALES, _, formats, ngettext
from bot.quiz.errors import InvalidInputError
from bot.quiz.rules import MAX_COOLDOWN_SECONDS, PostPolicy
from bot.schedule.zones import known_zones, resolve_zone
from bot.store import GuildConfigInfo

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
PostPolicyParam = app_commands.Transform[PostPolicy, ValueChoices(PostPolicy, "policy")]
CooldownParam = app_commands.Transform[int, WholeNumber("seconds", 0, MAX_COOLDOWN_SECONDS)]
DEFAULT_COOLDOWN = GuildConfigInfo(0).cooldown_seconds
FOLLOW: Final = "member"
"""/config language's value for no server language (stored as NULL)."""
FOLLOW_NAME: Final = N_("Follow each member")


class Language(Checked):
    """A shipped locale, offered by its name in itself ("Deutsch"), or FOLLOW; the command
    receives the locale, or None for FOLLOW."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        # A language's own name is the same in every language: not sent for translation.
        named: list[app_commands.Choice[int | float | str]] = [
            app_commands.Choice(
                name=app_commands.locale_str(DISPLAY_NAMES[locale], translate=False), value=locale
            )
            for locale in SHIPPED_LOCALES
        ]
        return [*named, app_commands.Choice(name=FOLLOW_NAME, value=FOLLOW)]

    async def transform(self, interaction: Interaction, value: Any, /) -> str | None:
        if value == FOLLOW:
            return None
        if value not in SHIPPED_LOCALES:
            raise InvalidInputError(
                self.option, N_("The `{option}` option takes one of the languages offered.")
            )
        return str(value)


LanguageParam = app_commands.Transform[str | None, Language("language")]


def language_text(configured: str | None, public: str) -> str:
    """/config show's line: the server language, or what public messages speak without one."""
    if configured is not None:
        return f"**{DISPLAY_NAMES[configured]}**"
    return _("none: public messages in **{language}**, private replies in each member's").format(
        language=DISPLAY_NAMES[public]
    )


def cooldown_text(seconds: int) -> str:
    """/config show's line for the channels' cooldown."""
    if seconds == 0:
        return _("none: `/quiz` may post in a channel at any time")
    return ngettext(
        "**{n}** second between `/quiz` posts in one channel",
        "**{n}** seconds between `/quiz` posts in one channel",
        seconds,
    ).format(n=formats.number(seconds))


def cooldown_set(seconds: int) -> str:
    """/config cooldown's reply: a sentence of its own, not `cooldown_text` inside another."""
    if seconds == 0:
        return _("Cooldown: none: `/quiz` may post in a channel at any time, from now on.")
    return ngettext(
        "Cooldown: **{n}** second between `/quiz` posts in one channel, from now on.",
        "Cooldown: **{n}** seconds between `/quiz` posts in one channel, from now on.",
        seconds,
    ).format(n=formats.number(seconds))


def settings_embed(
    config: GuildConfigInfo, zone: str, *, schedules: int, banks: int, public_locale: str = "en"
) -> discord.Embed:
    """`/config show`: every setting (`zone`: the one in use, the host's default when none is
    set; `public_locale`: what public messages speak), how to change it, and the server's
    daily quizzes and banks."""
    # TRANSLATORS: an embed's title (at most 256 characters).
    title = _("⚙️ This server's settings")
    embed = discord.Embed(title=title, colour=discord.Colour.blurple())
    if config.timezone:
        shown_zone = f"**{zone}**"
    else:
        shown_zone = _("**{zone}** (the bot's default: none set here)").format(zone=zone)
    embed.add_field(name=_("Time zone"), value=f"{shown_zone} · `/config timezone`", inline=False)
    # @everyone (the server's id), stored before `/config modrole` refused it, names no one.
    if config.mod_role_id not in (None, config.guild_id):
        # TRANSLATORS: "Manage Server" is Discord's permission, as Discord names it.
        moderators = _("{role} and members with Manage Server").format(
            role=f"<@&{config.mod_role_id}>"
        )
    else:
        # TRANSLATORS: "Manage Server" is Discord's permission, as Discord names it.
        moderators = _("members with Manage Server")
    embed.add_field(name=_("Moderators"), value=f"{moderators} · `/config modrole`", inline=False)
    who = _("anyone") if config.post_policy == PostPolicy.ANYONE else _("moderators only")
    embed.add_field(
        name=_("Who may post with /quiz"), value=f"{who} · `/config posting`", inline=False
    )
    embed.add_field(
        name=_("Cooldown"),
        value=f"{cooldown_text(config.cooldown_seconds)} · `/config cooldown`",
        inline=False,
    )
    embed.add_field(
        name=_("Language"),
        value=f"{language_text(config.language, public_locale)} · `/config language`",
        inline=False,
    )
    embed.add_field(
        name=_("Daily quizzes"), value=f"**{formats.number(schedules)}** · `/schedule list`"
    )
    # TRANSLATORS: the banks this server's moderators uploaded, as opposed to the shipped ones.
    embed.add_field(name=_("Own banks"), value=f"**{formats.number(banks)}** · `/bank list`")
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
            public = await self.bot.languages.public_locale(guild_id)
            embed = settings_embed(
                config, zone.key, schedules=len(schedules), banks=len(banks), public_locale=public
            )
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
            text = _(
                "Time zone set to **{zone}**. Leaderboard days and weeks, and new daily "
                "quizzes, use it; existing daily quizzes keep the zone they were made with."
            ).format(zone=name)
            await responder.send(content=text)

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
            if role:
                text = _("Members with {role} now count as moderators.").format(role=role.mention)
            else:
                # TRANSLATORS: "Manage Server" is Discord's permission, as Discord names it.
                text = _("No moderator role: only members with Manage Server are moderators.")
            await responder.send(content=text)

    @config.command(name="posting", description="Who may post quizzes with /quiz.")
    @app_commands.describe(policy="anyone, or only moderators")
    @moderator_only()
    async def config_posting(self, interaction: Interaction, policy: PostPolicyParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, post_policy=policy.value)
            if policy is PostPolicy.ANYONE:
                text = _("Anyone may post quizzes with /quiz.")
            else:
                text = _("Only moderators may post quizzes with /quiz.")
            await responder.send(content=text)

    @config.command(name="cooldown", description="How long /quiz waits between posts in a channel.")
    @app_commands.describe(
        seconds=f"0 (no wait) to {MAX_COOLDOWN_SECONDS}; the default is {DEFAULT_COOLDOWN}"
    )
    @moderator_only()
    async def config_cooldown(self, interaction: Interaction, seconds: CooldownParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, cooldown_seconds=seconds)
            await responder.send(content=cooldown_set(seconds))

    @config.command(name="language", description="The language of this server's public messages.")
    @app_commands.describe(
        language="Task posts, daily quizzes, leaderboards; private replies follow each member"
    )
    @moderator_only()
    async def config_language(self, interaction: Interaction, language: LanguageParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            await self.bot.service.update_guild_config(guild_id, language=language)
            self.bot.languages.remember(guild_id, language)
            if language is None:
                public = await self.bot.languages.public_locale(guild_id)
                text = _(
                    "No server language: public messages follow the server's own Discord "
                    "language, **{language}** now. Private replies follow each member's."
                ).format(language=DISPLAY_NAMES[public])
            else:
                text = _(
                    "Public messages here now speak **{language}**: task posts, daily quizzes, "
                    "leaderboards. Private replies follow each member's Discord language."
                ).format(language=DISPLAY_NAMES[language])
            await responder.send(content=text)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(ConfigCog(bot))
