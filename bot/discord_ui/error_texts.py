"""What a member is told when something fails: a sentence per expected failure
(`friendly_message`; None means a bug, which `clicks.report` logs), in the current locale (the
member's: the entry point set it), and typed text quoted back cut and escaped (`shown`), never
trusted on the way back either.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot import rendering
from bot.discord_ui.checks import ModeratorCheckFailure
from bot.i18n import N_, _, formats, ngettext
from bot.quiz.errors import (
    AnswerableElsewhereError,
    AttemptLimitError,
    BlankAnswerError,
    InvalidAnswerError,
    NoMatchingTaskError,
    PostClosedError,
    QuizError,
    TasksWithheldError,
    UnknownPostError,
    UnknownTaskError,
)
from bot.quiz.tasks import MAX_ATTEMPTS

SOMETHING_WENT_WRONG = N_("Something went wrong; it has been logged.")
OUT_OF_DATE = N_(
    "Discord sent this command in a shape I don't know: my commands may be out of date. "
    "Try again in a while, or tell a server admin."
)
UNREADABLE = N_(
    "Discord sent this command with a value I can't read. Pick the options from the lists."
)
QUOTE_LIMIT = 100
"""The most characters of a typed value quoted back in a reply."""
CLOSED = N_("This quiz has closed, so it takes no more answers. You can still see the solution.")

THREAD_ARCHIVED = 50083
"""Discord's error code for a post in an archived (or locked) thread."""
PERMISSION_NAMES: dict[str, str] = {
    # TRANSLATORS: a channel permission, as Discord's settings screen names it in your language.
    "view_channel": N_("View Channel"),
    "send_messages": N_("Send Messages"),
    "embed_links": N_("Embed Links"),
    "read_message_history": N_("Read Message History"),
    "send_messages_in_threads": N_("Send Messages in Threads"),
    "create_public_threads": N_("Create Public Threads"),
}
"""Channel permissions the bot may need, with the names Discord's settings screen uses (in
English; `permission_name` in the reader's language)."""
POST_PERMISSIONS: dict[str, str] = {
    attr: PERMISSION_NAMES[attr]
    for attr in ("view_channel", "send_messages", "embed_links", "read_message_history")
}
"""The channel permissions a task post needs."""


def permission_name(attr: str) -> str:
    """A `PERMISSION_NAMES` permission as the reader's Discord names it."""
    return _(PERMISSION_NAMES[attr])


