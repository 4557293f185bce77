"""Registered application commands, global (scope None) and per guild."""

from __future__ import annotations

from typing import Any

from .notify import Notifier
from .snowflake import SnowflakeGenerator

JSON = dict[str, Any]


def localized(command: JSON, locale: str | None) -> JSON:
    """`command` as GET answers without `with_localizations`: no `*_localizations`, but
    `name_localized` and `description_localized` in `locale` (the X-Discord-Locale header),
    on its options too."""
    shown = {k: v for k, v in command.items() if not k.endswith("_localizations")}
    for field in ("name", "description"):
        if field in command:
            translations = command.get(f"{field}_localizations") or {}
            shown[f"{field}_localized"] = translations.get(locale or "", command[field])
    if command.get("options"):
        shown["options"] = [localized(option, locale) for option in command["options"]]
    if command.get("choices"):
        shown["choices"] = [localized(choice, locale) for choice in command["choices"]]
    return shown


def as_seen(command: JSON, locale: str) -> JSON:
    """`command` as a client in `locale` shows it: each name, description and choice name in
    that locale where the bot gave a translation, else as registered."""
    seen = {k: v for k, v in command.items() if not k.endswith("_localizations")}
    for field in ("name", "description"):
        if field in command:
            seen[field] = (command.get(f"{field}_localizations") or {}).get(locale, command[field])
    for nested in ("options", "choices"):
        if command.get(nested):
            seen[nested] = [as_seen(item, locale) for item in command[nested]]
    return seen


class CommandStore:
    def __init__(self, application_id: int, ids: SnowflakeGenerator, changed: Notifier) -> None:
        self.application_id = application_id
        self.ids = ids
        self.changed = changed
        self.scopes: dict[int | None, dict[int, JSON]] = {}
        self.put_count = 0

    def in_scope(self, guild_id: int | None = None) -> list[JSON]:
        return list(self.scopes.get(guild_id, {}).values())

    def replace(self, guild_id: int | None, commands: list[JSON]) -> list[JSON]:
        """Bulk overwrite (PUT): same name+type keeps its id, like Discord."""
        old = {(c["name"], c["type"]): c for c in self.in_scope(guild_id)}
        scope: dict[int, JSON] = {}
        for raw in commands:
            previous = old.get((raw["name"], int(raw.get("type") or 1)))
            stored = self._normalize(raw, guild_id, previous)
            scope[int(stored["id"])] = stored
        self.scopes[guild_id] = scope
        self.put_count += 1
        self.changed.notify()
        return list(scope.values())

    def upsert(self, guild_id: int | None, raw: JSON) -> tuple[JSON, bool]:
        scope = self.scopes.setdefault(guild_id, {})
        ctype = int(raw.get("type") or 1)
        previous = next(
            (c for c in scope.values() if c["name"] == raw["name"] and c["type"] == ctype), None
        )
        stored = self._normalize(raw, guild_id, previous)
        scope[int(stored["id"])] = stored
        self.changed.notify()
        return stored, previous is None

    def get(self, guild_id: int | None, command_id: int) -> JSON | None:
        return self.scopes.get(guild_id, {}).get(command_id)

    def delete(self, guild_id: int | None, command_id: int) -> bool:
        removed = self.scopes.get(guild_id, {}).pop(command_id, None)
        self.changed.notify()
        return removed is not None

    def find(self, name: str, guild_id: int | None, command_type: int = 1) -> JSON | None:
        """Guild commands shadow global ones of the same name, as in the Discord client."""
        for scope in (guild_id, None) if guild_id is not None else (None,):
            for cmd in self.scopes.get(scope, {}).values():
                if cmd["name"] == name and cmd["type"] == command_type:
                    return cmd
        return None

    def _normalize(self, raw: JSON, guild_id: int | None, previous: JSON | None) -> JSON:
        ctype = int(raw.get("type") or 1)
        stored: JSON = {
            "id": previous["id"] if previous else str(self.ids.next()),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
            "default_member_permissions": raw.get("default_member_permissions"),
            "type": ctype,
            "name": raw["name"],
            "name_localizations": raw.get("name_localizations"),
            "description": raw.get("description", ""),
            "description_localizations": raw.get("description_localizations"),
            "dm_permission": raw.get("dm_permission", True),
            "contexts": raw.get("contexts"),
            "integration_types": raw.get("integration_types", [0]),
            "nsfw": bool(raw.get("nsfw", False)),
        }
        if raw.get("options"):
            stored["options"] = raw["options"]
        if guild_id is not None:
            stored["guild_id"] = str(guild_id)
        return stored
