"""/quiz, /hint and /solution."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.discord_ui.checks import is_moderator
from bot.discord_ui.clicks import Responder, guild_id_of
from bot.discord_ui.error_texts import (
    MissingChannelPermissions,
    PostCooldownError,
    missing_post_permissions,
)
from bot.discord_ui.params import (
    CHOICE_NAME,
    MAX_CHOICES,
    DifficultyParam,
    TaskParam,
    TopicParam,
    topic_autocomplete,
    typed,
)
from bot.discord_ui.post_view import offer_solution, send_hint
from bot.discord_ui.posting import post_task
from bot.i18n import _
from bot.quiz import refs
from bot.quiz.errors import NothingPostedError, UnknownPostError
from bot.quiz.rules import check_may_post
from bot.quiz.tasks import Difficulty, Task

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot
    from bot.service import PostedTask

Interaction = discord.Interaction["QuizBot"]
TASK_DEFAULT = "A task posted in this server; default: your practice task, else the latest here"


def difficulty_name(difficulty: Difficulty) -> str:
    """"easy" in the current locale: the msgid is the /quiz difficulty choice's own."""
    return _(difficulty.value)


def task_choice_name(task: Task) -> str:
    return rendering.truncate(
        f"{task.id} · {difficulty_name(task.difficulty)} · {rendering.plain_task_title(task)}",
        CHOICE_NAME,
    )


def posted_choice_name(posted: PostedTask) -> str:
    return rendering.truncate(
        f"#{posted.post.id} · {posted.task.id} · {rendering.plain_task_title(posted.task)}",
        CHOICE_NAME,
    )


class QuizCog(commands.Cog):
    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    # -- /quiz ---------------------------------------------------------------------------------

    @app_commands.command(name="quiz", description="Post a practice task in this channel.")
    @app_commands.guild_only()
    @app_commands.describe(
        topic="Only tasks of this topic",
        difficulty="Only tasks of this difficulty",
        task="A specific task (by id)",
    )
    @app_commands.autocomplete(topic=topic_autocomplete)
    async def quiz(
        self,
        interaction: Interaction,
        topic: TopicParam | None = None,
        difficulty: DifficultyParam | None = None,
        task: TaskParam | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        channel = interaction.channel
        channel_id = interaction.channel_id or 0
        # Checked before anything else: a post that Discord refuses would leave a dead row.
        missing = missing_post_permissions(
            interaction.app_permissions, thread=isinstance(channel, discord.Thread)
        )
        if missing:
            raise MissingChannelPermissions(missing)
        # Posting takes several database and Discord round trips: acknowledge first.
        await interaction.response.defer(ephemeral=True, thinking=True)

        service = self.bot.service
        config = await service.guild_config(guild_id)
        check_may_post(config.post_policy, await is_moderator(interaction))
        chosen = service.choose_task(guild_id, topic or None, difficulty, task)  # "" is no topic
        wait = self.bot.cooldowns.claim(channel_id, config.cooldown_seconds)
        if wait:
            raise PostCooldownError(wait)
        try:
            posted = await service.create_post(guild_id, channel_id, chosen, interaction.user.id)
            target = (
                channel
                if isinstance(channel, discord.abc.Messageable)
                else self.bot.get_partial_messageable(channel_id, guild_id=guild_id)
            )
            message = await post_task(self.bot, target, posted)
        except BaseException:
            self.bot.cooldowns.release(channel_id)
            raise
        await interaction.followup.send(
            _("Posted {task} ({difficulty}): {link}").format(
                task=rendering.bold(rendering.task_title(chosen)),
                difficulty=difficulty_name(chosen.difficulty),
                link=message.jump_url,
            ),
            ephemeral=True,
        )

    @quiz.autocomplete("task")
    async def task_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        namespace = interaction.namespace
        topic = typed(namespace.topic) or None
        level = next((d for d in Difficulty if d.value == namespace.difficulty), None)
        needle = typed(current).casefold()
        return [
            app_commands.Choice(name=task_choice_name(t), value=t.id)
            for t in self.bot.service.catalog_for(interaction.guild_id).select(topic, level)
            if needle in t.id.casefold()
        ][:MAX_CHOICES]

    # -- /hint and /solution ---------------------------------------------------------------------

    async def resolve(self, interaction: Interaction, task: str | None) -> PostedTask:
        """The chosen post (an autocomplete value is its id); else the task of the member's
        live practice or review session (the one they are looking at: a hint typed there must
        not cost points on a public post); else this channel's latest post."""
        service = self.bot.service
        guild_id = guild_id_of(interaction)
        ref = refs.post_ref(task)
        if ref is None:
            current = await service.sessions.current_task(guild_id, interaction.user.id)
            if current is not None:
                return current
            latest = await service.latest_posted(guild_id, interaction.channel_id or 0)
            if latest is None:
                raise NothingPostedError()
            return latest
        if isinstance(ref, int):
            return await service.posted(ref, guild_id)
        # Typed text instead of a picked suggestion: take the best match, as the list would.
        found = await service.search_posts(guild_id, ref, 1)
        if not found:
            raise UnknownPostError("no posted task matches the text typed")
        return found[0]

    async def posted_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        text = refs.search_text(typed(current))
        found = await self.bot.service.search_posts(interaction.guild_id, text, MAX_CHOICES)
        return [
            app_commands.Choice(name=posted_choice_name(p), value=str(p.post.id)) for p in found
        ]

    @app_commands.command(name="hint", description="A private hint (it halves the points).")
    @app_commands.guild_only()
    @app_commands.describe(task=TASK_DEFAULT)
    async def hint(self, interaction: Interaction, task: TaskParam | None = None) -> None:
        async with Responder(interaction) as responder:
            posted = await self.resolve(interaction, task)
            await send_hint(interaction, responder, posted.post.id)

    @app_commands.command(name="solution", description="The worked solution, privately.")
    @app_commands.guild_only()
    @app_commands.describe(task=TASK_DEFAULT)
    async def solution(self, interaction: Interaction, task: TaskParam | None = None) -> None:
        async with Responder(interaction) as responder:
            posted = await self.resolve(interaction, task)
            await offer_solution(interaction, responder, posted.post.id)

    hint.autocomplete("task")(posted_autocomplete)
    solution.autocomplete("task")(posted_autocomplete)


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(QuizCog(bot))
