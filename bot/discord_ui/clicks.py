"""Clicks on our components: routed by custom_id, without rebuilding the clicked message's view.

For a registered DynamicItem, discord.py rebuilds the WHOLE clicked message as a View for every
click (`View.from_message`: an item for each of its buttons and selects, a Future and a weights
table, all in reference cycles) only to find the one clicked item and swap ours in: about a
sixth of the Python calls of an answer click and a quarter of the cyclic garbage it leaves for
the collector (BENCHMARKS.md, 2026-12-01, "/review clicks at 300/s"). Every control we send is
a DynamicItem whose custom_id carries all it needs (bot/discord_ui/components.py), so the bot
routes component clicks itself (`QuizBot.on_interaction` calls `dispatch`) and does not
register the items with discord.py, which would then run each click a second time:

1. the custom_id picks the item class, by the class's own template as discord.py matches it
   (each custom_id is claimed by exactly one class; tests/discord_ui/test_components.py);
2. the clicked component is found in the message the click came with (a click on a message
   that does not hold that component is ignored, as discord.py ignores it);
3. the class's `from_custom_id` builds the item from that one component, and its callback runs
   (`Guarded`: every failure a private reply).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import discord

from bot.discord_ui.components import DYNAMIC_ITEMS

if TYPE_CHECKING:
    from bot.discord_ui.client import QuizBot

log = logging.getLogger(__name__)

ROUTES: tuple[tuple[re.Pattern[str], type[discord.ui.DynamicItem[Any]]], ...] = tuple(
    (cls.__discord_ui_compiled_template__, cls) for cls in DYNAMIC_ITEMS
)
"""Each item class with its compiled template (the one discord.py would match)."""


def route(custom_id: str) -> tuple[type[discord.ui.DynamicItem[Any]], re.Match[str]] | None:
    """The item class claiming `custom_id`, and the match; None for a custom_id not ours."""
    for pattern, cls in ROUTES:
        match = pattern.fullmatch(custom_id)
        if match is not None:
            return cls, match
    return None


def _find(components: Iterable[Any], custom_id: str) -> discord.Component | None:
    """The component with this custom_id, in rows, containers and sections alike."""
    for component in components:
        if getattr(component, "custom_id", None) == custom_id:
            return component
        nested = list(getattr(component, "children", None) or ())
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            nested.append(accessory)
        found = _find(nested, custom_id)
        if found is not None:
            return found
    return None


def clicked_item(message: discord.Message | None, custom_id: str) -> discord.ui.Item[Any] | None:
    """The clicked button or select, rebuilt from the message alone (not the whole view)."""
    if message is None:
        return None
    component = _find(message.components, custom_id)
    if isinstance(component, discord.Button):
        return discord.ui.Button.from_component(component)
    if isinstance(component, discord.SelectMenu):
        return discord.ui.Select.from_component(component)
    return None


async def dispatch(interaction: discord.Interaction[QuizBot]) -> None:
    """Run a component click on the item it is for; anything not ours is left alone."""
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        return
    routed = route(custom_id)
    if routed is None:
        return
    cls, match = routed
    base = clicked_item(interaction.message, custom_id)
    if base is None:
        return
    try:
        item = await cls.from_custom_id(interaction, base, match)
    except Exception:  # our bug, as discord.py would report it; from_custom_id only parses
        log.exception("could not build %s for custom_id %r", cls.__name__, custom_id)
        return
    try:
        await item.callback(interaction)
    finally:
        release(interaction)


def release(interaction: discord.Interaction[Any]) -> None:
    """Break the interaction's reference cycle once its click has been answered.

    discord.py caches `interaction.response` on the interaction, and the response points back
    at it: a cycle, so the interaction, the clicked message it carries (rows, buttons, embeds)
    and the member are freed by the cyclic collector, not when the click is done. That is most
    of the garbage a click leaves (about 40 objects of 50), and what the collector's gen-2 passes
    (15-60 ms pauses at 300 clicks/s) are made of: the clicks in flight when a young collection
    runs survive it, and die in the old generation. Dropping the cached response (nothing uses
    it after the callback; a later use would only build a fresh one) lets reference counting
    free it all at once. A discord.py that stops caching it leaves nothing to drop
    (tests/discord_ui/test_clicks.py notices the garbage coming back).
    """
    with contextlib.suppress(AttributeError):
        del interaction._cs_response  # type: ignore[attr-defined]
