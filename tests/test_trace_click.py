"""benchmarks/trace_click.py (issue 27): the run-time trace of one answer click sees every
layer the click goes through, on every thread, so its module count can be trusted.

It does not assert issue 27's target (at most 12 of our modules): that is a figure to report,
read with `python -m benchmarks.trace_click`."""

from __future__ import annotations

import sys
import threading

import pytest

from benchmarks.trace_click import main, trace_click


def test_a_finishing_click_is_traced_through_discord_ui_the_service_and_the_store() -> None:
    trace = trace_click()

    assert "Right" in trace.reply and "points" in trace.reply  # it finished and scored
    modules = trace.modules
    assert "bot.discord_ui.clicks" in modules  # the answer button's callback
    assert "bot.service" in modules
    assert "bot.store.answers" in modules  # the write unit, on the writer thread
    assert any(m.startswith("bot.quiz.") for m in modules)  # the rules
    assert all(m == "bot" or m.startswith("bot.") for m in modules)
    # One on_interaction listener routes clicks and modal submits alike (clicks.Router): a
    # click runs nothing of the typed or cloze answers' modules.
    assert not {"bot.discord_ui.typed", "bot.discord_ui.cloze"} & set(modules)
    writer_threads = {t for m in modules for t in trace.threads[m] if t != "MainThread"}
    assert writer_threads, "only the event loop's thread was traced"
    assert "MainThread" in trace.thread_calls
    assert 0 < trace.jumps <= trace.jumps_through_libraries
    assert sum(trace.calls.values()) < trace.all_calls  # libraries ran too, not counted as ours
    # The profiler is gone afterwards, from this thread and from threads started later.
    assert sys.getprofile() is None
    assert threading.getprofile() is None


def test_a_wrong_click_and_the_click_alone_are_traced_too() -> None:
    wrong = trace_click(wrong=True)
    assert "Not quite" in wrong.reply and "attempts left" in wrong.reply
    assert "bot.store.answers" in wrong.modules

    alone = trace_click(click_only=True)
    assert "Right" in alone.reply
    # The footer redraw reads the post and its counts: leaving it out leaves fewer calls.
    assert sum(alone.calls.values()) < sum(trace_click().calls.values())


def test_the_script_prints_the_modules_and_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--arrows", "3"]) == 0
    out = capsys.readouterr().out
    assert "| `bot.service` |" in out
    assert "| our modules |" in out and "| threads that ran our code |" in out
    assert "| caller module | called module | jumps |" in out
    assert "reply: ✅ Right" in out
