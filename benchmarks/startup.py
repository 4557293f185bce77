"""Startup benchmark: time to READY and to the first answered click, and RSS, with a big bank.

    python -m benchmarks.startup                  # 10,000 generated tasks, 3 runs each
    python -m benchmarks.startup --tasks 10000 --banks 100 --runs 3 --markdown out.md

It generates `--tasks` tasks in `--banks` YAML banks (the shipped format, see
content/README.md; half choice, half fill tasks, each about the size of the seed bank's) in a
temp dir, checks them with `python -m bot content check`, and then, for the shipped content/
and for the generated banks, `--runs` times:

- starts the emulator (fakediscord) in this process and a fresh SQLite file holding one post
  whose message (with its answer buttons) the emulator already has;
- starts `python -m bot run` (t = 0), waits for its gateway session to be READY, then clicks
  the post's button A and waits for the callback (the first interaction answered);
- samples the bot's RSS every 20 ms (psutil) and stops it.

Reported: time to READY, time to the first answered click (both from process start), RSS
after that click and peak RSS (medians over the runs), and, for the generated banks, how long
`load_banks` alone takes in this process and how long `content check` took.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from fakediscord import BotProcess, DiscordEmulator

from benchmarks.bots import REPO_ROOT, quiz_bot_env
from benchmarks.machine import RssSampler, loadavg, machine_info

SHIPPED = REPO_ROOT / "content"
SHIPPED_TASK = "mlops-parallelism-mc-1"  # answer A
GENERATED_TASK = "gen-0-0"  # a choice task, answer A


# ---------------------------------------------------------------------------------------------
# Generating banks
# ---------------------------------------------------------------------------------------------


def _q(text: str) -> str:
    """A double-quoted YAML scalar (safe for any text)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def choice_task(tid: str, n: int) -> str:
    options = [
        f"Option {label} for task {n}: workers split the {what} and synchronise after each step."
        for label, what in zip("ABCD", ("data", "model", "pipeline", "optimizer"), strict=True)
    ]
    answer = "ABCD"[n % 4]
    wrong = [label for label in "ABCD" if label != answer]
    return f"""
  - id: {tid}
    kind: choice
    difficulty: {("easy", "medium", "hard")[n % 3]}
    question: >-
      Generated question {n}: a model is trained on several workers. Which statement describes
      how the work is divided between them when the training set is large and the model fits?
    options:
{"".join(f"      - {_q(o)}{chr(10)}" for o in options)}    answer: {answer}
    hint: {_q(f"Think about what each worker holds in task {n}.")}
    solution:
      steps:
        - title: Identify what is split
          text: >-
            Look at what each worker keeps a full copy of, and what it only sees part of. The
            part that is split is the one that does not fit on a single worker.
        - title: Match the option
          text: >-
            Option {answer} is the one that splits the right thing; the others mix up data
            and model.
      final_answer: {_q(options["ABCD".index(answer)] + " -> Option " + answer)}
      quick_check: {_q("Split the data, copy the model [OK]")}
    mistakes:
      - note: Confusing which is split, data or model
        options: [{wrong[0]}]
      - note: Thinking every worker holds only part of the model
        options: [{wrong[1]}, {wrong[2]}]
      - Mixing up the two strategies
"""


def fill_task(tid: str, n: int) -> str:
    return f"""
  - id: {tid}
    kind: fill
    difficulty: {("easy", "medium", "hard")[n % 3]}
    instruction: >-
      Generated task {n}: complete the code to split the dataset across devices and move each
      part of the model to its own device.
    code: |
      shards = dataset.[1](num_devices)
      parts = {{device: model.[2](device) for device in devices}}
    options: [split, to_device, batch, shuffle]
    answers: [A, B]
    hint: >-
      [1] divides the dataset into num_devices parts; [2] moves a model part onto a device.
    solution:
      explanation: >-
        split divides the data for data parallelism and to_device places each model part on its
        device for model parallelism (task {n}).
    mistakes:
      - note: batch groups samples, it does not divide the dataset between devices.
        options: [C]
      - note: shuffle reorders the data but does not split it.
        options: [D]
"""


def generate_banks(root: Path, tasks: int, banks: int) -> int:
    """`tasks` tasks in `banks` files under root/<topic>/; returns the bytes written."""
    per_bank = -(-tasks // banks)
    written = 0
    n = 0
    for b in range(banks):
        count = min(per_bank, tasks - n)
        if count <= 0:
            break
        topic = f"Topic {b % 10}"
        folder = root / f"topic-{b % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        parts = [
            f"bank: Generated bank {b}\ntopic: {topic}\nsource: benchmarks/startup.py\n\ntasks:\n"
        ]
        for _ in range(count):
            tid = f"gen-{b}-{n}"
            parts.append(choice_task(tid, n) if n % 2 == 0 else fill_task(tid, n))
            n += 1
        text = "".join(parts)
        (folder / f"bank-{b:03d}.yaml").write_text(text)
        written += len(text.encode())
    return written


