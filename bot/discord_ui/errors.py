"""Every failure in a handler ends as a private reply; the unexpected ones are also logged.

Domain errors (`QuizError`), refused checks and missing channel permissions are the member's
business and get a friendly sentence. Anything else is our bug: the member is told it has been
logged, and the traceback goes to the log with enough context to find the interaction again.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.discord_ui.checks import ModeratorCheckFailure
from bot.quiz.errors import (
    AttemptLimitError,
    InvalidAnswerError,
    NoMatchingTaskError,
    PostClosedError,
    QuizError,
    StoreBusyError,
    StoreUnavailableError,
    UnknownPostError,
    UnknownTaskError,
)
from bot.quiz.tasks import MAX_ATTEMPTS

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

PUBLIC_DEFERRAL = "quizbot_public_deferral"
"""Set in Interaction.extras when a public reply was deferred: its first follow-up would
replace the public "thinking…" message, so an error reply must not use it."""

log = logging.getLogger(__name__)

SOMETHING_WENT_WRONG = "Something went wrong; it has been logged."
CLOSED = "This quiz has closed, so it takes no more answers. You can still see the solution."

# The channel permissions a task post needs, with the names Discord's settings screen uses.
POST_PERMISSIONS: dict[str, str] = {
    "view_channel": "View Channel",
    "send_messages": "Send Messages",
    "embed_links": "Embed Links",
    "read_message_history": "Read Message History",
}


class MissingChannelPermissions(app_commands.AppCommandError):
    """The bot may not post (or embed) in the channel; `missing` holds the permission names."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        names = ", ".join(f"**{name}**" for name in missing)
        super().__init__(
            f"I can't post a quiz in this channel: I'm missing the {names} "
            f"permission{'s' if len(missing) > 1 else ''} here. A server admin can grant "
            "it in the channel settings."
        )


class PostCooldownError(app_commands.AppCommandError):
    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(
            "A quiz was posted in this channel moments ago. Give everyone a chance to answer "
            f"it, and try again in {max(1, round(retry_after))} s."
        )


def missing_post_permissions(perms: discord.Permissions, *, thread: bool = False) -> list[str]:
    """The POST_PERMISSIONS the bot lacks; in a thread, posting needs Send Messages in Threads."""
    needed = dict(POST_PERMISSIONS)
    if thread:
        del needed["send_messages"]
        needed["send_messages_in_threads"] = "Send Messages in Threads"
    return [name for attr, name in needed.items() if not getattr(perms, attr)]


def unwrap(error: BaseException) -> BaseException:
    """The exception the handler raised, not discord.py's wrapper around it."""
    while isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    return error


def friendly_message(error: BaseException) -> str | None:
    """The sentence a member gets for an expected failure; None for a bug."""
    match error:
        case PostClosedError():
            return CLOSED
        case UnknownPostError():
            return "I can't find that quiz in this server. Pick one from the list, perhaps?"
        case NoMatchingTaskError():
            return f"I couldn't find a matching task: {error} Try another topic or difficulty."
        case UnknownTaskError():
            return f"I couldn't find a matching task ({error}). Try another topic or difficulty."
        case InvalidAnswerError():
            return "That answer doesn't fit this task's options. Try the buttons on the post."
        case AttemptLimitError():
            return f"You've used all {MAX_ATTEMPTS} attempts on this one."
        case StoreBusyError() | StoreUnavailableError():
            return str(error)  # what the member lost, worded by the error itself
        case QuizError():
            return str(error) or "That didn't work, sorry."
        case app_commands.NoPrivateMessage():
            return "This command only works in a server."
        case MissingChannelPermissions() | PostCooldownError() | ModeratorCheckFailure():
            return str(error)
        case app_commands.CheckFailure():
            return "You can't use that command here."
        case app_commands.TransformerError():
            return f"I couldn't understand {error.value!r} for that option."
        case discord.Forbidden():
            return (
                "Discord didn't let me do that here: I'm missing a permission in this "
                "channel (I need View Channel, Send Messages, Embed Links and Read Message "
                "History)."
            )
    return None


def describe(interaction: discord.Interaction[Any]) -> str:
    """What the member did: the slash command or the component's custom_id."""
    command = interaction.command
    if command is not None:
        return f"/{command.qualified_name}"
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    return f"component {custom_id!r}" if custom_id else f"interaction type {interaction.type!r}"


def context(interaction: discord.Interaction[Any]) -> str:
    user = interaction.user.id if interaction.user else None
    return (
        f"{describe(interaction)} (guild={interaction.guild_id} "
        f"channel={interaction.channel_id} user={user} interaction={interaction.id})"
    )


async def send_private(interaction: discord.Interaction[Any], content: str) -> None:
    """Best effort: the interaction may have expired, and a failure here must not cascade."""
    try:
        if interaction.response.is_done():
            if interaction.extras.get(PUBLIC_DEFERRAL):
                # The first follow-up would take over the public "thinking…" message.
                with contextlib.suppress(discord.HTTPException):
                    await interaction.delete_original_response()
            await interaction.followup.send(content, ephemeral=True)
        else:
            await interaction.response.send_message(content, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not send an error reply for %s", context(interaction), exc_info=True)


async def report(interaction: discord.Interaction[QuizBot], error: BaseException) -> None:
    """Answer the member privately; log bugs (and refused Discord calls) with their context."""
    error = unwrap(error)
    message = friendly_message(error)
    if message is None:
        log.error("unhandled error in %s", context(interaction), exc_info=error)
        message = SOMETHING_WENT_WRONG
    elif isinstance(error, discord.HTTPException):
        log.warning("Discord refused a call in %s: %s", context(interaction), error)
    await send_private(interaction, message)


class QuizTree(app_commands.CommandTree["QuizBot"]):
    async def on_error(
        self, interaction: discord.Interaction[QuizBot], error: app_commands.AppCommandError, /
    ) -> None:
        await report(interaction, error)


class QuizView(discord.ui.View):
    """A timeout-free view whose failures reach the member.

    Our buttons are DynamicItems, which discord.py 2.7 dispatches outside the view (errors in
    their callbacks are only logged by the library), so each DynamicItem also guards its own
    callback; this hook covers anything dispatched through the view itself.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(
        self,
        interaction: discord.Interaction[QuizBot],  # type: ignore[override]
        error: Exception,
        item: discord.ui.Item[Any],
        /,
    ) -> None:
        await report(interaction, error)


class Guarded:
    """Mixin for our DynamicItems (list it first): run `handle`, report any failure privately.

    discord.py only logs an exception from a DynamicItem's callback, leaving the member's
    click unanswered ("This interaction failed"); this makes every failure a reply.
    """

    async def callback(self, interaction: discord.Interaction[QuizBot]) -> None:
        try:
            await self.handle(interaction)
        except Exception as exc:
            await report(interaction, exc)

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        raise NotImplementedError


def guild_id_of(interaction: discord.Interaction[Any]) -> int:
    """Quizzes live in servers; a DM (or a user-installed context) has none."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


def member_name(interaction: discord.Interaction[Any]) -> str:
    return interaction.user.display_name
