"""The load benchmark's report: a Markdown table per bot and phase, then ratios to the floor and
to the durable floor (and, with `--bot-src`, this checkout's bot against the other tree's)."""

from __future__ import annotations

import math
import os
import statistics
from collections import Counter
from typing import Any

from benchmarks.load_phases import PhaseResult
from benchmarks.load_run import DURABLE_FLOOR, FLOOR, FLOORS, BotRun, Options


def _fmt(value: float | None, spec: str = ".1f") -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return format(value, spec)


def phase_table(runs: list[BotRun], unit: str = "answer") -> list[str]:
    rows = [
        f"| bot | phase | {unit}s/s | p50 ms | p95 ms | p99 ms | failed | bot CPU µs/{unit} "
        f"| emulator+loadgen CPU µs/{unit} | loop lag ms: max (median 1-s max) | peak RSS MB "
        "| load avg 1/5/15 at start |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in runs:
        for ph in run.phases.values():
            label = "closed loop" if ph.phase == "closed" else f"open {ph.offered_rate:.0f}/s"
            rows.append(
                f"| {run.name} | {label} | {ph.rate:.0f} | {ph.latency_ms(0.5):.1f} "
                f"| {ph.latency_ms(0.95):.1f} | {ph.latency_ms(0.99):.1f} | {ph.failed} "
                f"| {ph.cpu_per_answer_us:.0f} | {ph.loadgen_cpu_per_answer_us:.0f} "
                f"| {_fmt(ph.lag_max_ms)} ({_fmt(ph.lag_typical_ms)}) "
                f"| {run.peak_rss / 2**20:.0f} | {ph.load_before} |"
            )
    return rows


def kind_table(runs: list[BotRun]) -> list[str]:
    """Latency per kind of interaction (the review scenario mixes /review, answers and Next)."""
    rows = [
        "| bot | phase | interaction | count | share | p50 ms | p95 ms | p99 ms | max ms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        for ph in run.phases.values():
            label = "closed loop" if ph.phase == "closed" else f"open {ph.offered_rate:.0f}/s"
            total = max(len(ph.latencies), 1)
            for kind in sorted(ph.kinds, key=lambda k: -len(ph.kinds[k])):
                n = len(ph.kinds[kind])
                ms = " | ".join(
                    f"{ph.kind_latency_ms(kind, p):.1f}" for p in (0.5, 0.95, 0.99, 1.0)
                )
                rows.append(f"| {run.name} | {label} | {kind} | {n} | {n / total:.0%} | {ms} |")
    return rows


def ratio_lines(
    ours: BotRun, floor: BotRun, *, throughput_target: str = "", p99_target: str = ""
) -> list[str]:
    """`ours` against a floor measured in the same run; the targets are the text the figures
    are held to, if any."""
    lines = []
    against = f"the {floor.name}"
    tt = f"; {throughput_target}" if throughput_target else ""
    pt = f" ({p99_target})" if p99_target else ""
    oc, fc = ours.phases.get("closed"), floor.phases.get("closed")
    if oc and fc and fc.rate:
        lines.append(
            f"- {ours.name}: closed-loop throughput **{oc.rate / fc.rate:.2f}× {against}** "
            f"({oc.rate:.0f} vs {fc.rate:.0f}/s{tt}); CPU per answer "
            f"{oc.cpu_per_answer_us / fc.cpu_per_answer_us:.2f}× {against}'s "
            f"({oc.cpu_per_answer_us:.0f} vs {fc.cpu_per_answer_us:.0f} µs)"
        )
    oo, fo = ours.phases.get("open"), floor.phases.get("open")
    if oo and fo and fo.latencies:
        ours_p99, floor_p99 = oo.latency_ms(0.99), fo.latency_ms(0.99)
        lines.append(
            f"- {ours.name}: open-loop {oo.offered_rate:.0f}/s p99 **{ours_p99:.1f} ms = "
            f"{ours_p99 / floor_p99:.2f}× {against}'s** {floor_p99:.1f} ms{pt}"
        )
    return lines


def floor_lines(run: BotRun, floor: BotRun | None, durable: BotRun | None) -> list[str]:
    """A quiz bot against each floor in the run, with the targets it is held to."""
    lines = []
    if floor is not None:
        lines += ratio_lines(
            run,
            floor,
            throughput_target="target ≥ 0.8×, defect < 0.5×",
            p99_target="target ≤ 1.5× and < 50 ms",
        )
    if durable is not None:
        lines += ratio_lines(
            run, durable, throughput_target="target ≥ 0.9×", p99_target="target ≤ 1.5×"
        )
    return lines


def version_lines(after: BotRun, before: BotRun) -> list[str]:
    """This checkout against another source tree's bot, measured in the same run."""
    lines = []
    ac, bc = after.phases.get("closed"), before.phases.get("closed")
    if ac and bc and bc.rate:
        lines.append(
            f"- {after.name} vs {before.name}: closed-loop throughput **{ac.rate / bc.rate:.2f}×** "
            f"({ac.rate:.0f} vs {bc.rate:.0f}/s), CPU per answer "
            f"{ac.cpu_per_answer_us / bc.cpu_per_answer_us:.2f}×"
        )
    ao, bo = after.phases.get("open"), before.phases.get("open")
    if ao and bo and ao.latencies and bo.latencies:
        a99, b99 = ao.latency_ms(0.99), bo.latency_ms(0.99)
        lines.append(
            f"- {after.name} vs {before.name}: open-loop p99 **{a99 / b99:.2f}×** "
            f"({a99:.1f} vs {b99:.1f} ms)"
        )
    return lines


def server_cpu_lines(run: BotRun) -> list[str]:
    """The PostgreSQL server's CPU per answer beside the bot's (on SQLite it is the bot's)."""
    parts = []
    for key, seconds in run.db_server_cpu.items():
        ph = run.phases.get(key)
        if ph is not None and ph.ok:
            parts.append(f"{key} {seconds / ph.ok * 1e6:.0f}")
    if not parts:
        return []
    return [f"- {run.name}: PostgreSQL server CPU µs/answer (not in the bot's): {', '.join(parts)}"]


def writer_lines(run: BotRun) -> list[str]:
    """How busy the bot's database writer thread was, per phase (`WriterLoad`, bot/service.py), and
    how long the machine waited for its disk meanwhile: a stalled disk stalls the writer."""
    lines = []
    for phase, ph in run.phases.items():
        if ph.writer_busy_pct:
            lines.append(
                f"- {run.name} {phase}: database writer thread busy "
                f"{statistics.median(ph.writer_busy_pct):.0f} % of a second (median; max "
                f"{max(ph.writer_busy_pct):.0f} %), a unit queued up to "
                f"{_fmt(ph.writer_wait_max_ms)} ms{_io_pressure(ph)}"
            )
    return lines


def _io_pressure(ph: PhaseResult) -> str:
    """The machine's waits during the phase: for the disk (a stall stops the writer's commit)
    and for CPU the hypervisor gave elsewhere (a slower machine for that phase)."""
    if not ph.seconds:
        return ""
    text = ""
    if ph.io_stall_s is not None:
        text += (
            f"; I/O pressure {100 * ph.io_stall_s / ph.seconds:.1f} % (some task waited for "
            "the disk, the bot's commits included: /proc/pressure/io)"
        )
    if ph.steal_s is not None:
        cores = os.cpu_count() or 1
        text += f"; CPU steal {100 * ph.steal_s / (ph.seconds * cores):.1f} %"
    return text


def report(runs: list[BotRun], info: dict[str, Any], opts: Options) -> str:
    lines = phase_table(runs, "interaction" if opts.scenario == "review" else "answer")
    lines.append("")
    if any(len(ph.kinds) > 1 for run in runs for ph in run.phases.values()):
        lines += [*kind_table(runs), ""]
    floor = next((r for r in runs if r.name == FLOOR), None)
    durable = next((r for r in runs if r.name == DURABLE_FLOOR), None)
    for run in runs:
        if run is floor:
            continue
        if run is durable:
            # What durability alone costs: the disk's share, no quizbot code in it.
            lines += ratio_lines(run, floor) if floor is not None else []
        else:
            lines += floor_lines(run, floor, durable)
        if run is not runs[0] and run.name not in FLOORS:
            lines += version_lines(runs[0], run)
        lines += server_cpu_lines(run)
        lag = max((p.lag_max_ms or 0.0) for p in run.phases.values()) if run.phases else 0.0
        lines.append(f"- {run.name}: max event-loop lag {lag:.1f} ms (target < 50 ms)")
        lines += writer_lines(run)
        replies = Counter[str]()
        for ph in run.phases.values():
            replies.update(ph.replies)
        lines.append(
            f"- {run.name} replies (measured): "
            + ", ".join(f"{k} {v}" for k, v in replies.most_common())
        )
    if floor is not None and floor.lag_final is not None:
        lines.append(f"- floor: max event-loop lag over its runs {floor.lag_final.max_ms:.1f} ms")
    if opts.scenario == "review":
        setup = (
            f"- review sittings: members spread over their sittings in "
            f"{info.get('posting_seconds', 0):.1f} s (not measured); /review replies of nothing "
            f"due: {info.get('wrapped', 0)}; late callbacks "
        )
    else:
        posts = ", ".join(f"{name} {count}" for name, count in info.get("posts", {}).items())
        setup = (
            f"- posts created with /quiz: {posts} in {info.get('posting_seconds', 0):.1f} s;"
            f" members that ran out of posts: {info.get('wrapped', 0)}; late callbacks "
        )
    lines.append(
        setup
        + f"{info.get('late_callbacks')}; unknown routes {len(info.get('unknown_routes', []))}; "
        f"rounds {opts.rounds}; load average at start {info['load_start']}, at end "
        f"{info['load_end']}"
    )
    harness_gc = info.get("harness_gc")
    if harness_gc is not None:
        lines.append(
            "- harness (emulator + load generator) GC, off while measuring: longest pause "
            f"{harness_gc.max_ms:.0f} ms, {harness_gc.total_ms / 1000:.1f} s in all"
        )
    for run in runs:
        ph = run.phases.get("open")
        if ph is not None and ph.skipped:
            lines.append(
                f"- note: {ph.skipped} arrivals of {run.name}'s open loop were dropped: every "
                "member was still waiting for a reply (the bot was overloaded)"
            )
        if ph is not None and ph.dispatch_late_ms > 20:
            lines.append(
                f"- note: the load generator dispatched up to {ph.dispatch_late_ms:.0f} ms late "
                f"in {run.name}'s open loop (a busy machine)"
            )
    return "\n".join(lines)
