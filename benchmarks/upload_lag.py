"""The event loop's lag while a server bank is checked: `python -m benchmarks.upload_lag`.

A bank upload is parsed and checked in a worker thread (`QuizService.upload_bank`); the loop
keeps serving clicks meanwhile, sharing the GIL with the check. This uploads files of about
1 MB, each costly in its own way, and reports how long the upload took and the longest the
loop waited past a 1 ms timer during it (what every other server's click would wait at most).
"""

from __future__ import annotations

import asyncio
import time

from bot.content.uploads import MAX_UPLOAD_BYTES, MAX_UPLOAD_TASKS
from bot.quiz.errors import BankRefusedError
from bot.quiz.tasks import Catalog
from bot.service import QuizService
from bot.store import Store, make_engine

TASK = """  - id: t-{n}
    kind: choice
    difficulty: easy
    question: "{q}"
    options: ["{o}", b, c, d]
    answer: {a}
    hint: A hint that is long enough to be a real one.
    solution:
      steps: [{{title: One, text: "{o}"}}, {{title: Two, text: "{o}"}}]
      final_answer: "{o}"
"""


def yaml_bank(answer: str) -> bytes:
    """`MAX_UPLOAD_TASKS` tasks padded to just under 1 MB; answer E gives one problem each."""
    head = "bank: Big\ntopic: Big\ntasks:\n"
    base = len(TASK.format(n=MAX_UPLOAD_TASKS, q="", o="", a=answer))
    extra = (MAX_UPLOAD_BYTES - len(head)) // MAX_UPLOAD_TASKS - base - 1
    q, o = "Q" * (extra // 5), "x" * (extra // 5)  # the option text is written 4 times
    text = head + "".join(
        TASK.format(n=n, q=q, o=o, a=answer) for n in range(MAX_UPLOAD_TASKS)
    )
    assert len(text) <= MAX_UPLOAD_BYTES, len(text)
    return text.encode()


def moodle_xml() -> bytes:
    question = (
        '<question type="multichoice"><name><text>q{n}</text></name>'
        '<questiontext format="html"><text><![CDATA[<p><b>Which</b> one {n}?</p>]]></text>'
        '</questiontext><answer fraction="100"><text>right {n}</text></answer>'
        '<answer fraction="0"><text>wrong</text><feedback><text>no</text></feedback></answer>'
        "</question>\n"
    )
    body, n = [], 0
    size = 40
    while size < MAX_UPLOAD_BYTES - 400 and n < MAX_UPLOAD_TASKS:
        body.append(question.format(n=n))
        size += len(body[-1])
        n += 1
    return ('<?xml version="1.0"?><quiz>\n' + "".join(body) + "</quiz>\n").encode()


WARM = b"""<?xml version="1.0"?><quiz><question type="multichoice"><name><text>w</text></name>
<questiontext format="html"><text>W?</text></questiontext>
<answer fraction="100"><text>a</text></answer><answer fraction="0"><text>b</text></answer>
</question></quiz>"""


async def probe(stop: asyncio.Event, lags: list[float]) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(0.001)
        lags.append(loop.time() - start - 0.001)


async def measure(name: str, filename: str, data: bytes, *, warm: bool = True) -> None:
    service = QuizService(Catalog(), Store(make_engine("sqlite://")))
    await service.start()
    if warm:  # the worker process starts on the first upload: measured on its own below
        await service.upload_bank(2, "warm.xml", WARM, 7)
    stop, lags = asyncio.Event(), []
    prober = asyncio.create_task(probe(stop, lags))
    await asyncio.sleep(0.05)
    lags.clear()
    started = time.perf_counter()
    try:
        done = await service.upload_bank(1, filename, data, 7)
        outcome = f"stored, {len(done.bank.tasks)} tasks"
    except BankRefusedError as error:
        outcome = f"refused, {len(error.problems)} problem lines"
    took = time.perf_counter() - started
    stop.set()
    await prober
    await service.close()
    print(
        f"{name:<34} {len(data) / 1e6:.2f} MB  {took:6.2f} s  {outcome:<28} "
        f"max loop lag {max(lags) * 1000:6.1f} ms ({len(lags)} ticks)"
    )


async def main() -> None:
    await measure("a small bank, starting the worker", "small.xml", WARM, warm=False)
    await measure("YAML, 2,000 valid tasks", "big.yaml", yaml_bank("A"))
    await measure("YAML, 2,000 tasks with a problem", "bad.yaml", yaml_bank("E"))
    await measure("Moodle XML, ~1 MB", "big.xml", moodle_xml())


if __name__ == "__main__":
    asyncio.run(main())
