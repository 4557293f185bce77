"""Every failure in a handler ends as a private reply; the unexpected ones are also logged.

Domain errors (`QuizError`), refused checks and missing channel permissions are the member's
business and get a friendly sentence. Anything else is our bug: the member is told it has been
logged, and the traceback goes to the log with enough context to find the interaction again.

What a member typed is never trusted on the way back either: every private error reply is cut
to Discord's 2,000 characters, and the typed text a domain message quotes (with `!r`, see
bot/quiz/errors.py) is shown cut and with its markdown and mentions escaped (`shown`). The bot's
allowed_mentions is none (bot/discord_ui/client.py), so nothing pings whatever slips through.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Self

import aiohttp
import discord
from discord import app_commands

from bot import rendering
from bot.discord_ui import params
from bot.discord_ui.checks import ModeratorCheckFailure
from bot.quiz.errors import (
    AnswerableElsewhereError,
    AttemptLimitError,
    ForgedControlError,
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

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

PUBLIC_DEFERRAL = "quizbot_public_deferral"
"""Set in Interaction.extras when a public reply was deferred: its first follow-up would
replace the public "thinking…" message, so an error reply must not use it."""

log = logging.getLogger(__name__)

AnyClientInteraction = discord.Interaction[Any]
"""The interaction discord.py's item and view hooks take (callback, from_custom_id, on_error):
their signatures are generic in the client, so an override typed for the QuizBot alone would
narrow them. Ours are only ever called with the QuizBot's."""

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
UNKNOWN_INTERACTION = 10062
"""Discord's error code for an interaction it no longer takes a response to: one that reached
us after its 3-second deadline (a slow gateway, a stalled event loop)."""
EXPIRED = "quizbot_expired"
"""Set in Interaction.extras once Discord answered UNKNOWN_INTERACTION: every later reply
through it would fail the same way, so none is tried (`note_expired`)."""

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
    """The exception the handler (or an option's parser) raised, not discord.py's wrapper."""
    while True:
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        elif isinstance(error, app_commands.TransformerError) and isinstance(
            error.__cause__, QuizError
        ):
            # Our transformers parse with bot.quiz.refs; discord.py wraps what they raise.
            error = error.__cause__
        else:
            return error


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


def describe(interaction: discord.Interaction[Any]) -> str:
    """What the member did: the slash command or the component's custom_id."""
    command = interaction.command
    if command is not None:
        return f"/{command.qualified_name}"
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    if custom_id:
        return f"component {rendering.truncate(str(custom_id), QUOTE_LIMIT)!r}"
    return f"interaction type {interaction.type!r}"


def context(interaction: discord.Interaction[Any]) -> str:
    user = interaction.user.id if interaction.user else None
    return (
        f"{describe(interaction)} (guild={interaction.guild_id} "
        f"channel={interaction.channel_id} user={user} interaction={interaction.id})"
    )


def note_expired(interaction: discord.Interaction[Any], error: BaseException) -> bool:
    """Whether `error` says Discord no longer takes this interaction's response; if so it is
    remembered, so no further reply is tried (it could only fail, and log, again)."""
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        interaction.extras[EXPIRED] = True
        return True
    return False


def expired(interaction: discord.Interaction[Any]) -> bool:
    return bool(interaction.extras.get(EXPIRED))


