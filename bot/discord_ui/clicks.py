"""How a click becomes a reply: the route to its item, the guard, and the one private send.

Every control we send is a `Control`, a DynamicItem whose custom_id carries all it needs:

    quiz:ans:<post>:<option>        answer a choice or single-blank task, e.g. quiz:ans:42:B
    quiz:hint:<post>                private hint
    quiz:open:<post>                open the private picker (fill tasks with 2+ blanks, and
                                    matching tasks: a blank per stem)
    quiz:pick:<post>:<blank>:<picks>  one blank's select in the picker, e.g. quiz:pick:42:2:A-
    quiz:page:<post>:<page>:<picks>  a matching picker's Back or Next (<page> 0-2, from 0)
    quiz:submit:<post>:<picks>      submit the picker's picks, e.g. quiz:submit:42:AC
    quiz:multi:<post>               a multi task's select: its values (option letters) are one
                                    submitted set, e.g. ["A", "C"]
    quiz:type:<post>                a typed task's Answer button: opens the modal quiz:typed:<post>,
                                    whose submit `Router` hands to typed.py's handler
    quiz:sol:<post>                 a private practice or review task's Solution button
    quiz:reveal:<post>              confirm /solution before finishing (forfeits attempts)
    quiz:next:<session>:<post>      the next task of a session, from the message showing <post>
                                    (a Next of an older message is refused; one from before
                                    0.2 has no <post> and is not checked)

<post> and <session> are ids (1 to 2**63 - 1, ASCII digits), <option> a letter A-Z, <blank>
1-9, <picks> one option letter (or "-" while unpicked) per blank of a 2-5 blank task or a 2-9
stem matching task. pick, page, submit, sol, reveal and next only ever sit on a member's
private messages.

`Router` dispatches them from the `on_interaction` event, as `Client.add_dynamic_items` would
but for the clicked component alone; the classes are not registered with discord.py, which
would run each click a second time. discord.py's routing rebuilds the message's whole view
first (1,660 Python calls and 58 cyclic objects per answer click, against 1,340 and 9 here,
2026-12-07), and refreshes a select from the payload outside any guard, so a forged `values`
would log a traceback and get no reply (tests/discord_ui/test_picker.py).

`Router` is also the one listener for our modal submits (typed and cloze answers), each routed
by its custom_id to the handler registered for it, so no other module runs for every
interaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

import aiohttp
import discord
from discord import app_commands

from bot import rendering
from bot.discord_ui import replies
from bot.discord_ui.error_texts import QUOTE_LIMIT, SOMETHING_WENT_WRONG, friendly_message, shown
from bot.discord_ui.replies import Reply
from bot.i18n import _, resolve_locale, speak_for_task, speaking
from bot.quiz import engine
from bot.quiz.engine import Outcome
from bot.quiz.errors import ForgedControlError, QuizError
from bot.quiz.tasks import Kind, Option, option_label

if TYPE_CHECKING:
    from discord.ui.view import BaseView

    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

AnyClientInteraction = discord.Interaction[Any]
"""What discord.py's item and view hooks take: generic in the client, so a QuizBot-only type
would narrow their signatures. Ours are only ever called with the QuizBot's."""
Fields = Mapping[str, Callable[[str], object]]
"""A Control's custom_id fields: each template group's name, and the parser of its text."""
ModalHandler = Callable[[discord.Interaction["QuizBot"], re.Match[str]], Awaitable[None]]
"""A modal submit's handler: the interaction, and its custom_id's match of the pattern it was
registered with (`Router.on_modal`)."""

PUBLIC_DEFERRAL = "quizbot_public_deferral"
"""In Interaction.extras after a public deferral: its first follow-up would replace the public
"thinking…" message, so an error reply must not use it."""
UNKNOWN_INTERACTION = 10062
"""Discord's code for an interaction past its 3-second deadline."""
EXPIRED = "quizbot_expired"
"""In Interaction.extras once Discord answered UNKNOWN_INTERACTION: any later reply would fail
the same way, so none is tried."""
NO_CONNECTION = (TimeoutError, aiohttp.ClientError, OSError)
"""Failures before Discord answered at all (a lost connection, a timeout)."""