class MissingChannelPermissions(app_commands.AppCommandError):
    """The bot may not post (or embed) in the channel; `missing` holds the permission names
    (as `missing_post_permissions` gives them)."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        super().__init__(self.text())

    def text(self) -> str:
        return ngettext(
            "I can't post a quiz in this channel: I'm missing the {permissions} permission "
            "here. A server admin can grant it in the channel settings.",
            "I can't post a quiz in this channel: I'm missing the {permissions} permissions "
            "here. A server admin can grant them in the channel settings.",
            len(self.missing),
        ).format(permissions=", ".join(f"**{name}**" for name in self.missing))


class PostCooldownError(app_commands.AppCommandError):
    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(self.text())

    def text(self) -> str:
        # TRANSLATORS: {seconds} is a number of seconds, "s" their unit.
        return _(
            "A quiz was posted in this channel moments ago. Give everyone a chance to answer "
            "it, and try again in {seconds} s."
        ).format(seconds=formats.number(max(1, round(self.retry_after))))


def missing_post_permissions(perms: discord.Permissions, *, thread: bool = False) -> list[str]:
    """The POST_PERMISSIONS the bot lacks, named in the reader's language; in a thread,
    posting needs Send Messages in Threads."""
    needed = list(POST_PERMISSIONS)
    if thread:
        needed = [attr for attr in needed if attr != "send_messages"]
        needed.append("send_messages_in_threads")
    return [permission_name(attr) for attr in needed if not getattr(perms, attr)]


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
    for _name, value in interaction.namespace:
        if isinstance(value, str) and value:
            yield value


def shown(message: str, interaction: discord.Interaction[Any] | None = None) -> str:
    """`message` as it may be sent: the interaction's typed values it quotes with repr shown
    `quoted`, and the whole cut to Discord's limit on a message's content."""
    if interaction is not None and interaction.type is discord.InteractionType.application_command:
        for value in sorted(_typed_values(interaction), key=len, reverse=True):
            message = message.replace(repr(value), quoted(value))
    return rendering.truncate(message, rendering.MESSAGE_CONTENT)


def _param(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return formats.number(value)
    return value


def translated(error: QuizError) -> str:
    """A domain error's message in the current locale: its template from the catalogs, filled
    with its params (numbers as the locale writes them; `!r` fields still repr, for `shown`)."""
    template = error.template
    if isinstance(template, tuple):
        n = error.params.get("n")
        text = ngettext(template[0], template[1], n if isinstance(n, int) else 0)
    else:
        text = _(template)
    if not error.params:
        return text
    params = {
        name: _(value) if name in error.MESSAGES and isinstance(value, str) else _param(value)
        for name, value in error.params.items()
    }
    return text.format(**params)


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
    if option is None:
        return _("I can't use that value. Pick one from the list, please.")
    # TRANSLATORS: {option} is the option's name, as the command shows it (`member`).
    return _("I can't use that value for {option}. Pick one from the list, please.").format(
        option=option
    )


def _no_matching_task(error: NoMatchingTaskError) -> str:
    # The difficulty is a choice's name ("hard"), translated as the command's choices are.
    difficulty = _(error.difficulty) if error.difficulty else None
    topic = inline(error.topic) if error.topic else None
    if difficulty and topic:
        text = _(
            "I couldn't find a matching task: there is no {difficulty} {topic} task in the "
            "loaded banks. Try another topic or difficulty."
        )
    elif difficulty:
        text = _(
            "I couldn't find a matching task: there is no {difficulty} task in the loaded "
            "banks. Try another topic or difficulty."
        )
    elif topic:
        text = _(
            "I couldn't find a matching task: there is no {topic} task in the loaded banks. "
            "Try another topic or difficulty."
        )
    else:
        text = _(
            "I couldn't find a matching task: the loaded banks have none. Try another topic "
            "or difficulty."
        )
    return text.format(difficulty=difficulty, topic=topic)


def _withheld(error: TasksWithheldError) -> str:
    links = [f"https://discord.com/channels/{g}/{c}/{m}" for g, c, m in error.posts]
    if not links:
        return translated(error)
    more = error.total - len(links)
    if more > 0:
        tail = ngettext(
            "Start with: {links} and {n} more post.",
            "Start with: {links} and {n} more posts.",
            more,
        ).format(links=", ".join(links), n=formats.number(more))
    else:
        tail = _("Start with: {links}.").format(links=", ".join(links))
    return f"{translated(error)} {tail}"


def _quiz_error(error: QuizError) -> str:
    match error:
        case PostClosedError():
            return _(CLOSED)
        case UnknownPostError():
            return _("I can't find that quiz in this server. Pick one from the list, perhaps?")
        case NoMatchingTaskError():
            return _no_matching_task(error)
        case UnknownTaskError(gone=True):
            return _(
                "This quiz's task ({task_id!r}) is no longer in the loaded banks, so I can't "
                "take answers on it or show its hint or solution."
            ).format(task_id=error.task_id)
        case UnknownTaskError():
            return _(
                "I couldn't find a matching task (task {task_id!r} is not in the loaded "
                "banks). Try another topic or difficulty."
            ).format(task_id=error.task_id)
        case BlankAnswerError():
            return _(
                "Pick at least one option first. Nothing was submitted, so no attempt was used."
            )
        case InvalidAnswerError():
            return _("That answer doesn't fit this task's options. Try the buttons on the post.")
        case AttemptLimitError():
            return ngettext(
                "You've used your {n} attempt on this one.",
                "You've used all {n} attempts on this one.",
                MAX_ATTEMPTS,
            ).format(n=formats.number(MAX_ATTEMPTS))
        case TasksWithheldError():
            return _withheld(error)
        case AnswerableElsewhereError():
            guild, channel, message = error.post
            if message is None:
                return translated(error)
            return f"{translated(error)} https://discord.com/channels/{guild}/{channel}/{message}"
    # Worded by the error itself: whose task it is, why a session ended, what a refused
    # database write lost, which option takes what.
    return translated(error) or _("That didn't work, sorry.")


def friendly_message(
    error: BaseException, interaction: discord.Interaction[Any] | None = None
) -> str | None:
    """The sentence a member gets for an expected failure; None for a bug."""
    match error:
        case QuizError():
            return _quiz_error(error)
        case app_commands.NoPrivateMessage():
            return _("This command only works in a server.")
        case MissingChannelPermissions() | PostCooldownError():
            return error.text()
        case ModeratorCheckFailure():
            return translated(error.refusal)
        case app_commands.CheckFailure():
            return _("You can't use that command here.")
        case app_commands.TransformerError():
            # A value discord.py's own transformers refused (an unresolved member or a voice
            # channel, say): ours raise domain errors, which `unwrap` has taken out.
            return unusable_value(
                None if interaction is None else option_named(interaction, error.type)
            )
        case app_commands.CommandSignatureMismatch() | app_commands.CommandNotFound():
            return _(OUT_OF_DATE)
        case discord.HTTPException() if error.code == THREAD_ARCHIVED:
            return _("This thread is archived or locked, so I can't post in it.")
        case discord.Forbidden():
            # TRANSLATORS: the permissions as Discord's settings screen names them.
            return _(
                "Discord didn't let me do that here: I'm missing a permission in this "
                "channel (I need View Channel, Send Messages, Embed Links and Read Message "
                "History)."
            )
        case discord.NotFound():
            return _(
                "Discord says this channel (or message) no longer exists, or I can't see it, "
                "so that didn't go through."
            )
        case discord.DiscordServerError():
            return _(
                "Discord had a problem (error {status}), so that didn't go through. "
                "Try again in a minute."
            ).format(status=str(error.status))
        case aiohttp.ClientError():
            return _("I couldn't reach Discord just now, so that may not have gone through.")
    return None
