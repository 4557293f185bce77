"""/help: the commands this member may use here, grouped, one line each. Read from the
command tree, so each line is the command's own name, options and description (the catalog's
translation of it, which the Translator serves Discord too: one text, one owner)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import discord
from discord import app_commands
from discord.ext import commands

from bot.discord_ui.checks import is_moderator
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.replies import Reply
from bot.i18n import N_, _
from bot.quiz.errors import NotModeratorError
from bot.quiz.rules import check_may_post

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
TreeCommand: TypeAlias = app_commands.Command[Any, ..., Any] | app_commands.Group

# TRANSLATORS: /help's section headings.
PLAY: Final = N_("Play")
PRACTICE: Final = N_("Practice & review")
PROGRESS: Final = N_("Progress")
MORE: Final = N_("More")
MODERATORS: Final = N_("Moderators")
ORDER: Final = (PLAY, PRACTICE, PROGRESS, MORE, MODERATORS)
SECTIONS: Final[dict[str, str]] = {
    "quiz": PLAY,
    "hint": PLAY,
    "solution": PLAY,
    "topics": PLAY,
    "practice": PRACTICE,
    "review": PRACTICE,
    "reminders": PRACTICE,
    "leaderboard": PROGRESS,
    "stats": PROGRESS,
    "mydata": PROGRESS,
}
"""The section of each member command (by its top-level name). Moderators' commands, those
Discord shows only with default permissions, go under MODERATORS whatever their name; one
missing here goes under MORE (tests/discord_ui/test_help.py keeps the shipped ones out)."""
POSTING: Final = "quiz"
"""The command `/config posting mods` keeps to moderators."""


def usage(command: app_commands.Command[Any, ..., Any]) -> str:
    """`/quiz [topic] [difficulty] [task]`: optional options in brackets."""
    names = [p.display_name if p.required else f"[{p.display_name}]" for p in command.parameters]
    return " ".join([f"/{command.qualified_name}", *names])


def for_moderators(command: app_commands.Command[Any, ..., Any]) -> bool:
    """Hidden by Discord behind default permissions (only a top-level command has them)."""
    return (command.root_parent or command).default_permissions is not None


def leaves(top: TreeCommand) -> Iterator[app_commands.Command[Any, ..., Any]]:
    if isinstance(top, app_commands.Group):
        for command in top.walk_commands():
            if isinstance(command, app_commands.Command):
                yield command
    else:
        yield top


def help_sections(
    tree: Iterable[TreeCommand], *, moderator: bool, may_post: bool, running: str
) -> dict[str, list[str]]:
    """Each section's lines, in ORDER, without empty sections or the `running` command;
    members' commands in SECTIONS' order, moderators' in the tree's. Sections are keyed by
    their English names; descriptions are in the current locale."""
    sections: dict[str, list[str]] = {name: [] for name in ORDER}
    listed = list(SECTIONS)
    for top in sorted(tree, key=lambda c: listed.index(c.name) if c.name in listed else 0):
        if top.name == running or (top.name == POSTING and not may_post):
            continue
        for command in leaves(top):
            if for_moderators(command):
                if not moderator:
                    continue
                section = MODERATORS
            else:
                section = SECTIONS.get(top.name, MORE)
            # The description's msgid is the command's own (bot/discord_ui/command_strings.py).
            sections[section].append(f"`{usage(command)}` — {_(command.description)}")
    return {name: lines for name, lines in sections.items() if lines}


def help_embed(sections: dict[str, list[str]], *, moderator: bool, may_post: bool) -> discord.Embed:
    blocks = [f"**{_(name)}**\n" + "\n".join(lines) for name, lines in sections.items()]
    embed = discord.Embed(
        title=_("❓ Commands you can use here"),
        description="\n\n".join(blocks),
        colour=discord.Colour.blurple(),
    )
    notes = [_("Replies about your own answers, hints, practice and data are private.")]
    if not may_post:
        notes.append(_("In this server only moderators post quizzes with /quiz."))
    if moderator:
        # TRANSLATORS: "Moderators" is the /help section heading of that name.
        notes.append(_("You are a moderator here: the Moderators commands are yours."))
    embed.set_footer(text=" ".join(notes))
    return embed


class HelpCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="The commands you may use here, grouped.")
    @app_commands.guild_only()
    async def help(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            moderator = await is_moderator(interaction)
            config = await self.bot.service.guild_config(guild_id)
            may_post = True
            try:
                check_may_post(config.post_policy, moderator)
            except NotModeratorError:
                may_post = False
            sections = help_sections(
                self.bot.tree.get_commands(type=discord.AppCommandType.chat_input),
                moderator=moderator,
                may_post=may_post,
                running=self.help.name,
            )
            embed = help_embed(sections, moderator=moderator, may_post=may_post)
            await responder.send(Reply(embeds=(embed,)))


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(HelpCog(bot))
