"""What a member is told when something fails: a sentence per expected failure
(`friendly_message`; None means a bug, which `clicks.report` logs), and typed text quoted back
cut and escaped (`shown`), never trusted on the way back either.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot import rendering
from bot.discord_ui.checks import ModeratorCheckFailure
from bot.quiz.errors import (
    AnswerableElsewhereError,
    AttemptLimitError,
    BlankAnswerError,
    InvalidAnswerError,
    NoMatchingTaskError,
    PostClosedError,
    PrivatePostError,
    QuizError,
    SessionExpiredError,
    StoreBusyError,
    StoreUnavailableError,
    TasksWithheldError,
    UnknownPostError,
    UnknownTaskError,
)
from bot.quiz.tasks import MAX_ATTEMPTS
from bot.wording import plural

SOMETHING_WENT_WRONG = "Something went wrong; it has been logged."
OUT_OF_DATE = (
    "Discord sent this command in a shape I don't know: my commands may be out of date. "
    "Try again in a while, or tell a server admin."
)
QUOTE_LIMIT = 100
"""The most characters of a typed value quoted back in a reply."""
CLOSED = "This quiz has closed, so it takes no more answers. You can still see the solution."

THREAD_ARCHIVED = 50083
"""Discord's error code for a post in an archived (or locked) thread."""
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


def _escaped(text: str) -> str:
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def quoted(value: str) -> str:
    """Typed text as a reply quotes it: cut, in quotes like repr (control characters shown as
    escapes), markdown and mentions escaped."""
    return _escaped(repr(rendering.truncate(value, QUOTE_LIMIT)))


def inline(value: str) -> str:
    """Typed text as a reply shows it within a sentence: cut, control characters replaced,
    markdown and mentions escaped."""
    text = rendering.truncate(value, QUOTE_LIMIT)
    return _escaped("".join(c if c.isprintable() else "\ufffd" for c in text))


def _typed_values(interaction: discord.Interaction[Any]) -> Iterator[str]:
    for _, value in interaction.namespace:
        if isinstance(value, str) and value:
            yield value


def shown(message: str, interaction: discord.Interaction[Any] | None = None) -> str:
    """`message` as it may be sent: the interaction's typed values it quotes with repr shown
    `quoted`, and the whole cut to Discord's limit on a message's content."""
    if interaction is not None and interaction.type is discord.InteractionType.application_command:
        for value in sorted(_typed_values(interaction), key=len, reverse=True):
            message = message.replace(repr(value), quoted(value))
    return rendering.truncate(message, rendering.MESSAGE_CONTENT)


def option_named(interaction: discord.Interaction[Any], kind: discord.AppCommandOptionType) -> str:
    """The command's option of this type (each of ours has at most one user, channel or role
    option), for a refusal of a value discord.py itself could not convert."""
    command = interaction.command
    if isinstance(command, app_commands.Command):
        names = [p.display_name for p in command.parameters if p.type is kind]
        if len(names) == 1:
            return f"`{names[0]}`"
    return f"{kind.name}"


def unusable_value(option: str | None) -> str:
    """The refusal of an option's value that is not one Discord would send (an unresolved
    member, an attachment the payload does not carry)."""
    where = "" if option is None else f" for {option}"
    return f"I can't use that value{where}. Pick one from the list, please."


def friendly_message(
    error: BaseException, interaction: discord.Interaction[Any] | None = None
) -> str | None:
    """The sentence a member gets for an expected failure; None for a bug."""
    match error:
        case PostClosedError():
            return CLOSED
        case UnknownPostError():
            return "I can't find that quiz in this server. Pick one from the list, perhaps?"
        case NoMatchingTaskError():
            topic = inline(error.topic) if error.topic else None
            wanted = " ".join(x for x in (error.difficulty, topic) if x) or "any"
            return (
                f"I couldn't find a matching task: there is no {wanted} task in the loaded "
                "banks. Try another topic or difficulty."
            )
        case UnknownTaskError():
            return f"I couldn't find a matching task ({error}). Try another topic or difficulty."
        case BlankAnswerError():
            return "Pick at least one option first. Nothing was submitted, so no attempt was used."
        case InvalidAnswerError():
            return "That answer doesn't fit this task's options. Try the buttons on the post."
        case AttemptLimitError():
            return f"You've used all {MAX_ATTEMPTS} attempts on this one."
        case TasksWithheldError():
            links = [f"https://discord.com/channels/{g}/{c}/{m}" for g, c, m in error.posts]
            if not links:
                return str(error)
            more = error.total - len(links)
            tail = f" and {plural(more, 'more post')}" if more > 0 else ""
            return f"{error} Start with: {', '.join(links)}{tail}."
        case AnswerableElsewhereError():
            guild, channel, message = error.post
            if message is None:
                return str(error)
            return f"{error} https://discord.com/channels/{guild}/{channel}/{message}"
        case PrivatePostError() | SessionExpiredError():
            return str(error)  # worded by the error: whose task it is, why the session ended
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
            # A value discord.py's own transformers refused (an unresolved member or a voice
            # channel, say): ours raise domain errors, which `unwrap` has taken out.
            return unusable_value(
                None if interaction is None else option_named(interaction, error.type)
            )
        case app_commands.CommandSignatureMismatch() | app_commands.CommandNotFound():
            return OUT_OF_DATE
        case discord.HTTPException() if error.code == THREAD_ARCHIVED:
            return "This thread is archived or locked, so I can't post in it."
        case discord.Forbidden():
            return (
                "Discord didn't let me do that here: I'm missing a permission in this "
                "channel (I need View Channel, Send Messages, Embed Links and Read Message "
                "History)."
            )
        case discord.NotFound():
            return (
                "Discord says this channel (or message) no longer exists, or I can't see it, "
                "so that didn't go through."
            )
        case discord.DiscordServerError():
            return (
                f"Discord had a problem (error {error.status}), so that didn't go through. "
                "Try again in a minute."
            )
        case aiohttp.ClientError():
            return "I couldn't reach Discord just now, so that may not have gone through."
    return None


UNREADABLE = "Discord sent this command with a value I can't read. Pick the options from the lists."
