"""Wake-ups for test code waiting on emulator state ("a message appeared", "bot identified")."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class Notifier:
    """Level-triggered waiting: waiters re-check a predicate after every change.

    Waiters are only woken if any exist, so notify() on a hot path costs one truthiness check.
    Every wait in the emulator takes a `timeout` (hence the ASYNC109 waivers): a silent bot
    must fail a test fast, with a message naming what was awaited, never hang the suite.
    """

    __slots__ = ("_waiters",)

    def __init__(self) -> None:
        self._waiters: list[asyncio.Future[None]] = []

    def notify(self) -> None:
        if not self._waiters:
            return
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float, what: str) -> T:  # noqa: ASYNC109
        """Return the first non-None, non-False predicate result; TimeoutError names `what`."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                while True:
                    result = predicate()
                    if result is not None and result is not False:
                        return result
                    fut: asyncio.Future[None] = loop.create_future()
                    self._waiters.append(fut)
                    await fut
        except TimeoutError:
            raise TimeoutError(f"timed out after {timeout}s waiting for {what}") from None
