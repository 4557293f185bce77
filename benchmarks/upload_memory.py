"""The upload worker's time and peak memory on hostile 1 MB files: `python -m
benchmarks.upload_memory [--size BYTES] [--cap-mb MB] [NAME …]`.

Each file is checked by `uploads.check_upload_encoded` in a fresh spawned worker process, as
`/bank upload` checks it, with the worker's own memory cap (`uploads.limit_worker_memory`, when
the tree has one). `--cap-mb` caps the worker's whole address space instead (RLIMIT_AS), so an
older tree that blows up stops there rather than taking the machine's memory. Run another tree
with its `bot` first on `PYTHONPATH`. Reports the check's time, the worker's peak RSS (VmHWM)
and peak address space (VmPeak), and the outcome's last line.
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from bot.content import uploads


def hostile(size: int) -> dict[str, tuple[str, bytes]]:
    """Name -> (file name, bytes) of about `size` bytes each."""

    def times(unit: str) -> int:
        return max(1, (size - 300) // len(unit))

    def xml(body: str) -> bytes:
        return (
            '<?xml version="1.0"?><quiz><question type="multichoice"><name><text>q</text></name>'
            f'<questiontext format="html"><text><![CDATA[{body}]]></text></questiontext>'
            '<answer fraction="100"><text>a</text></answer>'
            '<answer fraction="0"><text>b</text></answer></question></quiz>'
        ).encode()

    def gift_html(head: str, middle: str = "", tail: str = "") -> bytes:
        n = times(head + tail)
        return f"::q:: [html]{head * n}{middle}{tail * n} {{=a ~b}}".encode()

    notes = "\n".join(f"- n{i}" for i in range(times("- n12345\n")))
    task = "\n\n1. Q?\n\neasy\n\nA. x\n\nB. y\n\nSolution\n\nFinal Answer: x -> Option A\n"
    option = "ab" * (size // 8)
    question = (
        "::q{i}:: [html]<p>Which protocol, of the ones <b>listed</b>, is number {i}? "
        + "<i>padding</i> " * 18
        + "</p> {{=TCP ~UDP#not that one ~ICMP#nor that, it carries control messages}}"
    )
    return {
        "Moodle XML, nested <ul><li>": ("n.xml", xml("<ul><li>x" * times("<ul><li>x"))),
        "GIFT [html], nested <ul><li>": ("n.gift", gift_html("<ul><li>x")),
        "GIFT [html], nested closed <ol>": ("o.gift", gift_html("<ol><li>x", "", "</li></ol>")),
        "GIFT [html], unclosed <a x": ("u.gift", gift_html("<a x")),
        "GIFT [html], stray end tags": ("s.gift", gift_html("<b>", "x", "</i>")),
        "GIFT, one question's notes": ("m.gift", f"::q:: q {{=a ~b#{notes}}}".encode()),
        "GIFT, 2,000 questions": (
            "t.gift",
            "\n\n".join(question.format(i=i) for i in range(2000)).encode()[:size],
        ),
        "Aiken, blank lines": (
            "a.txt",
            ("Q?\n" + "\n" * times("\n") + "A) x\nB) y\nANSWER: A").encode(),
        ),
        "no suffix, `bank:` lines": ("y.txt", ("bank:\n" * times("bank:\n")).encode()),
        "page, spaces in the title": ("p.html", ("T" + " " * times(" ") + "x" + task).encode()),
        "page, option all over": (
            "p.html",
            (
                "T - Practice\n\n1fill in blank\n\neasy\n\nDo x\n\ncode [1]\n\n"
                f"Drag options to blanks\n\nA{option}\n\nBy\n\nCommon Mistakes\n\n"
                f"{'ab' * (size // 4)} y\n"
            ).encode(),
        ),
        "page, option lines": (
            "p.html",
            ("T - Practice\n\n1. Q?\n\neasy\n\n" + "A. x\n" * times("A. x\n")).encode(),
        ),
    }


def _status() -> dict[str, str]:
    with Path("/proc/self/status").open() as status:
        pairs = (line.split(":", 1) for line in status)
        return {key: value.strip() for key, value in pairs if key in ("VmHWM", "VmPeak")}


def _cap(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _check(data: bytes, filename: str) -> tuple[float, str, dict[str, str]]:
    start = time.perf_counter()
    try:
        result = uploads.check_upload_encoded(data, filename)
        outcome = (
            result.problems[-1]
            if isinstance(result, uploads.RefusedUpload)
            else f"accepted, {len(result.tasks)} tasks"
        )
    except MemoryError:
        outcome = "MemoryError (a traceback in the bot's log)"
    return time.perf_counter() - start, outcome, _status()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=uploads.MAX_UPLOAD_BYTES)
    parser.add_argument("--cap-mb", type=int, help="cap the worker's address space instead")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("names", nargs="*", help="only these files (a part of the name)")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    initializer: Callable[..., None] | None = getattr(uploads, "limit_worker_memory", None)
    initargs: tuple[int, ...] = ()
    if args.cap_mb:
        initializer, initargs = _cap, (args.cap_mb * 2**20,)
    print("| file | size | took | peak RSS | peak address space | outcome |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, (filename, data) in hostile(args.size).items():
        if args.names and not any(part in name for part in args.names):
            continue
        pool = ProcessPoolExecutor(
            1, mp_context=context, initializer=initializer, initargs=initargs
        )
        try:
            took, outcome, status = pool.submit(_check, data, filename).result(args.timeout)
            row = f"{took:.2f} s | {status['VmHWM']} | {status['VmPeak']} | {outcome[:90]}"
        except TimeoutError:
            row = f"over {args.timeout:g} s | | | stopped"
        except BrokenProcessPool:
            row = "| | | the worker died"
        finally:
            for worker in multiprocessing.active_children():
                worker.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        print(f"| {name} | {len(data):,} B | {row} |", flush=True)


if __name__ == "__main__":
    main()
