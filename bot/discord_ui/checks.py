"""Server-side permission checks. `default_permissions` only hides commands in the client;
a crafted interaction can still arrive, so every moderator command calls these when it runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import discord
from discord import app_commands

from bot.quiz.errors import NotModeratorError

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot


class ModeratorCheckFailure(app_commands.CheckFailure):
    """The domain's NotModeratorError (`refusal`, which the reply translates), as the check
    failure discord.py routes to `on_error` (a check that raises anything else escapes the
    command tree's error handling)."""

    def __init__(self) -> None:
        self.refusal = NotModeratorError()
        super().__init__(str(self.refusal))


async def is_moderator(interaction: discord.Interaction[QuizBot]) -> bool:
    """Manage Server (or Administrator) as Discord computed it for this member, or the mod role."""
    member = interaction.user
    if interaction.guild is None or not isinstance(member, discord.Member):
        return False
    perms = interaction.permissions
    if perms.manage_guild or perms.administrator:
        return True
    config = await interaction.client.service.guild_config(interaction.guild.id)
    # @everyone (the server's own id) names no one in particular: `/config modrole` refuses
    # it, and one stored before that check makes no member a moderator.
    if config.mod_role_id in (None, interaction.guild.id):
        return False
    return any(r.id == config.mod_role_id for r in member.roles)


MANAGE_GUILD = discord.Permissions(manage_guild=True)


def moderator_group(name: str, description: str) -> app_commands.Group:
    """A server-only command group shown to moderators. Hiding is a client convenience only:
    each of its commands also carries `moderator_only`, which is what enforces it."""
    return app_commands.Group(
        name=name, description=description, guild_only=True, default_permissions=MANAGE_GUILD
    )


Decorated = TypeVar("Decorated")
"""What `moderator_only` decorates: a command or its callback, handed back as it came."""


def moderator_only() -> Callable[[Decorated], Decorated]:
    """An app-command check: refuse, with a clear private message, anyone else; in a DM
    (a crafted payload: the groups are server-only), say it only works in a server rather
    than tell a moderator they are not one."""

    async def predicate(interaction: discord.Interaction[QuizBot]) -> bool:
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        if await is_moderator(interaction):
            return True
        raise ModeratorCheckFailure()

    return app_commands.check(predicate)
