"""Discord's request-body limits, so a bot that would be rejected by Discord is rejected here."""

from __future__ import annotations

from typing import Any

from .errors import empty_message, invalid_form

JSON = dict[str, Any]

EPHEMERAL = 1 << 6
SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_COMPONENTS_V2 = 1 << 15
LOADING = 1 << 7
SENDABLE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2
INTERACTION_FLAGS = SENDABLE_FLAGS | EPHEMERAL

_MESSAGE_KEYS = ("content", "embeds", "components", "attachments", "sticker_ids", "poll")
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
_COMMAND_NAME_EXTRA = frozenset("-_'")


def message_fields(body: JSON, *, files: int, editing: bool, flags_allowed: int) -> JSON:
    """Validate a create/edit message body and return only the fields it sets."""
    errors: dict[str, str] = {}
    fields: JSON = {}
    if "content" in body:
        content = body["content"]
        if content is not None and not isinstance(content, str):
            errors["content"] = "Must be a string."
        elif content and len(content) > 2000:
            errors["content"] = "Must be 2000 or fewer in length."
        fields["content"] = content or ""
    if "embeds" in body:
        embeds = body["embeds"] or []
        _check_embeds(embeds, errors)
        fields["embeds"] = [_normalize_embed(e) for e in embeds if isinstance(e, dict)]
    flags = int(body.get("flags") or 0)
    if "flags" in body:
        fields["flags"] = flags & flags_allowed
    if "components" in body:
        components = body["components"] or []
        if not flags & IS_COMPONENTS_V2:
            _check_action_rows(components, errors)
        fields["components"] = _with_component_ids(components)
    for key in ("attachments", "message_reference", "tts", "poll", "sticker_ids", "nonce"):
        if key in body:
            fields[key] = body[key]
    if errors:
        raise invalid_form(errors)
    if not editing and not files and not any(body.get(k) for k in _MESSAGE_KEYS):
        raise empty_message()
    return fields


def _check_embeds(embeds: list[Any], errors: dict[str, str]) -> None:
    if len(embeds) > 10:
        errors["embeds"] = "Must be 10 or fewer in length."
        return
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            errors[f"embeds.{i}"] = "Must be an object."
            continue
        for key, limit in (("title", 256), ("description", 4096)):
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                errors[f"embeds.{i}.{key}"] = f"Must be {limit} or fewer in length."
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors[f"embeds.{i}.fields"] = "Must be 25 or fewer in length."
        for j, f in enumerate(fields):
            name, value = f.get("name") or "", f.get("value") or ""
            total += len(name) + len(value)
            if not name or len(name) > 256:
                errors[f"embeds.{i}.fields.{j}.name"] = "Must be between 1 and 256 in length."
            if not value or len(value) > 1024:
                errors[f"embeds.{i}.fields.{j}.value"] = "Must be between 1 and 1024 in length."
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048:
            errors[f"embeds.{i}.footer.text"] = "Must be 2048 or fewer in length."
        if len(author) > 256:
            errors[f"embeds.{i}.author.name"] = "Must be 256 or fewer in length."
    if total > 6000:
        errors["embeds"] = "Embed size exceeds maximum size of 6000"


def _normalize_embed(embed: JSON) -> JSON:
    out = dict(embed)
    out.setdefault("type", "rich")
    out.setdefault("content_scan_version", 0)
    return out


def _check_action_rows(rows: list[Any], errors: dict[str, str]) -> None:
    if len(rows) > 5:
        errors["components"] = "Must be 5 or fewer in length."
    seen: set[str] = set()
    for i, row in enumerate(rows):
        path = f"components.{i}"
        if not isinstance(row, dict) or row.get("type") != 1:
            errors[f"{path}.type"] = "Top-level components must be action rows (type 1)."
            continue
        children = row.get("components") or []
        if not children or len(children) > 5:
            errors[f"{path}.components"] = "Must be between 1 and 5 in length."
        selects = sum(1 for c in children if c.get("type") in _SELECT_TYPES)
        if selects and len(children) > 1:
            errors[f"{path}.components"] = "A select menu must be alone in its action row."
        for j, child in enumerate(children):
            _check_component(child, f"{path}.components.{j}", seen, errors)


