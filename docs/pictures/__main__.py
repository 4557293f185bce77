"""`python -m docs.pictures`: regenerate docs/images/*.png from the bot as it is today.

Needs the test install (`pip install -e '.[test]' -e ./emulator`) and, for the PNGs, a headless
Chromium (Debian: `apt-get install chromium fonts-noto-color-emoji`). `--html DIR` keeps the
pages; `--html-only` stops there, without Chromium.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from .capture import run
from .render import PicturesError, find_chromium, screenshot_all, write_pages

IMAGES = Path(__file__).resolve().parents[1] / "images"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m docs.pictures",
        description="Play a member's first quiz on the emulated Discord and picture what they see.",
        epilog="example: .venv/bin/python -m docs.pictures --html /tmp/pages",
    )
    parser.add_argument("--out", type=Path, default=IMAGES, help="where the PNGs go")
    parser.add_argument("--html", type=Path, help="keep the HTML pages in this folder")
    parser.add_argument("--html-only", action="store_true", help="write the pages, no PNGs")
    args = parser.parse_args(argv)
    if args.html_only and args.html is None:
        parser.error("--html-only needs --html DIR")
    chromium = None if args.html_only else find_chromium()
    if not args.html_only and chromium is None:
        print(
            "pictures: no chromium on PATH; install it (Debian: apt-get install chromium) "
            "or use --html-only",
            file=sys.stderr,
        )
        return 2
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="quizbot-pages-") as scratch:
        pages = write_pages(run(), args.html or Path(scratch))
        if chromium is not None:
            try:
                screenshot_all(chromium, pages, args.out)
            except PicturesError as exc:
                print(f"pictures: {exc}", file=sys.stderr)
                return 1
    where = args.html if args.html_only else args.out
    print(f"pictures: {len(pages)} written to {where} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
