"""Captured scenes to HTML pages, and pages to cropped PNGs with headless Chromium."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PIL import Image, ImageChops

from .capture import Capture, Scene
from .page import message_html, page_html

WIDTH = 680  # CSS pixels: a chat column wide enough for a 520 px embed and the avatar
HEIGHT = 3000  # taller than any scene; the screenshot is cropped to what was drawn
SCALE = 2  # device pixels per CSS pixel: sharp on high-density screens
BACKGROUND = (0x31, 0x33, 0x38)  # the page's colour, which the crop removes
MARGIN = 16 * SCALE
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class PicturesError(Exception):
    """A problem the person running the script can fix; shown as one line."""


def find_chromium() -> str | None:
    return next((path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)


def write_pages(capture: Capture, folder: Path) -> dict[str, Path]:
    """One HTML page per scene in `folder`, beside the files the messages show; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    images: dict[str, str] = {}
    for attachment_id, data in capture.files.items():
        name = f"attachment-{attachment_id}.png"
        (folder / name).write_bytes(data)
        images[attachment_id] = name
    pages = {}
    for scene in capture.scenes:
        path = folder / f"{scene.name}.html"
        path.write_text(scene_html(scene, capture, images), encoding="utf-8")
        pages[scene.name] = path
    return pages


def scene_html(scene: Scene, capture: Capture, images: dict[str, str]) -> str:
    """The page of one scene; `images` names the local file of each attachment id."""
    rendered = []
    for shown in scene.messages:
        message = shown.message
        by_url = {}
        for attachment in message.get("attachments") or []:
            local = images.get(str(attachment["id"]))
            if local is not None:
                by_url[attachment["url"]] = local
                by_url[f"attachment://{attachment['filename']}"] = local
        rendered.append(
            message_html(
                message,
                author=capture.bot,
                member=capture.member,
                used=shown.used,
                image_src=by_url.get,
            )
        )
    return page_html(scene.channel, rendered, width=WIDTH)


def screenshot_all(chromium: str, pages: dict[str, Path], out: Path, workers: int = 2) -> None:
    """Each page as `out/<name>.png`, a few Chromiums at a time (each mostly waits)."""
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        jobs = [pool.submit(screenshot, chromium, p, out / f"{n}.png") for n, p in pages.items()]
        for job in jobs:
            job.result()


def screenshot(chromium: str, page: Path, out: Path) -> None:
    """`page` as a PNG at `out`, cropped to what it draws plus a margin."""
    with tempfile.TemporaryDirectory(prefix="quizbot-chromium-") as profile:
        raw = Path(profile) / "shot.png"
        args = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--force-device-scale-factor={SCALE}",
            f"--window-size={WIDTH},{HEIGHT}",
            f"--screenshot={raw}",
            page.resolve().as_uri(),
        ]
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0 or not raw.exists():
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise PicturesError(f"chromium could not draw {page.name}: {' / '.join(tail)}")
        with Image.open(raw) as shot:
            # 256 colours look the same here (flat UI, text) at about 40 % of the bytes.
            picture = crop(shot.convert("RGB")).quantize(
                256, Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
            )
            picture.save(out, optimize=True)


def crop(shot: Image.Image) -> Image.Image:
    """The part of `shot` that differs from the background, with a margin below and right."""
    box = ImageChops.difference(shot, Image.new("RGB", shot.size, BACKGROUND)).getbbox()
    if box is None:
        raise PicturesError("chromium drew an empty page")
    right = min(shot.width, box[2] + MARGIN)
    bottom = min(shot.height, box[3] + MARGIN)
    return shot.crop((0, 0, right, bottom))