async def send_private(interaction: discord.Interaction[Any], content: str) -> None:
    """Best effort: the interaction may have expired, and a failure here must not cascade.
    After a deferral this is a follow-up, which takes the place of "thinking…"."""
    if expired(interaction):
        return  # the failure that showed it was logged where it happened
    content = rendering.truncate(content, rendering.MESSAGE_CONTENT)
    try:
        if interaction.response.is_done():
            if interaction.extras.get(PUBLIC_DEFERRAL):
                # The first follow-up would take over the public "thinking…" message.
                with contextlib.suppress(discord.HTTPException):
                    await interaction.delete_original_response()
            await interaction.followup.send(content, ephemeral=True)
        else:
            await interaction.response.send_message(content, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not send an error reply for %s: %s", context(interaction), exc)


async def report(interaction: discord.Interaction[QuizBot], error: BaseException) -> None:
    """Answer the member privately; log bugs (and refused Discord calls) with their context."""
    error = unwrap(error)
    if interaction.client.is_closed():
        # SIGTERM: the bot has signed off and closed its HTTP session, so no reply can go out,
        # and what failed was cut short by the close (a write the closing store cancelled, a
        # call on the closed session). One line, as for any interaction the close interrupts.
        log.warning(
            "closing: %s was cut short and gets no reply (%s)",
            context(interaction),
            type(error).__name__,
        )
        return
    message = friendly_message(error, interaction)
    if message is None:
        log.error("unhandled error in %s", context(interaction), exc_info=error)
        message = SOMETHING_WENT_WRONG
    elif isinstance(error, discord.HTTPException):
        note_expired(interaction, error)
        log.warning("Discord refused a call in %s: %s", context(interaction), error)
    elif isinstance(error, aiohttp.ClientError):
        log.warning("no connection to Discord in %s: %r", context(interaction), error)
    elif isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        log.warning("%s in %s: run `quizbot sync`?", error, context(interaction))
    await send_private(interaction, shown(message, interaction))


NO_CONNECTION = (TimeoutError, aiohttp.ClientError, OSError)
"""Failures before Discord answered at all (a lost connection, a timeout)."""
SNOWFLAKE_LIMIT = 2**63
SNOWFLAKE_OPTIONS = frozenset({6, 7, 8, 9, 11})
"""user, channel, role, mentionable, attachment: discord.py reads their values with int()."""
NUMBER_OPTION = 10


def _readable(option: Any) -> bool:
    """Whether discord.py can read one option of a command payload without failing."""
    if not isinstance(option, dict) or not isinstance(option.get("name"), str):
        return False
    kind = option.get("type")
    if kind in (1, 2):  # a subcommand (group): its own options
        return all(_readable(o) for o in _listed(option.get("options", [])))
    if "value" not in option:
        return False
    value = option["value"]
    if kind in SNOWFLAKE_OPTIONS:
        # Discord's ids fit a signed 64-bit integer, as the database's columns do: a larger
        # one is forged, and would only fail when stored.
        return (
            isinstance(value, str)
            and value.isascii()
            and value.isdigit()
            and len(value) <= len(str(SNOWFLAKE_LIMIT))  # int() refuses 4,300+ digits
            and 0 < int(value) < SNOWFLAKE_LIMIT
        )
    if kind == NUMBER_OPTION and not option.get("focused") and value not in (None, ""):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(kind, int)


def _listed(options: Any) -> list[Any]:
    return options if isinstance(options, list) else [None]


def readable_payload(data: Any) -> bool:
    """Whether discord.py can read a command payload's options. Discord only sends readable
    ones; a raw payload can send a user option "abc", which would fail inside the library,
    before any handler or error hook, and leave the member without a reply."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("name"), str)
        and all(_readable(o) for o in _listed(data.get("options", [])))
    )


UNREADABLE = "Discord sent this command with a value I can't read. Pick the options from the lists."


class QuizTree(app_commands.CommandTree["QuizBot"]):
    async def interaction_check(self, interaction: discord.Interaction[QuizBot], /) -> bool:
        """The one guard between a raw payload and every handler. Refuse, privately, a payload
        discord.py could not read (see `readable_payload`), and an id option without the
        object Discord always sends beside it. Answer an autocomplete whose values do not have
        their options' declared types with no suggestions, as one that matches nothing
        (`params.autocomplete_answerable`); a command's values are parsed by its options'
        transformers (bot/discord_ui/params.py)."""
        autocomplete = interaction.type is discord.InteractionType.autocomplete
        if readable_payload(interaction.data):
            if autocomplete:
                if params.autocomplete_answerable(interaction):
                    return True
            elif (name := params.unresolved_option(interaction.data)) is None:
                return True
            else:
                await send_private(interaction, unusable_value(f"`{name}`"))
                return False
        if autocomplete:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.autocomplete([])
        else:
            await send_private(interaction, UNREADABLE)
        return False

    async def on_error(
        self, interaction: discord.Interaction[QuizBot], error: app_commands.AppCommandError, /
    ) -> None:
        await report(interaction, error)


class QuizView(discord.ui.View):
    """A timeout-free view whose failures reach the member.

    Our buttons are DynamicItems, which the bot routes by custom_id outside any view
    (bot/discord_ui/clicks.py), so each DynamicItem guards its own callback (`Guarded`); this
    hook covers anything dispatched through the view itself.
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(
        self,
        interaction: AnyClientInteraction,
        error: Exception,
        item: discord.ui.Item[Any],
        /,
    ) -> None:
        await report(interaction, error)


class Guarded:
    """Mixin for our DynamicItems (list it first): run `handle`, report any failure privately.

    An exception from a DynamicItem's callback (or its `from_custom_id`) would only be logged,
    leaving the member's click unanswered ("This interaction failed"); this makes every failure
    a reply. A custom_id that does not parse still makes an item, `refusing` the parse's error,
    and its click gets that refusal instead of running `handle`.
    """

    refusal: QuizError | None = None

    def refusing(self, error: QuizError) -> Self:
        self.refusal = error
        return self

    async def callback(self, interaction: AnyClientInteraction) -> None:
        try:
            if self.refusal is not None:
                raise self.refusal
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


def private_message_only(interaction: discord.Interaction[Any]) -> None:
    """For controls that edit their own message (the picker, the solution's confirmation),
    which the bot only ever puts on a member's private message: refuse one clicked anywhere
    else, as only a forged custom_id can be, rather than edit a public message."""
    message = interaction.message
    if message is None or not message.flags.ephemeral:
        raise ForgedControlError()


def member_name(interaction: discord.Interaction[Any]) -> str:
    return interaction.user.display_name