POST_FIELD = r"(?::(?P<post_id>[^:]*))?"
"""A post id followed by more fields. Every field is optional in a template, so a forged
custom_id with fields missing still reaches its item, which refuses it privately."""
LAST_POST_FIELD = r"(?::(?P<post_id>[\s\S]*))?"


# -- the language ------------------------------------------------------------------------------
# Private replies follow the member's client (`interaction.locale`): `enter` is called where an
# interaction enters (the router here, the command tree's guard in params.py). Public messages
# speak the server's language instead (`post_view.ServerLanguages`).


def private_locale(interaction: discord.Interaction[Any]) -> str:
    """The shipped locale of the member's client."""
    return resolve_locale(interaction.locale.value)


def enter(interaction: discord.Interaction[Any]) -> None:
    """Speak the member's language for the rest of this interaction's task (discord.py runs
    each interaction in a task of its own, so nothing is shared with another)."""
    speak_for_task(private_locale(interaction))


@contextlib.contextmanager
def speaking_to(interaction: discord.Interaction[Any]) -> Iterator[str]:
    """Speak the member's language inside the block."""
    with speaking(private_locale(interaction)) as locale:
        yield locale


# -- the guard ---------------------------------------------------------------------------------


def unwrap(error: BaseException) -> BaseException:
    """The exception the handler (or an option's parser) raised, not discord.py's wrapper."""
    while True:
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        elif isinstance(error, app_commands.TransformerError) and isinstance(
            error.__cause__, QuizError
        ):
            error = error.__cause__  # our transformers parse with bot.quiz.refs
        else:
            return error


def describe(interaction: discord.Interaction[Any]) -> str:
    """What the member did: the slash command or the component's custom_id."""
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: Any = interaction.data or {}
    if custom_id := data.get("custom_id"):
        return f"component {rendering.truncate(str(custom_id), QUOTE_LIMIT)!r}"
    return f"interaction type {interaction.type!r}"


def context(interaction: discord.Interaction[Any]) -> str:
    user = interaction.user.id if interaction.user else None
    return (
        f"{describe(interaction)} (guild={interaction.guild_id} "
        f"channel={interaction.channel_id} user={user} interaction={interaction.id})"
    )


def note_expired(interaction: discord.Interaction[Any], error: BaseException) -> bool:
    """Whether `error` says Discord no longer takes this interaction's response (remembered)."""
    if isinstance(error, discord.NotFound) and error.code == UNKNOWN_INTERACTION:
        interaction.extras[EXPIRED] = True
        return True
    return False


def expired(interaction: discord.Interaction[Any]) -> bool:
    return bool(interaction.extras.get(EXPIRED))


async def send_private(interaction: discord.Interaction[Any], content: str) -> None:
    """Best effort: a failure here must not cascade. After a deferral, a follow-up."""
    if expired(interaction):
        return  # the failure that showed it was logged where it happened
    content = rendering.truncate(content, rendering.MESSAGE_CONTENT)
    try:
        if interaction.response.is_done():
            if interaction.extras.get(PUBLIC_DEFERRAL):
                with contextlib.suppress(discord.HTTPException):
                    await interaction.delete_original_response()
            await interaction.followup.send(content, ephemeral=True)
        else:
            await interaction.response.send_message(content, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not send an error reply for %s: %s", context(interaction), exc)


async def report(interaction: discord.Interaction[QuizBot], error: BaseException) -> None:
    """Answer the member privately (bot/discord_ui/error_texts.py says what); log bugs, and
    refused Discord calls, with their context."""
    error = unwrap(error)
    if interaction.client.is_closed():
        # SIGTERM: the HTTP session is closed, so no reply can go out, and what failed was
        # cut short by the close.
        log.warning(
            "closing: %s was cut short and gets no reply (%s)",
            context(interaction),
            type(error).__name__,
        )
        return
    with speaking_to(interaction):  # a private reply: the member's language
        friendly = friendly_message(error, interaction)
        message = _(SOMETHING_WENT_WRONG) if friendly is None else friendly
    if friendly is None:
        log.error("unhandled error in %s", context(interaction), exc_info=error)
    elif isinstance(error, discord.HTTPException):
        note_expired(interaction, error)
        log.warning("Discord refused a call in %s: %s", context(interaction), error)
    elif isinstance(error, aiohttp.ClientError):
        log.warning("no connection to Discord in %s: %r", context(interaction), error)
    elif isinstance(error, app_commands.CommandSignatureMismatch | app_commands.CommandNotFound):
        log.warning("%s in %s: run `quizbot sync`?", error, context(interaction))
    await send_private(interaction, shown(message, interaction))


def guild_id_of(interaction: discord.Interaction[Any]) -> int:
    """Quizzes live in servers; a DM (or a user-installed context) has none."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


def private_message_only(interaction: discord.Interaction[Any]) -> None:
    """For controls that edit their own message, which the bot only puts on private messages:
    one clicked anywhere else is forged, and must not edit a public message."""
    message = interaction.message
    if message is None or not message.flags.ephemeral:
        raise ForgedControlError()


def member(interaction: discord.Interaction[Any]) -> tuple[int, int, str]:
    """Who acts, as the service takes it: server, user id, display name."""
    return guild_id_of(interaction), interaction.user.id, interaction.user.display_name


class QuizView(discord.ui.View):
    """A timeout-free view whose failures reach the member (our items guard themselves,
    `Control`; this covers anything dispatched through the view)."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    async def on_error(
        self, interaction: AnyClientInteraction, error: Exception, item: discord.ui.Item[Any], /
    ) -> None:
        await report(interaction, error)