def _check_component(c: JSON, path: str, seen: set[str], errors: dict[str, str]) -> None:
    ctype = c.get("type")
    custom_id = c.get("custom_id")
    if ctype == 2:
        style = c.get("style")
        if style == 5:
            if not c.get("url") or custom_id:
                errors[path] = "Link buttons need a url and no custom_id."
            custom_id = None
        elif style == 6:
            custom_id = None
        elif style in (1, 2, 3, 4):
            if not custom_id:
                errors[f"{path}.custom_id"] = "This field is required"
        else:
            errors[f"{path}.style"] = f"Invalid button style {style!r}."
        label = c.get("label") or ""
        if len(label) > 80:
            errors[f"{path}.label"] = "Must be 80 or fewer in length."
        if not label and not c.get("emoji") and style != 6:
            errors[path] = "A button needs a label or an emoji."
    elif ctype in _SELECT_TYPES:
        if not custom_id:
            errors[f"{path}.custom_id"] = "This field is required"
        options = c.get("options") or []
        if ctype == 3 and not 1 <= len(options) <= 25:
            errors[f"{path}.options"] = "Must be between 1 and 25 in length."
        lo, hi = c.get("min_values", 1), c.get("max_values", 1)
        if not 0 <= lo <= hi <= 25 or (ctype == 3 and hi > len(options)):
            errors[f"{path}.max_values"] = "Invalid min_values/max_values."
        for k, opt in enumerate(options):
            if not 1 <= len(opt.get("label") or "") <= 100:
                errors[f"{path}.options.{k}.label"] = "Must be between 1 and 100 in length."
            if not 1 <= len(opt.get("value") or "") <= 100:
                errors[f"{path}.options.{k}.value"] = "Must be between 1 and 100 in length."
    else:
        errors[f"{path}.type"] = f"Component type {ctype!r} is not allowed in an action row."
    if custom_id is not None:
        if len(custom_id) > 100:
            errors[f"{path}.custom_id"] = "Must be 100 or fewer in length."
        if custom_id in seen:
            errors[f"{path}.custom_id"] = "Component custom id cannot be duplicated"
        seen.add(custom_id)


def _with_component_ids(components: list[Any]) -> list[Any]:
    # Discord numbers every component in a message when the sender did not.
    counter = 0

    def walk(items: list[Any]) -> None:
        nonlocal counter
        for item in items:
            if not isinstance(item, dict):
                continue
            counter += 1
            item.setdefault("id", counter)
            for key in ("components", "items"):
                if isinstance(item.get(key), list):
                    walk(item[key])
            for key in ("accessory", "component"):
                if isinstance(item.get(key), dict):
                    walk([item[key]])

    walk(components)
    return components


def autocomplete_choices(data: JSON) -> list[JSON]:
    choices = data.get("choices")
    if not isinstance(choices, list) or len(choices) > 25:
        raise invalid_form({"data.choices": "Must be 25 or fewer in length."})
    for i, choice in enumerate(choices):
        if not 1 <= len(str(choice.get("name") or "")) <= 100:
            raise invalid_form({f"data.choices.{i}.name": "Must be between 1 and 100 in length."})
    return choices


def modal(data: JSON) -> JSON:
    errors: dict[str, str] = {}
    if not 1 <= len(data.get("custom_id") or "") <= 100:
        errors["data.custom_id"] = "Must be between 1 and 100 in length."
    if not 1 <= len(data.get("title") or "") <= 45:
        errors["data.title"] = "Must be between 1 and 45 in length."
    if not 1 <= len(data.get("components") or []) <= 5:
        errors["data.components"] = "Must be between 1 and 5 in length."
    if errors:
        raise invalid_form(errors)
    return data


def commands(payload: Any) -> list[JSON]:
    if not isinstance(payload, list):
        raise invalid_form({"_root": "Expected a list of application commands."})
    errors: dict[str, str] = {}
    seen: set[tuple[str, int]] = set()
    for i, cmd in enumerate(payload):
        _check_command(cmd, f"{i}", errors)
        key = (str(cmd.get("name")), int(cmd.get("type") or 1))
        if key in seen:
            errors[f"{i}.name"] = "Application command names must be unique"
        seen.add(key)
    if sum(1 for c in payload if int(c.get("type") or 1) == 1) > 100:
        errors["_root"] = "Must be 100 or fewer chat input commands."
    if errors:
        raise invalid_form(errors)
    return payload


