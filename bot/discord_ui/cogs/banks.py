"""/bank: the banks a server's moderators upload, served in that server only. Checking a file
is bot/content/uploads.py's, storing it the service's; this reads the attachment.

The replies speak the moderator's language; the content problems and import notes they quote
stay English: bot/content writes them for the CLI too, and a bank is not translated."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot import rendering
from bot.content.safety import topic_problem
from bot.content.uploads import MAX_UPLOAD_TASKS, UploadedBank, size_problem
from bot.discord_ui.checks import moderator_group, moderator_only
from bot.discord_ui.clicks import NO_CONNECTION, Responder, context, guild_id_of
from bot.discord_ui.error_texts import translated
from bot.discord_ui.params import Text, TopicParam, typed
from bot.i18n import _, formats, ngettext
from bot.quiz.errors import BankRefusedError

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

Interaction = discord.Interaction["QuizBot"]
BankNameParam = app_commands.Transform[str, Text("name")]
MAX_CHOICES = 25
INLINE_LIMIT = 1_800
"""A refusal longer than this goes as an attached text file."""
TOPICS_LIMIT = 400
"""The topics named in the reply to an upload: a course's bank may have a hundred, and the
notes that follow need the rest of the message."""


log = logging.getLogger(__name__)


async def _download(file: discord.Attachment, interaction: Interaction) -> bytes:
    """The attachment's bytes. A download that fails (an expired link, Discord's outage, a
    lost connection) is logged and refused as the moderator's to retry, not a bug."""
    try:
        return await file.read()
    except (discord.HTTPException, *NO_CONNECTION) as exc:
        log.warning("could not download %r in %s: %s", file.filename, context(interaction), exc)
        if isinstance(exc, discord.HTTPException):
            problem = _(
                "I couldn't download the file (Discord answered {status}): upload it again"
            ).format(status=exc.status)
        else:
            problem = _(
                "I couldn't download the file (the connection to Discord failed): upload it again"
            )
        raise BankRefusedError(file.filename, [problem]) from None


def refusal(error: BankRefusedError) -> tuple[str, discord.File | None]:
    """The reply to a refused upload: every problem inline, or in `problems.txt` when long."""
    lines = "\n".join(error.problems)
    count = len(error.problems)
    stored = translated(error)  # "'a.yaml' was not stored: 2 problems."
    fix = ngettext("Fix it and upload it again:", "Fix these and upload it again:", count)
    text = f"{stored} {fix}\n```\n{lines}\n```"
    if len(text) <= INLINE_LIMIT:
        return text, None
    file = discord.File(io.BytesIO((lines + "\n").encode()), filename="problems.txt")
    attached = ngettext(
        "Fix it and upload it again: it is in the attached file, with its line.",
        "Fix these and upload it again: every problem, with its line, is in the attached file.",
        count,
    )
    return f"{stored} {attached}", file


def accepted(uploaded: UploadedBank, replaced: bool) -> str:
    """The reply to a stored upload, in one message however many topics and notes it has."""
    topics = ", ".join(rendering.truncate(t, 60) for t in sorted({t.topic for t in uploaded.tasks}))
    count = len(uploaded.tasks)
    values = {
        "name": uploaded.name,
        "n": formats.number(count),
        "format": uploaded.fmt,
        "topics": rendering.truncate(topics, TOPICS_LIMIT),
    }
    if replaced:
        # TRANSLATORS: {format} is the file's format (gift, yaml...); {topics} the bank's topics.
        head = ngettext(
            "Replaced bank **{name}**: {n} task ({format}), topic {topics}.",
            "Replaced bank **{name}**: {n} tasks ({format}), topic {topics}.",
            count,
        )
    else:
        # TRANSLATORS: {format} is the file's format (gift, yaml...); {topics} the bank's topics.
        head = ngettext(
            "Added bank **{name}**: {n} task ({format}), topic {topics}.",
            "Added bank **{name}**: {n} tasks ({format}), topic {topics}.",
            count,
        )
    text = (
        head.format(**values)
        + " "
        + _("It serves /quiz, /topics and daily quizzes in this server only.")
    )
    if uploaded.notes:
        notes = len(uploaded.notes)
        left_out = ngettext(
            "{n} question left out or changed:", "{n} questions left out or changed:", notes
        ).format(n=formats.number(notes))
        text += f"\n{left_out}\n```\n"
        budget = INLINE_LIMIT - rendering.discord_len(text)
        text += rendering.truncate("\n".join(uploaded.notes), budget) + "\n```"
    return text