# -- the route ---------------------------------------------------------------------------------


class Control:
    """Base of our DynamicItems (list it first): the one parse-or-refuse of a custom_id, and
    the guard that makes every failure of `handle` a private reply.

    A custom_id can be forged, so a template takes any text in its fields, and each `FIELDS`
    parser sets the attribute of its name. A field that does not parse makes an item whose
    click gets the `refusal`: raised in `from_custom_id`, it would only be logged.
    """

    FIELDS: ClassVar[Fields]
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    """Fields left None when the custom_id has none (not when it has an empty one)."""
    pattern: ClassVar[re.Pattern[str]]
    refusal: QuizError | None = None

    def __init_subclass__(cls, *, template: str | None = None, **kwargs: Any) -> None:
        if template is None:  # a shared base, not an item of its own
            super().__init_subclass__(**kwargs)
            return
        # DynamicItem's, next in an item's MRO (mypy sees only this class's bases).
        super().__init_subclass__(template=template, **kwargs)  # type: ignore[call-arg]
        cls.pattern = re.compile(template)
        if unnamed := set(cls.FIELDS) - set(cls.pattern.groupindex):
            raise TypeError(f"{cls.__name__}'s template has no group for {sorted(unnamed)}")

    @classmethod
    async def from_custom_id(
        cls, interaction: AnyClientInteraction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        # The clicked component is wrapped as it came (`__init__` builds one to send).
        control = cls.__new__(cls)
        discord.ui.DynamicItem.__init__(control, item)  # type: ignore[arg-type]
        try:
            for name, parse in cls.FIELDS.items():
                text = match[name]
                absent = text is None and name in cls.OPTIONAL
                setattr(control, name, None if absent else parse(text or ""))
        except QuizError as exc:
            control.refusal = exc
        return control

    async def callback(self, interaction: AnyClientInteraction) -> None:
        try:
            if self.refusal is not None:
                raise self.refusal
            await self.handle(interaction)
        except Exception as exc:
            await report(interaction, exc)

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        raise NotImplementedError


class PostButton(Control):
    """A button whose custom_id is `<PREFIX>:<post id>`, its look in class attributes."""

    PREFIX: ClassVar[str]
    LABEL: ClassVar[str]
    EMOJI: ClassVar[str | None] = None
    STYLE: ClassVar[discord.ButtonStyle] = discord.ButtonStyle.secondary
    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id}

    def __init__(self, post_id: int, *, row: int | None = None) -> None:
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=_(self.LABEL),  # a marked constant: in the current locale
            emoji=self.EMOJI,
            style=self.STYLE,
            custom_id=f"{self.PREFIX}:{post_id}",
        )
        super().__init__(button, row=row)  # type: ignore[call-arg]  # the DynamicItem's
        self.post_id = post_id


