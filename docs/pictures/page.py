"""A captured scene as an HTML page in Discord's dark theme, ready for a headless browser.

Only what the bot's messages use is drawn: content, embeds (colour bar, title, description,
fields, image, footer), buttons, select menus, Components v2 containers and text displays, the
"used /command" line and the ephemeral "Only you can see this" line. Every text is escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

JSON = dict[str, Any]
EPHEMERAL = 1 << 6

STYLE = (Path(__file__).parent / "discord.css").read_text(encoding="utf-8")
BUTTON_STYLES = {1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link"}

# Discord's markup first (code, then <t:…>, mentions and custom emoji), so the formatting of
# plain text never reaches inside a code span.
_TOKENS = re.compile(
    r"(?P<block>```(?:(?P<lang>[A-Za-z0-9_+\-.#]*)\n)?(?P<code>[\s\S]*?)```)"
    r"|(?P<inline>`(?P<span>[^`]+)`)"
    r"|(?P<time><t:(?P<unix>-?\d+)(?::(?P<style>[tTdDfFR]))?>)"
    r"|(?P<mention><@!?(?P<user>\d+)>)"
    r"|(?P<emoji><a?:(?P<emoji_name>\w+):\d+>)"
)
_INLINE = [
    (re.compile(r"\*\*(.+?)\*\*", re.S), r"<strong>\1</strong>"),
    (re.compile(r"__(.+?)__", re.S), r"<u>\1</u>"),
    (re.compile(r"\*(?!\s)(.+?)(?<!\s)\*", re.S), r"<em>\1</em>"),
    (re.compile(r"(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)", re.S), r"<em>\1</em>"),
    (re.compile(r"~~(.+?)~~", re.S), r"<s>\1</s>"),
]
_LINE_KINDS = [("-# ", "subtext"), ("### ", "h3"), ("## ", "h2"), ("# ", "h1"), ("> ", "quote")]


def markdown(
    text: str, *, now: datetime | None = None, names: Mapping[str, str] | None = None
) -> str:
    """Discord markdown, minimally: code blocks, inline code, bold, italics, underline,
    strike-through, headings, subtext, quotes, <t:…> timestamps and user mentions."""
    out: list[str] = []
    pos = 0
    for match in _TOKENS.finditer(text):
        out.append(_plain(text[pos : match.start()]))
        pos = match.end()
        if match["block"]:
            code = match["code"].strip("\n")
            out.append(f'<pre class="code-block"><code>{html.escape(code)}</code></pre>')
        elif match["inline"]:
            out.append(f'<code class="inline">{html.escape(match["span"])}</code>')
        elif match["time"]:
            moment = datetime.fromtimestamp(int(match["unix"]), UTC)
            shown = _timestamp(moment, match["style"] or "f", now or moment)
            out.append(f'<span class="timestamp">{html.escape(shown)}</span>')
        elif match["mention"]:
            name = (names or {}).get(match["user"], "unknown-user")
            out.append(f'<span class="mention">@{html.escape(name)}</span>')
        else:
            out.append(f":{html.escape(match['emoji_name'])}:")
    out.append(_plain(text[pos:]))
    return "".join(out)


def _plain(text: str) -> str:
    """Escaped text with Discord's inline formatting and its line prefixes."""
    lines = []
    for line in text.split("\n"):
        kind = next((k for prefix, k in _LINE_KINDS if line.startswith(prefix)), None)
        if kind is not None:
            line = line.split(" ", 1)[1]
        body = html.escape(line, quote=False)
        for pattern, repl in _INLINE:
            body = pattern.sub(repl, body)
        lines.append(f'<span class="{kind}">{body}</span>' if kind else body)
    return "<br>".join(lines)


def _timestamp(moment: datetime, style: str, now: datetime) -> str:
    """What Discord's client shows for <t:…:style>, in UTC (the reader's zone in Discord)."""
    if style == "R":
        seconds = (now - moment).total_seconds()
        ago = seconds >= 0
        seconds = abs(seconds)
        for size, unit in ((86_400, "day"), (3_600, "hour"), (60, "minute")):
            if seconds >= size:
                count = round(seconds / size)
                words = f"{count} {unit}{'s' if count != 1 else ''}"
                return f"{words} ago" if ago else f"in {words}"
        return "a few seconds ago" if ago else "in a few seconds"
    formats = {
        "t": "%H:%M",
        "T": "%H:%M:%S",
        "d": "%d/%m/%Y",
        "D": "%-d %B %Y",
        "f": "%-d %B %Y %H:%M",
        "F": "%A, %-d %B %Y %H:%M",
    }
    return moment.strftime(formats[style])


# ---- a message --------------------------------------------------------------------------------


