"""Every failure in a handler ends as a private reply; the unexpected ones are also logged.

The machinery: the guards every interaction passes (the command tree's `interaction_check` and
`on_error`, the views' `on_error`, the DynamicItems' `Guarded`), the private send that survives
an expired interaction, and the log line with enough context to find the interaction again.
What the member is told is bot/discord_ui/error_texts.py's: a friendly sentence for an expected
failure; for anything else (our bug) that it has been logged, while the traceback goes to the log.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any, Self

import aiohttp
import discord
from discord import app_commands

from bot import rendering
from bot.discord_ui import params
from bot.discord_ui.error_texts import (
    QUOTE_LIMIT,
    SOMETHING_WENT_WRONG,
    UNREADABLE,
    friendly_message,
    shown,
    unusable_value,
)
from bot.quiz.errors import ForgedControlError, QuizError

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

UNKNOWN_INTERACTION = 10062
"""Discord's error code for an interaction it no longer takes a response to: one that reached
us after its 3-second deadline (a slow gateway, a stalled event loop)."""
EXPIRED = "quizbot_expired"
"""Set in Interaction.extras once Discord answered UNKNOWN_INTERACTION: every later reply
through it would fail the same way, so none is tried (`note_expired`)."""


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