class Router:
    """`add_dynamic_items` and its dispatch, for the one clicked component; and our modal
    submits, each to the handler registered for its custom_id."""

    def __init__(self, *controls: type[Control]) -> None:
        self.controls = controls
        self.modals: tuple[tuple[re.Pattern[str], ModalHandler], ...] = ()

    def listen(self, bot: QuizBot) -> None:
        bot.add_listener(self.dispatch, "on_interaction")

    def add(self, *controls: type[Control]) -> None:
        """A cog's own controls, routed from when it loads."""
        self.controls = (*self.controls, *controls)

    def on_modal(self, pattern: re.Pattern[str], handler: ModalHandler) -> None:
        """Route a modal submit whose custom_id `pattern` fully matches to `handler`."""
        self.modals = (*self.modals, (pattern, handler))

    def route_modal(self, custom_id: str) -> tuple[ModalHandler, re.Match[str]] | None:
        """The handler claiming a modal's `custom_id`, and the match; None if not ours."""
        for pattern, handler in self.modals:
            match = pattern.fullmatch(custom_id)
            if match is not None:
                return handler, match
        return None

    def route(self, custom_id: str) -> tuple[type[Control], re.Match[str]] | None:
        """The class claiming `custom_id`, and the match; None for a custom_id not ours."""
        for cls in self.controls:
            match = cls.pattern.fullmatch(custom_id)
            if match is not None:
                return cls, match
        return None

    async def dispatch(self, interaction: discord.Interaction[QuizBot]) -> None:
        """Run a component click on the item it is for, a modal submit by its handler;
        anything not ours is left alone."""
        if interaction.type is discord.InteractionType.modal_submit:
            await self.submit(interaction)
            return
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or (routed := self.route(custom_id)) is None:
            return
        cls, match = routed
        enter(interaction)  # the member's language, for the whole click
        base = clicked_item(interaction.message, custom_id)
        if base is None:  # not on the message it came with: ignored, as discord.py does
            return
        item = await cls.from_custom_id(interaction, base, match)
        try:
            await item.callback(interaction)
        finally:
            release(interaction)

    async def submit(self, interaction: discord.Interaction[QuizBot]) -> None:
        """A modal submit, guarded as a click: any failure of its handler is a private reply."""
        data: Any = interaction.data or {}
        custom_id = data.get("custom_id")
        if not isinstance(custom_id, str) or (routed := self.route_modal(custom_id)) is None:
            return
        handler, match = routed
        enter(interaction)  # the member's language, for the whole submit
        try:
            await handler(interaction, match)
        except Exception as exc:
            await report(interaction, exc)
        finally:
            release(interaction)


def _find(components: Iterable[Any], custom_id: str) -> discord.Component | None:
    """The component with this custom_id, in rows, containers and sections alike."""
    for component in components:
        if getattr(component, "custom_id", None) == custom_id:
            return component
        nested = list(getattr(component, "children", None) or ())
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            nested.append(accessory)
        found = _find(nested, custom_id)
        if found is not None:
            return found
    return None


def clicked_item(message: discord.Message | None, custom_id: str) -> discord.ui.Item[Any] | None:
    """The clicked button or select, rebuilt from the message alone (not the whole view)."""
    component = None if message is None else _find(message.components, custom_id)
    if isinstance(component, discord.Button):
        return discord.ui.Button.from_component(component)
    if isinstance(component, discord.SelectMenu):
        return discord.ui.Select.from_component(component)
    return None


def release(interaction: discord.Interaction[Any]) -> None:
    """Break the interaction's reference cycle once it has been answered.

    The one private attribute we touch, for a measured need: discord.py caches
    `interaction.response`, which points back at the interaction, so the interaction, its
    message and member wait for the cyclic collector (42 objects per answer click, against 9
    without: gen-2 pauses under load). tests/discord_ui/test_clicks.py fails if discord.py
    renames or stops the cache.
    """
    with contextlib.suppress(AttributeError):
        del interaction._cs_response  # type: ignore[attr-defined]


# -- the send ----------------------------------------------------------------------------------


V = TypeVar("V", bound="BaseView")


