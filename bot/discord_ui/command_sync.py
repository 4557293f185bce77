"""`quizbot run` registers the slash commands itself, only when Discord's differ from the bot's:
registering is rate limited, so a restart with no change sends nothing. And the invite URL."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Final

import aiohttp
import discord
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


def registered_payload(command: app_commands.AppCommand) -> JSON:
    """What Discord has, as a payload: `AppCommand.to_dict` leaves out the permissions, nsfw
    and the older servers-only flag."""
    permissions = command.default_member_permissions
    return {
        **command.to_dict(),
        "default_member_permissions": None if permissions is None else permissions.value,
        "nsfw": command.nsfw,
        "dm_permission": command.dm_permission,
    }


def _read_back(values: list[int] | None) -> list[int] | None:
    """`values` as discord.py 2.7's AppCommand reads them back: as if numbered from 1 (context
    0, servers, is lost). Both forms are accepted, so a fixed discord.py changes nothing."""
    return None if values is None else [v - 1 for v in values if v > 0]


def _same(local: JSON, registered: JSON) -> bool:
    contexts = [local["contexts"], _read_back(local["contexts"])]
    if local["contexts"] is None:
        # Left out, Discord may answer with the contexts it then allows.
        contexts += [*_ALL_CONTEXTS, *map(_read_back, _ALL_CONTEXTS)]
    installs = [local["integration_types"], _read_back(local["integration_types"])]
    rest = {k: v for k, v in registered.items() if k not in ("contexts", "integration_types")}
    return (
        registered["contexts"] in contexts
        and registered["integration_types"] in installs
        and rest == {k: v for k, v in local.items() if k not in ("contexts", "integration_types")}
    )


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


async def sync_if_changed(tree: app_commands.CommandTree[Any]) -> None:
    """Fetch the global commands once; register ours only if they differ. One INFO line
    either way; a failure is one WARNING line, and the bot serves on."""
    try:
        registered = await tree.fetch_commands()
        local = [command.to_dict(tree) for command in tree.get_commands()]
        changes = differences(local, [registered_payload(c) for c in registered])
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
