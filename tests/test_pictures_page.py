"""The docs' pictures (docs/pictures): how a message becomes a page, and the pictures checked in.

The end-to-end run that captures the bot's messages and shoots them is tests/e2e/test_pictures.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from docs.pictures import __main__ as script
from docs.pictures.capture import Capture, Scene, Shown
from docs.pictures.page import markdown, message_html, page_html
from docs.pictures.render import SCALE, WIDTH, crop

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 12, 7, 18, 30, tzinfo=UTC)


def message(**fields: Any) -> dict[str, Any]:
    return {"timestamp": NOW.isoformat(), "content": "", "flags": 0, **fields}


def shown(msg: dict[str, Any], **kwargs: Any) -> str:
    return message_html(msg, author="QuizBot", member="Ada", **kwargs)


# ---- markdown ---------------------------------------------------------------------------------


def test_every_text_is_escaped_inside_and_outside_code() -> None:
    out = markdown('<b>x</b> & `<i>` ```\n<script>alert("x")</script>\n```')
    assert "<b>" not in out and "<i>" not in out and "<script>" not in out
    assert "&lt;b&gt;x&lt;/b&gt; &amp;" in out
    assert '<code class="inline">&lt;i&gt;</code>' in out
    assert "&lt;script&gt;" in out


def test_bold_italics_inline_code_and_code_blocks() -> None:
    out = markdown("**A.** is *right*, _really_: `x = 1`\n```python\nprint(**kw)\n```")
    assert "<strong>A.</strong>" in out
    assert "<em>right</em>" in out and "<em>really</em>" in out
    assert '<code class="inline">x = 1</code>' in out
    # Inside a code block the stars stay stars, and the language line is not code.
    assert '<pre class="code-block"><code>print(**kw)</code></pre>' in out


def test_underscores_inside_names_are_not_italics() -> None:
    assert markdown("device_list and total_batch_size") == "device_list and total_batch_size"


def test_line_breaks_headings_and_subtext() -> None:
    out = markdown("# Title\nfirst\n-# small print")
    assert (
        out == '<span class="h1">Title</span><br>first<br><span class="subtext">small print</span>'
    )


def test_discord_timestamps_read_as_the_client_shows_them() -> None:
    ten_minutes_ago = int(NOW.timestamp()) - 600
    assert "10 minutes ago" in markdown(f"<t:{ten_minutes_ago}:R>", now=NOW)
    assert "a few seconds ago" in markdown(f"<t:{int(NOW.timestamp())}:R>", now=NOW)
    assert "7 December 2026" in markdown(f"<t:{int(NOW.timestamp())}:D>")


def test_a_mention_shows_the_members_name() -> None:
    assert "@Ada" in markdown("<@42> solved it", names={"42": "Ada"})
    assert "&lt;@" not in markdown("<@42>")


# ---- a message --------------------------------------------------------------------------------


def test_an_embed_has_its_colour_bar_title_fields_and_footer() -> None:
    out = shown(
        message(
            embeds=[
                {
                    "color": 0x2ECC71,
                    "title": "Multiple choice · MLOps",
                    "description": "**A.** one",
                    "fields": [
                        {"name": "Topic", "value": "MLOps", "inline": True},
                        {"name": "Why not?", "value": "• a note", "inline": False},
                    ],
                    "footer": {"text": "0 answered <0>"},
                }
            ]
        )
    )
    assert "border-left-color: #2ecc71" in out
    assert "Multiple choice · MLOps" in out and "<strong>A.</strong> one" in out
    assert '<div class="embed-field inline"><div class="field-name">Topic</div>' in out
    assert '<div class="embed-field"><div class="field-name">Why not?</div>' in out
    assert "0 answered &lt;0&gt;" in out


def test_buttons_keep_their_style_emoji_and_label() -> None:
    row = {
        "type": 1,
        "components": [
            {"type": 2, "style": 2, "label": "A · <one>", "custom_id": "quiz:ans:1:A"},
            {"type": 2, "style": 1, "label": "Submit", "emoji": {"name": "✅"}, "custom_id": "s"},
        ],
    }
    out = shown(message(components=[row]))
    assert '<span class="button secondary">A · &lt;one&gt;</span>' in out
    assert '<span class="button primary"><span class="emoji">✅</span>Submit</span>' in out
    assert "quiz:ans" not in out  # custom_ids are never shown


def test_a_select_shows_the_picked_option_or_its_placeholder() -> None:
    options = [{"label": "A · //", "value": "A", "default": True}, {"label": "B · x", "value": "B"}]
    picked = {"type": 3, "placeholder": "Blank [1]", "options": options}
    empty = {"type": 3, "placeholder": "Blank [2]", "options": [{"label": "A", "value": "A"}]}
    out = shown(
        message(
            components=[{"type": 1, "components": [picked]}, {"type": 1, "components": [empty]}]
        )
    )
    assert '<span class="chosen">A · //</span>' in out and "Blank [1]" not in out
    assert '<span class="placeholder">Blank [2]</span>' in out


def test_only_an_ephemeral_message_says_only_you_can_see_it() -> None:
    assert "Only you can see this" in shown(message(content="private", flags=64))
    assert "Only you can see this" not in shown(message(content="public"))


def test_a_reply_to_a_slash_command_says_who_used_it() -> None:
    out = shown(message(content="hi"), used="stats")
    assert '<span class="who">Ada</span> used <span class="command">/stats</span>' in out
    assert " used " not in shown(message(content="hi"))


def test_an_embeds_attached_picture_is_shown_once_from_the_local_file() -> None:
    attachment = {"id": "9", "filename": "stats.png", "url": "http://emulator/9/stats.png"}
    msg = message(attachments=[attachment], embeds=[{"image": {"url": "attachment://stats.png"}}])
    out = shown(
        msg, image_src={"attachment://stats.png": "a-9.png", attachment["url"]: "a-9.png"}.get
    )
    assert out.count('src="a-9.png"') == 1
    assert 'class="embed-image"' in out


def test_components_v2_containers_show_their_texts() -> None:
    container = {
        "type": 17,
        "accent_color": 0x5865F2,
        "components": [{"type": 10, "content": "**Blank 1**"}, {"type": 14}],
    }
    out = shown(message(flags=1 << 15, components=[container]))
    assert "border-left-color: #5865f2" in out and "<strong>Blank 1</strong>" in out
    assert '<hr class="separator">' in out


def test_a_page_names_its_channel() -> None:
    out = page_html("quiz <1>", ["<div>m</div>"], width=WIDTH)
    assert out.startswith("<!DOCTYPE html>")
    assert '<span class="hash">#</span>quiz &lt;1&gt;</div><div>m</div>' in out


# ---- the pictures -----------------------------------------------------------------------------


def test_the_crop_keeps_what_was_drawn_and_a_margin() -> None:
    shot = Image.new("RGB", (400, 900), (0x31, 0x33, 0x38))
    shot.paste((255, 255, 255), (10, 10, 200, 120))
    assert crop(shot).size == (200 + 16 * SCALE, 120 + 16 * SCALE)


@pytest.mark.parametrize("name", ["task-post", "feedback", "picker", "stats"])
def test_the_checked_in_pictures_are_the_scripts(name: str) -> None:
    """README links these; the script draws them WIDTH CSS pixels wide at SCALE."""
    with Image.open(ROOT / "docs" / "images" / f"{name}.png") as picture:
        assert picture.format == "PNG"
        assert picture.width == WIDTH * SCALE
        assert 200 * SCALE < picture.height < 1500 * SCALE


# ---- the script -------------------------------------------------------------------------------


def test_without_chromium_the_script_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(script, "find_chromium", lambda: None)
    assert script.main(["--out", "unused"]) == 2
    assert "apt-get install chromium" in capsys.readouterr().err


def test_html_only_writes_the_pages_and_no_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene = Scene("task-post", "quiz", [Shown(message(content="**Pick one**"))])
    monkeypatch.setattr(script, "run", lambda: Capture([scene], member="Ada", bot="QuizBot"))
    monkeypatch.setattr(script, "find_chromium", lambda: pytest.fail("Chromium is not needed"))
    pages, pictures = tmp_path / "pages", tmp_path / "pictures"
    assert script.main(["--html", str(pages), "--html-only", "--out", str(pictures)]) == 0
    assert [p.name for p in pages.iterdir()] == ["task-post.html"]
    assert "<strong>Pick one</strong>" in (pages / "task-post.html").read_text()
    assert not pictures.exists()
