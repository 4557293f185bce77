"""Which of our modules one answer click runs through, traced at run time (issue 27).

    python -m benchmarks.trace_click                  # a finishing click
    python -m benchmarks.trace_click --wrong          # a first wrong click (does not finish)
    python -m benchmarks.trace_click --click-only     # without the post's footer redraw
    python -m benchmarks.trace_click --arrows 20 --functions   # who calls whom, what ran
    python benchmarks/trace_click.py --src /tmp/base27  # another tree's bot/ and tests/

The click goes through the whole stack in this process, as in tests/discord_ui: a raw gateway
payload through discord.py's real ConnectionState and Interaction, the bot's own dispatch, the
real service and store on an SQLite file, and the fake Discord of tests/discord_ui/fakes.py
below discord.py's HTTP layer. A finishing click is the right answer (B) of a fresh post by a
member who never answered before, so it finishes the task and scores.

A warm-up click first (another post, another member, the same kind of click) puts imports,
caches and compiled statements in place, so the trace shows the path of every click, not of
the first one. Then the measured click runs under `sys.setprofile` in the event loop's thread
and `threading.setprofile` in every thread (the profiler is installed before the bot starts any
thread, and records only while armed): each "call" event (a function called, or a coroutine
resumed) is attributed to the module of the called code, `frame.f_globals["__name__"]`. The
window opens when the click's payload is handed to discord.py and closes when its handlers are
done (the reply sent) and the post's footer redraw it starts has run: an answer after a quiet
spell redraws the "answered · solved" counts at once, concurrently with the reply, so that
redraw is part of the click. --click-only leaves it out (the bot's `live_counts.bump` becomes a
no-op for the measured click), to see the reply's own path.

Reported, for the modules under `bot` (ours): call events per module, the threads that ran them;
the count of our modules; and the jumps between our modules, a call event of ours whose caller
(`frame.f_back`) is in another of our modules. "Through libraries" also counts a call whose
nearest frame of ours up the stack is in another of our modules (discord.py calling the cog, a
thread pool running the store's unit).

Issue 27 counted 28 modules, 3 threads and 123 jumps at d1564ed; to compare, run this script on
a worktree of that commit: `git worktree add /tmp/base27 d1564ed`, then `--src /tmp/base27`.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
OURS = "bot"


def ours(module: str) -> bool:
    return module == OURS or module.startswith(OURS + ".")


def _module(frame: FrameType | None) -> str:
    return "" if frame is None else str(frame.f_globals.get("__name__", ""))


def _nearest_ours(frame: FrameType | None) -> str:
    while frame is not None:
        module = _module(frame)
        if ours(module):
            return module
        frame = frame.f_back
    return ""


@dataclass
class Trace:
    """What the profiler saw while armed."""

    calls: Counter[str] = field(default_factory=Counter)
    """Our module -> call events."""
    threads: dict[str, Counter[str]] = field(default_factory=dict)
    """Our module -> thread name -> call events."""
    jumps: int = 0
    """Call events of ours whose caller frame is in another of our modules."""
    jumps_through_libraries: int = 0
    """Call events of ours whose nearest frame of ours up the stack is another of our modules."""
    arrows: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(caller module, called module) -> jumps."""
    functions: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(our module, function's qualified name) -> call events."""
    all_calls: int = 0
    """Every call event, ours or not."""
    reply: str = ""
    """The text of the click's reply (what the member read)."""

    @property
    def modules(self) -> list[str]:
        return sorted(self.calls)

    @property
    def thread_calls(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for per_thread in self.threads.values():
            total.update(per_thread)
        return total


class Profiler:
    """One profile function for every thread; it records nothing until armed.

    Events are appended to a list (atomic under the GIL) and counted afterwards, so the threads
    never share a counter while the click runs."""

    def __init__(self) -> None:
        self.armed = False
        self.events: list[tuple[str, str, str, str, str]] = []
        """(thread name, called module, function, caller module, nearest module of ours above)."""
        self.all_calls = 0

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if not self.armed or event != "call":
            return
        self.all_calls += 1
        module = _module(frame)
        if not ours(module):
            return
        back = frame.f_back
        if _module(back) == __name__:
            return  # this script waiting for the redraw (live_counts.drain): not the click
        self.events.append(
            (
                threading.current_thread().name,
                module,
                frame.f_code.co_qualname,
                _module(back),
                _nearest_ours(back),
            )
        )

    def install(self) -> None:
        threading.setprofile(self)
        sys.setprofile(self)

    def uninstall(self) -> None:
        self.armed = False
        sys.setprofile(None)
        threading.setprofile(None)

    def trace(self) -> Trace:
        trace = Trace(all_calls=self.all_calls)
        for thread, module, function, caller, above in self.events:
            trace.calls[module] += 1
            trace.functions[module, function] += 1
            trace.threads.setdefault(module, Counter())[thread] += 1
            if ours(caller) and caller != module:
                trace.jumps += 1
                trace.arrows[caller, module] += 1
            if above and above != module:
                trace.jumps_through_libraries += 1
        return trace


async def _trace_one_click(*, wrong: bool, click_only: bool, profiler: Profiler) -> Trace:
    # Imported here, after --src put the chosen tree first on sys.path.
    import pytest  # its MonkeyPatch installs the fake Discord, as the tests do

    from bot.discord_ui.client import QuizBot
    from bot.quiz.tasks import Catalog
    from bot.service import QuizService
    from bot.store import Store, make_engine
    from tests.discord_ui.conftest import TOKEN, Driver, choice_task, settings
    from tests.discord_ui.fakes import FakeDiscordHTTP, Member

    warm_member, fresh_member = Member(4401, "warmup"), Member(4402, "fresh")
    option = "A" if wrong else "B"  # choice_task's answer is B
    with (
        tempfile.TemporaryDirectory(prefix="quizbot-trace-") as tmp,
        pytest.MonkeyPatch.context() as monkeypatch,
    ):
        fake = FakeDiscordHTTP()
        fake.install(monkeypatch)
        db = Path(tmp) / "quiz.db"
        store = Store(make_engine(f"sqlite:///{db}"))
        # The service's own group-commit window, as `quizbot run` builds it.
        service = QuizService(Catalog.of([choice_task()]), store)
        # A short interval: the footer's redraw task ends soon after its immediate redraw, so
        # waiting for it (drain) takes no 5 s. The redraw itself is the same.
        bot = QuizBot(settings(db), service, run_scheduler=False, live_count_interval=0.01)
        await bot.login(TOKEN)
        try:
            driver = Driver(bot, fake)
            task_id = choice_task().id
            warm_post = await driver.post(task_id)
            await driver.click(warm_post, rf"quiz:ans:\d+:{option}", member=warm_member)
            await bot.live_counts.drain()
            post = await driver.post(task_id)
            await bot.live_counts.drain()
            fake.clear()
            if click_only:
                monkeypatch.setattr(bot.live_counts, "bump", lambda post_id: None)
            profiler.armed = True
            try:
                await driver.click(post, rf"quiz:ans:\d+:{option}", member=fresh_member)
                if not click_only:
                    await bot.live_counts.drain()
            finally:
                profiler.armed = False
            trace = profiler.trace()
            trace.reply = fake.last_reply().text
            return trace
        finally:
            await bot.close()


def trace_click(*, wrong: bool = False, click_only: bool = False) -> Trace:
    """Run the warm-up and the measured click in a new event loop; the trace of the second."""
    profiler = Profiler()
    profiler.install()  # before the bot exists: every thread it starts inherits the profiler
    try:
        return asyncio.run(_trace_one_click(wrong=wrong, click_only=click_only, profiler=profiler))
    finally:
        profiler.uninstall()


def report(trace: Trace, *, title: str, arrows: int = 0, functions: bool = False) -> str:
    rows = [
        f"### {title}",
        "",
        "| our module | call events | threads |",
        "|---|---:|---|",
    ]
    for module in trace.modules:
        threads = ", ".join(f"{t} ({n})" for t, n in sorted(trace.threads[module].items()))
        rows.append(f"| `{module}` | {trace.calls[module]} | {threads} |")
    thread_calls = trace.thread_calls
    # Which reader of a pool takes a read is up to the scheduler: the pools are the stable count.
    pools = {re.sub(r"_\d+$", "", t) for t in thread_calls}
    rows += [
        f"| **{len(trace.modules)} modules** | {sum(trace.calls.values())} "
        f"| {len(thread_calls)} threads |",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| our modules | {len(trace.modules)} |",
        f"| threads that ran our code | {len(thread_calls)} |",
        f"| thread pools among them (`_N` suffix dropped) | {len(pools)} |",
        f"| jumps between our modules (caller frame in another of ours) | {trace.jumps} |",
        "| jumps through libraries (nearest frame of ours above is another of ours) "
        f"| {trace.jumps_through_libraries} |",
        f"| call events of ours / all call events | {sum(trace.calls.values())} / "
        f"{trace.all_calls} |",
        "",
        "threads: " + ", ".join(f"{t} ({n} calls)" for t, n in sorted(thread_calls.items())),
        "reply: " + (trace.reply.splitlines() or [""])[0][:120],
    ]
    if arrows:
        rows += ["", "| caller module | called module | jumps |", "|---|---|---:|"]
        rows += [f"| `{a}` | `{b}` | {n} |" for (a, b), n in trace.arrows.most_common(arrows)]
    if functions:
        rows += ["", "| our module | function | call events |", "|---|---|---:|"]
        rows += [f"| `{m}` | `{f}` | {n} |" for (m, f), n in sorted(trace.functions.items())]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.trace_click", description=__doc__)
    parser.add_argument(
        "--wrong", action="store_true", help="a first wrong click (it finishes nothing)"
    )
    parser.add_argument(
        "--click-only",
        action="store_true",
        help="leave out the post's footer redraw that the click starts",
    )
    parser.add_argument(
        "--src",
        type=Path,
        default=REPO_ROOT,
        help="the tree whose bot/ and tests/ run (default: this one)",
    )
    parser.add_argument(
        "--arrows",
        type=int,
        default=0,
        metavar="N",
        help="also list the N most frequent caller -> called pairs of our modules",
    )
    parser.add_argument(
        "--functions", action="store_true", help="also list each function of ours that ran"
    )
    parser.add_argument("--markdown", type=Path, help="also write the tables to this file")
    args = parser.parse_args(argv)
    src = str(args.src.resolve())
    if src not in sys.path[:1]:
        sys.path.insert(0, src)
    trace = trace_click(wrong=args.wrong, click_only=args.click_only)
    kind = "a first wrong answer" if args.wrong else "a finishing answer (right, fresh member)"
    extra = ", without the footer redraw" if args.click_only else ", with the footer redraw"
    text = report(
        trace,
        title=f"One click, {kind}{extra}, tree {src}",
        arrows=args.arrows,
        functions=args.functions,
    )
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
