"""`quizbot run` registers the slash commands itself, only when Discord's differ from the bot's
(translations included): registering is rate limited, so a restart with no change sends
nothing. And the invite URL."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final

import aiohttp
import discord
import discord.http
from discord import app_commands

from bot.discord_ui.error_texts import POST_PERMISSIONS

log = logging.getLogger(__name__)

JSON = dict[str, Any]

INVITE_PERMISSIONS: Final = discord.Permissions(
    # Posting a task (what /quiz checks first), then the daily quiz's discussion thread. Every
    # other reply answers an interaction, which needs no permission of the bot's.
    **dict.fromkeys(POST_PERMISSIONS, True),
    create_public_threads=True,
    send_messages_in_threads=True,
)
INVITE_SCOPES: Final = ("bot", "applications.commands")

# What Discord assumes for a field the bot leaves out, so that a default it fills in is no change.
_OPTION_DEFAULTS: Final[JSON] = {"required": False, "autocomplete": False}
_ALL_CONTEXTS: Final[tuple[list[int] | None, ...]] = (None, [0, 1], [0, 1, 2])


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(
        application_id, permissions=INVITE_PERMISSIONS, scopes=INVITE_SCOPES
    )


def _localized(value: Mapping[str, str] | None) -> dict[str, str]:
    return dict(value or {})


def _option(raw: Mapping[str, Any]) -> JSON:
    option: JSON = {
        "type": int(raw["type"]),
        "name": raw["name"],
        "description": raw.get("description", ""),
        "name_localizations": _localized(raw.get("name_localizations")),
        "description_localizations": _localized(raw.get("description_localizations")),
        "choices": [
            (c["name"], c["value"], _localized(c.get("name_localizations")))
            for c in raw.get("choices") or ()
        ],
        "channel_types": sorted(raw.get("channel_types") or ()),
        "options": [_option(o) for o in raw.get("options") or ()],
    }
    for key in ("min_value", "max_value", "min_length", "max_length"):
        option[key] = raw.get(key)
    for key, default in _OPTION_DEFAULTS.items():
        option[key] = bool(raw.get(key) or default)
    return option


def _contexts(raw: Mapping[str, Any]) -> list[int] | None:
    contexts = raw.get("contexts")
    if contexts is not None:
        return sorted(contexts)
    # The older way to say "servers only", which Discord still answers with.
    return [0] if raw.get("dm_permission") is False else None


def normalized(raw: Mapping[str, Any]) -> JSON:
    """A command's payload as the fields that change what members see and may use."""
    permissions = raw.get("default_member_permissions")
    return {
        "type": int(raw.get("type") or 1),
        "name": raw["name"],
        "description": raw.get("description", ""),
        "name_localizations": _localized(raw.get("name_localizations")),
        "description_localizations": _localized(raw.get("description_localizations")),
        "options": [_option(o) for o in raw.get("options") or ()],
        "default_member_permissions": None if permissions is None else int(permissions),
        "nsfw": bool(raw.get("nsfw")),
        "contexts": _contexts(raw),
        "integration_types": sorted(raw.get("integration_types") or [0]),  # 0: servers
    }


def _same(local: JSON, registered: JSON) -> bool:
    contexts = [local["contexts"]]
    if local["contexts"] is None:
        contexts += _ALL_CONTEXTS  # left out, Discord may answer with the contexts it allows
    rest = {k: v for k, v in registered.items() if k != "contexts"}
    return registered["contexts"] in contexts and rest == {
        k: v for k, v in local.items() if k != "contexts"
    }


def differences(local: Iterable[Mapping[str, Any]], registered: Iterable[Mapping[str, Any]]) -> str:
    """What registering would change ("/help added, /quiz changed"), or "" if nothing."""
    ours = {(c["type"], c["name"]): c for c in map(normalized, local)}
    theirs = {(c["type"], c["name"]): c for c in map(normalized, registered)}
    changes = [f"/{name} added" for _, name in ours.keys() - theirs.keys()]
    changes += [f"/{name} removed" for _, name in theirs.keys() - ours.keys()]
    changes += [
        f"/{key[1]} changed"
        for key in ours.keys() & theirs.keys()
        if not _same(ours[key], theirs[key])
    ]
    return ", ".join(sorted(changes))


async def local_payloads(tree: app_commands.CommandTree[Any]) -> list[JSON]:
    """Our commands as `tree.sync` sends them: with their translations, if it has a Translator."""
    translator = tree.translator
    if translator is None:
        return [command.to_dict(tree) for command in tree.get_commands()]
    return [await c.get_translated_payload(tree, translator) for c in tree.get_commands()]


async def fetch_registered(tree: app_commands.CommandTree[Any]) -> list[JSON]:
    """Discord's global commands with their translations. `tree.fetch_commands` cannot ask
    for them (`with_localizations`), and without them every start would see a change."""
    client = tree.client
    if client.application_id is None:
        raise app_commands.MissingApplicationID
    route = discord.http.Route(
        "GET", "/applications/{application_id}/commands", application_id=client.application_id
    )
    registered: list[JSON] = await client.http.request(route, params={"with_localizations": "true"})
    return registered


Fetch = Callable[[app_commands.CommandTree[Any]], Awaitable[list[JSON]]]


async def sync_if_changed(
    tree: app_commands.CommandTree[Any], *, fetch: Fetch = fetch_registered
) -> None:
    """Fetch the global commands once; register ours only if they differ. One INFO line
    either way; a failure is one WARNING line, and the bot serves on."""
    try:
        registered = await fetch(tree)
        local = await local_payloads(tree)
        changes = differences(local, registered)
        if changes and not registered:
            changes = "none were registered yet"
        if not changes:
            log.info("slash commands: the %d registered with Discord are current", len(local))
            return
        synced = await tree.sync()
        log.info(
            "slash commands: registered %d with Discord (%s); new ones can take a few minutes "
            "to show in Discord",
            len(synced),
            changes,
        )
    except discord.HTTPException as exc:
        _cannot_register(f"{exc.status} {exc.text or exc.response.reason}")
    except (aiohttp.ClientError, TimeoutError, app_commands.MissingApplicationID) as exc:
        _cannot_register(str(exc) or type(exc).__name__)


def _cannot_register(reason: str) -> None:
    log.warning(
        "could not register the slash commands with Discord (%s); the bot runs on, and the next "
        "start (or `quizbot sync`) tries again",
        reason,
    )
