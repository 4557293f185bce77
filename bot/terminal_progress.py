"""A progress line for the command line's long work (an import of thousands of questions, a
database copy, an export): what runs, its latest step and for how long, redrawn on standard
error and erased when done. Only on a terminal: logs, pipes and CI get nothing."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import Final, TextIO, cast

REDRAW_SECONDS: Final = 0.2
SHOW_AFTER_SECONDS: Final = 1.0
"""Work done sooner shows no line at all: no flicker for the quick, common case."""
ERASE: Final = "\r\033[K"  # back to the line's start, then clear it


class ProgressLine:
    def __init__(
        self,
        label: str,
        stream: TextIO,
        *,
        clock: Callable[[], float] = time.monotonic,
        every: float = REDRAW_SECONDS,
    ) -> None:
        self.label = label
        self.stream = stream
        self.enabled = stream.isatty()
        self._clock = clock
        self._every = every
        self._step = ""
        self._started = clock()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._drawn = ""
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ProgressLine:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="quizbot-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._erase()

    def step(self, text: str) -> None:
        """The latest step ("session: 20,000 of 50,000 rows"), shown on the next redraw."""
        self._step = text

    def text(self) -> str:
        elapsed = self._clock() - self._started
        step = f": {self._step.strip()}" if self._step else ""
        return f"{self.label}{step} ({elapsed:.0f} s)"

    def guard(self, stream: TextIO) -> TextIO:
        """`stream`, erasing the line before each write when both show on this terminal, so no
        output lands in the middle of it. Any other stream is given back as it is."""
        if not (self.enabled and stream.isatty()):
            return stream
        return cast(TextIO, _Erasing(self, stream))  # a text stream, as TextIO's users need

    def _run(self) -> None:
        while not self._done.wait(self._every):
            if self._clock() - self._started < SHOW_AFTER_SECONDS:
                continue
            with self._lock:
                text = self.text()
                if text != self._drawn:  # the seconds or the step changed
                    self.stream.write(ERASE + text)
                    self.stream.flush()
                    self._drawn = text

    def _erase(self) -> None:
        if self._drawn:
            self.stream.write(ERASE)
            self.stream.flush()
            self._drawn = ""


class _Erasing(io.TextIOBase):
    """A terminal stream that clears the progress line first; the next redraw puts it back
    under what was written."""

    def __init__(self, line: ProgressLine, stream: TextIO) -> None:
        super().__init__()
        self._line = line
        self._stream = stream

    def write(self, text: str) -> int:
        with self._line._lock:
            self._line._erase()
            written = self._stream.write(text)
            self._stream.flush()
        return written

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return True
