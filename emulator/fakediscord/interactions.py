"""Interaction records: what was dispatched, how and when the bot answered, what followed."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .notify import Notifier
from .state import Message

JSON = dict[str, Any]

PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

# Which callback types Discord accepts for which interaction types.
ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({4, 5, 9}),
    MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    AUTOCOMPLETE: frozenset({8}),
    MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


class InteractionRecord:
    """One interaction sent to the bot. Timestamps are time.monotonic() values."""

    __slots__ = (
        "_response_future",
        "changed",
        "channel_id",
        "command_name",
        "dispatched_at",
        "followups",
        "guild_id",
        "id",
        "late_callback_at",
        "original_message",
        "payload",
        "responded_at",
        "response",
        "source_message_id",
        "token",
        "type",
        "user_id",
    )

    def __init__(
        self,
        *,
        interaction_id: int,
        token: str,
        interaction_type: int,
        guild_id: int | None,
        channel_id: int,
        user_id: int,
        payload: JSON,
        source_message_id: int | None = None,
        command_name: str | None = None,
    ) -> None:
        self.id = interaction_id
        self.token = token
        self.type = interaction_type
        self.guild_id = guild_id
        self.channel_id = channel_id
        self.user_id = user_id
        self.payload = payload
        self.source_message_id = source_message_id
        self.command_name = command_name
        self.dispatched_at = 0.0
        self.responded_at: float | None = None
        self.late_callback_at: float | None = None
        self.response: JSON | None = None
        self.original_message: Message | None = None
        self.followups: list[Message] = []
        self._response_future: asyncio.Future[JSON] | None = None
        self.changed = Notifier()

    @property
    def latency(self) -> float | None:
        """Seconds from dispatching INTERACTION_CREATE to receiving the callback POST."""
        if self.responded_at is None:
            return None
        return self.responded_at - self.dispatched_at

    @property
    def response_type(self) -> int | None:
        return None if self.response is None else int(self.response["type"])

    @property
    def response_data(self) -> JSON:
        return {} if self.response is None else (self.response.get("data") or {})

    def set_response(self, body: JSON) -> None:
        self.responded_at = time.monotonic()
        self.response = body
        fut = self._response_future
        if fut is not None and not fut.done():
            fut.set_result(body)
        self.changed.notify()

    async def wait_response(self, timeout: float = 5.0) -> JSON:  # noqa: ASYNC109
        """The callback body ({"type": ..., "data": ...}) once the bot has POSTed it."""
        if self.response is not None:
            return self.response
        fut = self._response_future
        if fut is None:
            fut = self._response_future = asyncio.get_running_loop().create_future()
        try:
            # shield: one waiter timing out must not cancel the future under another waiter.
            # asyncio.timeout() rather than wait_for(): no extra waiter future per click.
            async with asyncio.timeout(timeout):
                return await asyncio.shield(fut)
        except TimeoutError:
            late = " (a callback arrived after the 3 s deadline)" if self.late_callback_at else ""
            raise TimeoutError(
                f"bot sent no callback for interaction {self.id} ({self.describe()}) "
                f"within {timeout}s{late}"
            ) from None

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[Message]:  # noqa: ASYNC109
        return await self.changed.wait_for(
            lambda: self.followups if len(self.followups) >= count else None,
            timeout,
            f"{count} follow-up(s) to interaction {self.id} ({self.describe()})",
        )

    async def wait_original(
        self,
        predicate: Callable[[Message], bool] | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> Message:
        """The original response message once it exists (and satisfies `predicate`)."""

        def check() -> Message | None:
            msg = self.original_message
            if msg is None or (predicate is not None and not predicate(msg)):
                return None
            return msg

        return await self.changed.wait_for(
            check, timeout, f"original response of interaction {self.id} ({self.describe()})"
        )

    def describe(self) -> str:
        if self.command_name:
            return f"/{self.command_name}"
        data = self.payload.get("data") or {}
        return f"type {self.type} custom_id={data.get('custom_id')!r}"


class InteractionStore:
    """Records by id and by token, bounded so a long benchmark does not grow without limit."""

    def __init__(self, max_retained: int) -> None:
        self.by_id: dict[int, InteractionRecord] = {}
        self.by_token: dict[str, InteractionRecord] = {}
        self._order: deque[int] = deque()
        self.max_retained = max_retained
        self.dispatched = 0
        self.late_callbacks = 0

    def add(self, record: InteractionRecord) -> None:
        self.by_id[record.id] = record
        self.by_token[record.token] = record
        self._order.append(record.id)
        self.dispatched += 1
        if len(self._order) > self.max_retained:
            old = self.by_id.pop(self._order.popleft(), None)
            if old is not None:
                self.by_token.pop(old.token, None)

    def __iter__(self) -> Any:
        return iter(self.by_id.values())