async def send_refusal(interaction: Interaction, error: BankRefusedError) -> None:
    text, attached = refusal(error)
    files = [] if attached is None else [attached]
    if interaction.response.is_done():
        await interaction.followup.send(text, files=files, ephemeral=True)
    else:
        await interaction.response.send_message(text, files=files, ephemeral=True)


class BankCog(commands.Cog):
    bank = moderator_group("bank", "This server's own task banks (moderators).")

    def __init__(self, bot: QuizBot) -> None:
        self.bot = bot

    @bank.command(name="upload", description="Add or replace a bank of this server's own tasks.")
    @app_commands.describe(
        file=f"GIFT, Moodle XML, Aiken, a practice page or our YAML; up to 1 MB and "
        f"{MAX_UPLOAD_TASKS:,} tasks",
        topic="The topic of imported tasks (a YAML bank names its own)",
    )
    @moderator_only()
    async def bank_upload(
        self,
        interaction: Interaction,
        file: discord.Attachment,
        topic: TopicParam | None = None,
    ) -> None:
        guild_id = guild_id_of(interaction)
        try:
            # Refused before a byte is downloaded: Discord says how large the file is.
            too_big = size_problem(file.filename, file.size)
            if too_big:
                raise BankRefusedError(file.filename, [too_big])
            bad_topic = topic and topic_problem(topic)
            if bad_topic:  # before the download, as the size: no file can make it right
                raise BankRefusedError(file.filename, [bad_topic])
            await interaction.response.defer(ephemeral=True, thinking=True)
            data = await _download(file, interaction)
            done = await self.bot.service.upload_bank(
                guild_id, file.filename, data, interaction.user.id, topic=topic or None
            )
        except BankRefusedError as error:
            await send_refusal(interaction, error)
            return
        await interaction.followup.send(accepted(done.bank, done.replaced), ephemeral=True)

    @bank.command(name="list", description="This server's own banks.")
    @moderator_only()
    async def bank_list(self, interaction: Interaction) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            banks = await self.bot.service.list_banks(guild_id)
            if not banks:
                await responder.send(
                    content=_("This server has no banks of its own yet: add one with /bank upload.")
                )
                return
            lines = [
                ngettext(
                    "**{name}**: {n} task, uploaded by {member} {when}",
                    "**{name}**: {n} tasks, uploaded by {member} {when}",
                    b.task_count,
                ).format(
                    name=b.name,
                    n=formats.number(b.task_count),
                    member=f"<@{b.uploaded_by}>",
                    when=f"<t:{int(b.uploaded_at.timestamp())}:R>",
                )
                for b in banks
            ]
            await responder.send(
                content=rendering.truncate("\n".join(lines), rendering.MESSAGE_CONTENT),
                allowed_mentions=discord.AllowedMentions.none(),
            )

    @bank.command(name="download", description="A bank of this server, as our YAML.")
    @app_commands.describe(name="The bank's name (see /bank list)")
    @moderator_only()
    async def bank_download(self, interaction: Interaction, name: BankNameParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            text = await self.bot.service.bank_yaml(guild_id, name)
            file = discord.File(io.BytesIO(text.encode()), filename=f"{name}.yaml")
            await responder.send(content=_("Bank **{name}**:").format(name=name), file=file)

    @bank.command(name="remove", description="Stop serving a bank of this server and delete it.")
    @app_commands.describe(name="The bank's name (see /bank list)")
    @moderator_only()
    async def bank_remove(self, interaction: Interaction, name: BankNameParam) -> None:
        guild_id = guild_id_of(interaction)
        async with Responder(interaction) as responder:
            count = await self.bot.service.remove_bank(guild_id, name)
            removed = ngettext(
                "Removed bank **{name}** ({n} task). Quizzes already posted from it keep working.",
                "Removed bank **{name}** ({n} tasks). Quizzes already posted from it keep working.",
                count,
            )
            await responder.send(content=removed.format(name=name, n=formats.number(count)))

    @bank_download.autocomplete("name")
    @bank_remove.autocomplete("name")
    async def name_autocomplete(
        self, interaction: Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        needle = typed(current).casefold()
        return [
            app_commands.Choice(name=name, value=name)
            for name in self.bot.service.bank_names(interaction.guild_id)
            if needle in name
        ][:MAX_CHOICES]


async def setup(bot: QuizBot) -> None:
    await bot.add_cog(BankCog(bot))