def outgoing(reply: Reply | None = None, **kwargs: Any) -> dict[str, Any]:
    """Arguments for send / edit: `reply`'s text and embeds (unless given), fitted to Discord's
    limits (`rendering.fit_message`). Every message the bot sends or edits passes here, so
    none is refused as too long, whatever the bank holds."""
    if reply is not None:
        kwargs.setdefault("embeds", list(reply.embeds))
        if reply.content is not None:
            kwargs.setdefault("content", reply.content)
    key = "embed" if "embed" in kwargs else "embeds"
    given = kwargs.get(key)
    embeds: list[discord.Embed] = (
        [] if given is None else [given] if isinstance(given, discord.Embed) else list(given)
    )
    content = kwargs.get("content")
    if _clearly_fits(content, embeds):
        return kwargs  # the common reply: measuring it in UTF-16 would cost more than sending
    raw = [embed.to_dict() for embed in embeds]
    fitted_content, fitted = rendering.fit_message(content, raw)
    if "content" in kwargs:
        kwargs["content"] = fitted_content
    if embeds:
        kept = [
            embed if after == before else discord.Embed.from_dict(after)
            for embed, before, after in zip(embeds, raw, fitted, strict=False)
        ]
        kwargs[key] = kept[0] if key == "embed" else kept
    return kwargs


def _clearly_fits(content: str | None, embeds: list[discord.Embed]) -> bool:
    """Whether every part is within its limit even at two UTF-16 units per character."""

    def within(text: str | None, limit: int) -> bool:
        return text is None or 2 * len(text) <= limit

    return (
        within(content, rendering.MESSAGE_CONTENT)
        and len(embeds) <= rendering.EMBEDS
        and 2 * sum(len(e) for e in embeds) <= rendering.EMBED_TOTAL
        and all(
            within(e.title, rendering.EMBED_TITLE)
            and within(e.description, rendering.EMBED_DESCRIPTION)
            and within(e.footer.text, rendering.EMBED_FOOTER)
            and within(e.author.name, rendering.EMBED_AUTHOR)
            and len(e.fields) <= rendering.EMBED_FIELDS
            and all(
                within(f.name, rendering.EMBED_FIELD_NAME)
                and within(f.value, rendering.EMBED_FIELD_VALUE)
                for f in e.fields
            )
            for e in embeds
        )
    )


def detached(view: V) -> V:
    """A view discord.py's view store need not keep: our clicks are routed by custom_id
    (`Router`). Left live, it would keep every sent view (a 15-minute timer for each ephemeral
    one) and register its items' classes, which would run each click a second time."""
    view.stop()
    return view


def spent(view: BaseView | None) -> None:
    """Let a sent view go at once: its items and the view form a cycle (about 40 objects per
    task sent) that, cleared, reference counting frees when the send returns."""
    if view is not None:
        view.clear_items()


