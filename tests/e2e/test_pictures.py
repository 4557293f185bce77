"""`python -m docs.pictures` end to end: the real bot on the emulator, the pages, the PNGs.

One capture (about 4 s) serves every test here. The PNG test needs Chromium (about 10 s) and is
skipped without it, so the pages are checked on their own, whether Chromium is there or not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PIL import Image

from docs.pictures import __main__ as script
from docs.pictures import render
from docs.pictures.capture import Capture, run

pytestmark = pytest.mark.e2e

NAMES = ["task-post", "feedback", "picker", "stats"]


@pytest.fixture(scope="module")
def captured() -> Capture:
    return run()


@pytest.fixture(scope="module")
def pages(captured: Capture, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("pages")
    written = render.write_pages(captured, folder)
    assert list(written) == NAMES
    html = {name: path.read_text(encoding="utf-8") for name, path in written.items()}
    # Every picture a page shows is a file beside it.
    for text in html.values():
        for src in re.findall(r'<img [^>]*src="([^"]+)"', text):
            assert (folder / src).is_file(), src
    return html


def test_the_task_post_is_public_with_its_options_and_hint(pages: dict[str, str]) -> None:
    post = pages["task-post"]
    assert "Multiple choice · MLOps" in post
    assert "main difference between data parallelism and model parallelism" in post
    assert post.count('class="button secondary"') == 5  # A-D and the hint
    assert "Hint (halves the points)" in post
    assert "Only you can see this" not in post


def test_the_feedback_is_private_a_miss_then_the_solution(pages: dict[str, str]) -> None:
    feedback = pages["feedback"]
    assert feedback.count("Only you can see this") == 2
    miss, right = feedback.index("Not quite"), feedback.index("✅ Right")
    assert miss < feedback.index("Why not?") < right < feedback.index("Final answer")


def test_the_picker_shows_the_picked_blanks_and_the_last_one_open(pages: dict[str, str]) -> None:
    picker = pages["picker"]
    assert picker.count('class="select"') == 3
    assert picker.count('class="chosen"') == 2
    assert '<span class="placeholder">Blank [3]</span>' in picker
    assert "Submit answer" in picker and "Only you can see this" in picker


def test_stats_carry_the_members_picture(captured: Capture, pages: dict[str, str]) -> None:
    stats = pages["stats"]
    assert '<span class="who">Ada</span> used <span class="command">/stats</span>' in stats
    assert "📊 Stats · Ada" in stats and "2 of 2 tried" in stats
    assert stats.count('class="embed-image"') == 1
    [png] = captured.files.values()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.slow
@pytest.mark.skipif(
    render.find_chromium() is None, reason="no chromium on PATH (apt-get install chromium)"
)
def test_the_script_writes_the_four_pngs(
    captured: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(script, "run", lambda: captured)  # the capture above, not a second one
    assert script.main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{n}.png" for n in NAMES)
    for name in NAMES:
        with Image.open(tmp_path / f"{name}.png") as picture:
            assert picture.width == render.WIDTH * render.SCALE
            # Cropped to the drawing: never the whole window, never an empty strip.
            assert 100 * render.SCALE < picture.height < render.HEIGHT * render.SCALE
            assert len(picture.convert("RGB").getcolors(1 << 16) or ()) > 20