def command(cmd: Any) -> JSON:
    errors: dict[str, str] = {}
    if not isinstance(cmd, dict):
        raise invalid_form({"_root": "Expected an application command object."})
    _check_command(cmd, "", errors)
    if errors:
        raise invalid_form(errors)
    return cmd


def _check_command(cmd: JSON, path: str, errors: dict[str, str]) -> None:
    prefix = f"{path}." if path else ""
    ctype = int(cmd.get("type") or 1)
    name = cmd.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        errors[f"{prefix}name"] = "Must be between 1 and 32 in length."
        return
    if ctype == 1:
        if not _valid_slash_name(name):
            errors[f"{prefix}name"] = f"Command name {name!r} is invalid (lowercase, no spaces)."
        _check_description(cmd, f"{prefix}description", errors)
        _check_options(cmd.get("options") or [], f"{prefix}options", errors, depth=0)
    elif ctype in (2, 3, 4):
        if cmd.get("description"):
            errors[f"{prefix}description"] = "Context menu commands cannot have a description."
    else:
        errors[f"{prefix}type"] = f"Invalid application command type {ctype!r}."


def _check_options(options: list[JSON], path: str, errors: dict[str, str], depth: int) -> None:
    if len(options) > 25:
        errors[path] = "Must be 25 or fewer in length."
    optional_seen = False
    names: set[str] = set()
    for i, opt in enumerate(options):
        opath = f"{path}.{i}"
        otype = opt.get("type")
        name = opt.get("name") or ""
        if not 1 <= len(name) <= 32 or not _valid_slash_name(name):
            errors[f"{opath}.name"] = f"Option name {name!r} is invalid."
        if name in names:
            errors[f"{opath}.name"] = "Option names must be unique"
        names.add(name)
        _check_description(opt, f"{opath}.description", errors)
        if otype in (1, 2):
            if (otype == 2 and depth > 0) or (otype == 1 and depth > 1):
                errors[f"{opath}.type"] = "Subcommands cannot be nested this deeply."
            _check_options(opt.get("options") or [], f"{opath}.options", errors, depth + 1)
            continue
        if not isinstance(otype, int) or not 3 <= otype <= 11:
            errors[f"{opath}.type"] = f"Invalid option type {otype!r}."
        if opt.get("required"):
            if optional_seen:
                errors[f"{opath}.required"] = (
                    "Required options must be placed before non-required options"
                )
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            errors[f"{opath}.choices"] = "Must be 25 or fewer in length."
        for c, choice in enumerate(choices):
            _check_localizations(choice, f"{opath}.choices.{c}", errors)
        if choices and opt.get("autocomplete"):
            errors[f"{opath}.autocomplete"] = "Autocomplete cannot be used with choices."


def _check_description(obj: JSON, path: str, errors: dict[str, str]) -> None:
    description = obj.get("description")
    if not isinstance(description, str) or not 1 <= len(description) <= 100:
        errors[path] = "Must be between 1 and 100 in length."
    _check_localizations(obj, path.rsplit(".", 1)[0], errors)


DISCORD_LOCALES = frozenset({
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl",
    "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi",
    "th", "zh-CN", "ja", "zh-TW", "ko",
})  # fmt: skip
_LOCALIZED_LIMITS = {"name_localizations": 32, "description_localizations": 100}


def _check_localizations(obj: JSON, path: str, errors: dict[str, str]) -> None:
    """Translations: keyed by Discord's locales, each within the field's own limit."""
    for field, limit in _LOCALIZED_LIMITS.items():
        translations = obj.get(field) or {}
        if not isinstance(translations, dict):
            errors[f"{path}.{field}"] = "Expected a mapping of locales to strings."
            continue
        for locale, text in translations.items():
            where = f"{path}.{field}.{locale}" if path else f"{field}.{locale}"
            if locale not in DISCORD_LOCALES:
                errors[where] = f"Invalid locale {locale!r}."
            elif not isinstance(text, str) or not 1 <= len(text) <= limit:
                errors[where] = f"Must be between 1 and {limit} in length."


def _valid_slash_name(name: str) -> bool:
    return name == name.lower() and all(ch.isalnum() or ch in _COMMAND_NAME_EXTRA for ch in name)