def message_html(
    message: JSON,
    *,
    author: str,
    member: str,
    used: str | None = None,
    image_src: Callable[[str], str | None] = lambda url: None,
) -> str:
    """One message: its header, content, embeds, components and, if ephemeral, the line
    saying only the member sees it. `image_src` maps an image's URL to a file the page shows."""
    sent = datetime.fromisoformat(message["timestamp"])
    names = {u["id"]: u.get("global_name") or u["username"] for u in message.get("mentions") or []}

    def md(text: str) -> str:
        return markdown(text, now=sent, names=names)

    parts = ['<div class="message">']
    if used:
        parts.append(
            '<div class="used"><span class="spine"></span>'
            f'<span class="mini-avatar">{html.escape(member[:1].upper())}</span>'
            f'<span class="who">{html.escape(member)}</span> used '
            f'<span class="command">/{html.escape(used)}</span></div>'
        )
    parts.append(
        f'<div class="avatar">{html.escape(author[:1].upper())}</div>'
        '<div class="body"><div class="header">'
        f'<span class="author">{html.escape(author)}</span><span class="app">APP</span>'
        f'<span class="time">Today at {sent.astimezone(UTC):%H:%M}</span></div>'
    )
    if message.get("content"):
        parts.append(f'<div class="content">{md(message["content"])}</div>')
    for embed in message.get("embeds") or []:
        parts.append(_embed(embed, md, image_src))
    parts.append(_components(message.get("components") or [], md, image_src))
    shown_in_embeds = {(e.get("image") or {}).get("url") for e in message.get("embeds") or []}
    for attachment in message.get("attachments") or []:
        if f"attachment://{attachment['filename']}" in shown_in_embeds:
            continue  # Discord shows it inside the embed only
        src = image_src(attachment["url"])
        if src is not None:
            parts.append(f'<img class="attachment" src="{html.escape(src)}" alt="">')
    if int(message.get("flags") or 0) & EPHEMERAL:
        parts.append(
            '<div class="ephemeral"><span class="eye">👁</span> Only you can see this · '
            '<span class="dismiss">Dismiss message</span></div>'
        )
    parts.append("</div></div>")
    return "".join(parts)


def _embed(embed: JSON, md: Callable[[str], str], image_src: Callable[[str], str | None]) -> str:
    colour = f"#{int(embed['color']):06x}" if embed.get("color") is not None else "#1e1f22"
    parts = [f'<div class="embed" style="border-left-color: {colour}">']
    if (author := embed.get("author")) and author.get("name"):
        parts.append(f'<div class="embed-author">{html.escape(author["name"])}</div>')
    if embed.get("title"):
        parts.append(f'<div class="embed-title">{md(embed["title"])}</div>')
    if embed.get("description"):
        parts.append(f'<div class="embed-description">{md(embed["description"])}</div>')
    fields = embed.get("fields") or []
    if fields:
        parts.append('<div class="embed-fields">')
        for field in fields:
            css = "embed-field inline" if field.get("inline") else "embed-field"
            parts.append(
                f'<div class="{css}"><div class="field-name">{md(field["name"])}</div>'
                f'<div class="field-value">{md(field["value"])}</div></div>'
            )
        parts.append("</div>")
    if (image := embed.get("image")) and (src := image_src(image.get("url") or "")):
        parts.append(f'<img class="embed-image" src="{html.escape(src)}" alt="">')
    if (footer := embed.get("footer")) and footer.get("text"):
        parts.append(f'<div class="embed-footer">{html.escape(footer["text"])}</div>')
    parts.append("</div>")
    return "".join(parts)


def _components(
    components: list[JSON], md: Callable[[str], str], image_src: Callable[[str], str | None]
) -> str:
    parts = []
    for comp in components:
        kind = comp.get("type")
        if kind == 1:  # action row
            inner = "".join(_control(c) for c in comp.get("components") or [])
            parts.append(f'<div class="row">{inner}</div>')
        elif kind == 10:  # text display
            parts.append(f'<div class="text-display">{md(comp.get("content") or "")}</div>')
        elif kind == 9:  # section: texts with an accessory beside them
            texts = _components(comp.get("components") or [], md, image_src)
            accessory = comp.get("accessory")
            side = _control(accessory) if accessory else ""
            parts.append(f'<div class="section"><div>{texts}</div>{side}</div>')
        elif kind == 14:  # separator
            parts.append('<hr class="separator">' if comp.get("divider", True) else "<br>")
        elif kind == 12:  # media gallery
            for item in comp.get("items") or []:
                src = image_src((item.get("media") or {}).get("url") or "")
                if src:
                    parts.append(f'<img class="embed-image" src="{html.escape(src)}" alt="">')
        elif kind == 17:  # container
            accent = comp.get("accent_color")
            style = f' style="border-left-color: #{int(accent):06x}"' if accent is not None else ""
            inner = _components(comp.get("components") or [], md, image_src)
            parts.append(f'<div class="container"{style}>{inner}</div>')
    return "".join(parts)


def _control(comp: JSON) -> str:
    """A button or a select menu, as drawn in a row or beside a section."""
    disabled = " disabled" if comp.get("disabled") else ""
    if comp.get("type") == 2:
        style = BUTTON_STYLES.get(int(comp.get("style") or 2), "secondary")
        emoji = (comp.get("emoji") or {}).get("name")
        icon = f'<span class="emoji">{html.escape(emoji)}</span>' if emoji else ""
        label = html.escape(comp.get("label") or "")
        arrow = '<span class="external">↗</span>' if style == "link" else ""
        return f'<span class="button {style}{disabled}">{icon}{label}{arrow}</span>'
    if comp.get("type") in (3, 5, 6, 7, 8):  # select menus
        chosen = [o for o in comp.get("options") or [] if o.get("default")]
        if chosen:
            text = ", ".join(o.get("label") or "" for o in chosen)
            shown = f'<span class="chosen">{html.escape(text)}</span>'
        else:
            placeholder = comp.get("placeholder") or "Make a selection"
            shown = f'<span class="placeholder">{html.escape(placeholder)}</span>'
        return f'<div class="select{disabled}">{shown}<span class="chevron">⌄</span></div>'
    return ""


# ---- a page -----------------------------------------------------------------------------------


def page_html(channel: str, messages: list[str], *, width: int) -> str:
    """A whole page: the channel's name bar, then the messages, on Discord's dark background."""
    body = "".join(messages)
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="en"><head><meta charset="utf-8"><title>#{html.escape(channel)}</title>'
        f"<style>{STYLE}</style></head>"
        f'<body style="width: {width}px"><div class="channel">'
        f'<span class="hash">#</span>{html.escape(channel)}</div>{body}</body></html>\n'
    )