class Responder:
    """Answers one interaction exactly once, within Discord's 3-second window.

    The database may be busy, so after `after` seconds a deferral goes out first and the
    reply becomes a follow-up (or an edit). `update=True`: the reply replaces the component's
    own message (the picker). Replies are private unless `ephemeral=False`.
    """

    def __init__(
        self,
        interaction: discord.Interaction[QuizBot],
        *,
        update: bool = False,
        ephemeral: bool = True,
        after: float | None = None,
    ) -> None:
        self.interaction = interaction
        self.update = update
        self.ephemeral = ephemeral
        self.after = interaction.client.ack_after if after is None else after
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._deferral: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Responder:
        # A timer, not a sleeping task: most replies beat it, and cancelling it costs nothing.
        self._timer = asyncio.get_running_loop().call_later(self.after, self._start_deferral)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._timer is None:
            return
        if self._deferral is not None:
            # Cancelled in flight, we could not know whether Discord got it, and the error
            # reply that may follow depends on knowing.
            await self._deferral
            return
        self._timer.cancel()

    def _start_deferral(self) -> None:
        self._deferral = asyncio.create_task(self._defer(), name="quizbot-ack")

    async def _defer(self) -> None:
        async with self._lock:
            response = self.interaction.response
            if response.is_done():
                return
            try:
                if self.update:
                    await response.defer()
                else:
                    await response.defer(ephemeral=self.ephemeral, thinking=True)
                    if not self.ephemeral:
                        self.interaction.extras[PUBLIC_DEFERRAL] = True
            except discord.HTTPException as exc:
                # Discord's refusal, not our bug: one line. An expired interaction takes no
                # reply after it either.
                note_expired(self.interaction, exc)
                log.warning("could not defer interaction %s: %s", self.interaction.id, exc)

    async def send(self, reply: Reply | None = None, **kwargs: Any) -> None:
        """A new message: `reply`'s text and embeds, or send_message's own arguments."""
        kwargs = outgoing(reply, **kwargs)
        if kwargs.get("view") is None:
            kwargs.pop("view", None)
        kwargs["ephemeral"] = self.ephemeral
        await self._deliver(kwargs, edit=False)

    async def edit(self, reply: Reply | None = None, **kwargs: Any) -> None:
        """Replace the component's own message (content, embeds, view)."""
        await self._deliver(outgoing(reply, **kwargs), edit=True)

    async def _deliver(self, kwargs: dict[str, Any], *, edit: bool) -> None:
        view = kwargs.get("view")
        if view is not None:
            kwargs["view"] = detached(view)
        async with self._lock:
            try:
                if expired(self.interaction):
                    return
                response = self.interaction.response
                if not response.is_done():
                    await (response.edit_message if edit else response.send_message)(**kwargs)
                elif edit:
                    await self.interaction.edit_original_response(**kwargs)
                else:
                    await self.interaction.followup.send(**kwargs)
            finally:
                spent(view)

    async def answered(
        self,
        outcome: Outcome,
        picks: Sequence[str],
        reply: Reply | None = None,
        *,
        session: str | None = None,
        **kwargs: Any,
    ) -> None:
        """The detailed reply to an answer. Refused after the attempt was stored, a short
        plain one (`replies.recorded_text`) still says what became of it, rather than
        "Something went wrong" and a member who clicks again, spending another attempt."""
        try:
            if self.update:
                await self.edit(reply, **kwargs)
            else:
                await self.send(reply, **kwargs)
        except discord.HTTPException as exc:
            if not outcome.recorded:
                raise
            if note_expired(self.interaction, exc):
                # Late: no reply goes at all; the member's next click shows their attempts.
                log.warning(
                    "the answer in %s was recorded, but Discord takes no reply to it (%s)",
                    context(self.interaction),
                    exc,
                )
                return
            log.warning(
                "Discord refused the answer reply in %s (%s); sending the short one",
                context(self.interaction),
                exc,
            )
            async with self._lock:
                text = replies.recorded_text(outcome, picks, session)
                await send_private(self.interaction, text)


# -- the answer --------------------------------------------------------------------------------


class AnswerButton(
    Control,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"quiz:ans{POST_FIELD}(?::(?P<option>[\s\S]*))?",
):
    FIELDS: ClassVar[Fields] = {"post_id": engine.post_id, "option": option_label}

    def __init__(
        self, post_id: int, option: str, *, label: str | None = None, row: int | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or option,
                style=discord.ButtonStyle.secondary,
                custom_id=f"quiz:ans:{post_id}:{option}",
            ),
            row=row,
        )
        self.post_id = post_id
        self.option = option

    @classmethod
    def build(cls, post_id: int, option: Option, row: int, kind: Kind = Kind.CHOICE) -> Self:
        label = rendering.option_button_label(option, kind)
        return cls(post_id, option.label, label=label, row=row)

    async def handle(self, interaction: discord.Interaction[QuizBot]) -> None:
        bot = interaction.client
        picks = (self.option,)
        async with Responder(interaction) as responder:
            result = await bot.service.answer(self.post_id, *member(interaction), picks)
            if result.outcome.recorded and not result.post.private:
                bot.live_counts.bump(self.post_id)
            posted = bot.service.posted_of(result.post)
            chosen = rendering.picked_text(posted.task, picks)
            session = replies.session_of(posted)
            reply = replies.answer_reply(
                posted.task, result.outcome, chosen, session=session, card=result.card
            )
            await responder.answered(result.outcome, picks, reply, session=session)