def content_check(path: Path) -> tuple[float, str]:
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "content", "check", str(path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.monotonic() - t0
    out = (proc.stdout + proc.stderr).strip()
    if proc.returncode != 0:
        raise RuntimeError(f"content check failed:\n{out[-3000:]}")
    return elapsed, out.splitlines()[-1] if out else ""


def load_banks_seconds(path: Path) -> float:
    """`load_banks(path)` in this process."""
    from bot.content import load_banks

    t0 = time.perf_counter()
    load_banks(path)
    return time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# One start
# ---------------------------------------------------------------------------------------------


@dataclass
class Start:
    ready_s: float
    first_answer_s: float
    rss_after: int
    rss_peak: int


def prepare_post(
    db_path: Path,
    content: Path,
    guild_id: int,
    channel_id: int,
    task_id: str,
    message_id_for: object,
) -> int:
    """A post of `task_id` (from `content`) in a fresh DB; `message_id_for(post_id)` makes the
    emulator message."""
    from datetime import UTC, datetime

    from bot.content import load_banks
    from bot.quiz.errors import StoreAction
    from bot.store import Store, make_engine, posts
    from tests.store_calls import write

    task = load_banks(content).get_or_raise(task_id)
    engine = make_engine(f"sqlite:///{db_path}")
    try:
        store = Store(engine)
        post = write(
            store,
            posts.create_post,
            guild_id,
            channel_id,
            task,
            None,
            now=datetime.now(UTC),
            schedule_id=None,
            closes_at=None,
            action=StoreAction.POST,
        )
        write(store, posts.set_post_message, post.id, message_id_for(post.id))  # type: ignore[operator]
        return post.id
    finally:
        engine.dispose()


async def one_start(
    content: Path, task_id: str, workdir: Path, run: int, cache_file: Path
) -> Start:
    async with DiscordEmulator() as emulator:
        d = emulator.driver
        guild = d.create_guild("Startup")
        channel = d.create_text_channel(guild, "quiz")
        member = d.add_member(guild, "member")
        messages = {}

        def make_message(post_id: int) -> int:
            row = {
                "type": 1,
                "components": [
                    {"type": 2, "style": 2, "label": x, "custom_id": f"quiz:ans:{post_id}:{x}"}
                    for x in "ABCD"
                ],
            }
            msg = d.add_bot_message(channel, "", components=[row])
            messages[post_id] = msg
            return int(msg["id"])

        db_path = workdir / f"startup-{run}.db"
        post_id = prepare_post(db_path, content, guild.id, channel.id, task_id, make_message)
        env = quiz_bot_env(db_path, content, probe=False)
        env["CONTENT_CACHE"] = str(cache_file)
        proc = BotProcess.for_emulator(
            emulator,
            "bot",
            log_path=workdir / f"startup-{run}.log",
            extra_env=env,
            args=["run"],
            cwd=REPO_ROOT,
        )
        t0 = time.monotonic()
        proc.start()
        assert proc.pid is not None
        rss = RssSampler(proc.pid, every=0.02).start()
        try:
            await proc.wait_until_ready(d, timeout=120)
            ready = time.monotonic() - t0
            ix = d.click_button(messages[post_id], f"quiz:ans:{post_id}:A", user=member)
            body = await ix.wait_response(timeout=30)
            assert ix.responded_at is not None
            first = ix.responded_at - t0
            content_text = (body.get("data") or {}).get("content") or ""
            if "Right" not in content_text:
                raise RuntimeError(f"unexpected first answer: {content_text!r}")
            rss.sample()
            after = rss.last
        finally:
            await rss.stop()
            await proc.stop()
        return Start(ready, first, after, rss.peak)


def median_start(starts: list[Start]) -> Start:
    return Start(
        statistics.median(s.ready_s for s in starts),
        statistics.median(s.first_answer_s for s in starts),
        int(statistics.median(s.rss_after for s in starts)),
        int(statistics.median(s.rss_peak for s in starts)),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.startup", description=__doc__)
    parser.add_argument("--tasks", type=int, default=10_000, help="generated tasks")
    parser.add_argument("--banks", type=int, default=100, help="bank files they are spread over")
    parser.add_argument("--runs", type=int, default=3, help="restarts after the cold one")
    parser.add_argument("--markdown", type=Path, help="also write the table to this file")
    args = parser.parse_args(argv)
    print(f"machine: {machine_info()} load average {loadavg()}", flush=True)
    rows = [
        "| content | tasks | READY s | first answer s | RSS after first answer MB "
        "| peak RSS MB | load avg 1/5/15 |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    notes = []
    with tempfile.TemporaryDirectory(prefix="quizbot-startup-") as tmp:
        workdir = Path(tmp)
        generated = workdir / "content"
        size = generate_banks(generated, args.tasks, args.banks)
        check_s, check_line = content_check(generated)
        notes.append(
            f"- generated: {args.tasks} tasks in {args.banks} banks, {size / 2**20:.1f} MiB of "
            f"YAML; `quizbot content check` took {check_s:.1f} s: {check_line}"
        )
        shipped_s, generated_s = load_banks_seconds(SHIPPED), load_banks_seconds(generated)
        notes.append(
            f"- `load_banks` alone (in this process): shipped {shipped_s:.2f} s, generated "
            f"{generated_s:.2f} s"
        )
        for label, content, task_id, count in (
            ("shipped content/", SHIPPED, SHIPPED_TASK, None),
            (f"generated ({args.tasks} tasks)", generated, GENERATED_TASK, args.tasks),
        ):
            load = loadavg()
            # The first start parses and checks the banks and writes the content cache; the
            # later ones (restarts with unchanged banks) are answered from it.
            cache_file = workdir / f"cache-{len(rows)}.pickle"
            starts = [
                asyncio.run(one_start(content, task_id, workdir, i, cache_file))
                for i in range(1 + args.runs)
            ]
            tasks = count if count is not None else "10"
            for kind, m in (
                ("cold: parse + check", starts[0]),
                ("restart: content cache", median_start(starts[1:])),
            ):
                rows.append(
                    f"| {label}, {kind} | {tasks} | {m.ready_s:.2f} | {m.first_answer_s:.2f} "
                    f"| {m.rss_after / 2**20:.0f} | {m.rss_peak / 2**20:.0f} | {load} |"
                )
            spread = ", ".join(f"{s.first_answer_s:.2f}" for s in starts)
            notes.append(f"- {label}: first answer per start, cold first (s): {spread}")
    text = "\n".join([*rows, "", *notes])
    print(text)
    if args.markdown is not None:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
