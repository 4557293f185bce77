"""INTERACTION_CREATE payloads shaped like Discord's: context, command options, components."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from . import payloads
from .jsonutil import dumps
from .state import DM, Attachment, Channel, Guild, Member, Message, Role, User, World

JSON = dict[str, Any]

ATTACHMENT_SIZE_LIMIT = 25 * 1024 * 1024
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = (
    3, 4, 5, 6, 7, 8, 9, 10, 11,
)  # fmt: skip
_SELECT_WITH_RESOLVED = {5: "users", 6: "roles", 7: "mentionables", 8: "channels"}


class Context(NamedTuple):
    data: JSON
    # The same fields serialized, without braces, ready to splice into a payload.
    json_fields: str


class ContextCache:
    """Per (channel, user) invariant part of an interaction payload, as dict and as JSON.

    Rebuilt only when the world's version changes (roles, overwrites, members): a burst of
    clicks by the same user then costs no permission math and no re-serialization.
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self._cache: dict[tuple[int, int], Context] = {}
        self._version = -1

    def get(self, channel: Channel, user: User) -> Context:
        world = self.world
        if world.version != self._version:
            self._cache.clear()
            self._version = world.version
        key = (channel.id, user.id)
        ctx = self._cache.get(key)
        if ctx is None:
            data = self._build(channel, user)
            ctx = self._cache[key] = Context(data, dumps(data)[1:-1])
        return ctx

    def _build(self, channel: Channel, user: User) -> JSON:
        world = self.world
        user_perms = world.member_permissions(channel, user.id)
        ctx: JSON = {
            "application_id": str(world.application_id),
            "version": 1,
            "channel_id": str(channel.id),
            "channel": payloads.channel(channel, world, permissions=user_perms),
            "app_permissions": str(world.bot_permissions(channel)),
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        guild = world.guild_of(channel)
        if guild is None:
            ctx["user"] = payloads.user(user)
            ctx["context"] = 1  # BOT_DM
            ctx["authorizing_integration_owners"] = {"0": "0"}
            return ctx
        member = guild.members.get(user.id)
        if member is None:
            raise ValueError(f"{user.username} is not a member of guild {guild.name!r}")
        gid = str(guild.id)
        ctx.update(
            guild_id=gid,
            guild={"id": gid, "locale": guild.locale, "features": []},
            guild_locale=guild.locale,
            member=payloads.member(member, permissions=user_perms),
            context=0,  # GUILD
            authorizing_integration_owners={"0": gid},
        )
        return ctx


class Resolver:
    """Collects `data.resolved` for user/channel/role/attachment values, like Discord does."""

    def __init__(self, world: World, channel: Channel, invoker_id: int) -> None:
        self.world = world
        self.channel = channel
        self.invoker_id = invoker_id
        self.resolved: JSON = {}

    def user(self, value: Any) -> str:
        user = _as_user(self.world, value)
        self.resolved.setdefault("users", {})[str(user.id)] = payloads.user(user)
        guild = self.world.guild_of(self.channel)
        member = guild.members.get(user.id) if guild else None
        if member is not None:
            perms = self.world.member_permissions(self.channel, user.id)
            self.resolved.setdefault("members", {})[str(user.id)] = payloads.member(
                member, permissions=perms, with_user=False
            )
        return str(user.id)

    def role(self, value: Any) -> str:
        role = _as_role(self.world, value)
        self.resolved.setdefault("roles", {})[str(role.id)] = payloads.role(role)
        return str(role.id)

    def channel_value(self, value: Any, allowed_types: Sequence[int] | None = None) -> str:
        channel = _as_channel(self.world, value)
        if allowed_types and channel.type not in allowed_types:
            raise ValueError(
                f"channel #{channel.name} has type {channel.type}, not {allowed_types}"
            )
        perms = self.world.member_permissions(channel, self.invoker_id)
        data = payloads.channel(channel, self.world, permissions=perms)
        self.resolved.setdefault("channels", {})[str(channel.id)] = data
        return str(channel.id)

    def mentionable(self, value: Any) -> str:
        if isinstance(value, Role) or (isinstance(value, int) and _find_role(self.world, value)):
            return self.role(value)
        return self.user(value)

    def attachment(self, value: Mapping[str, Any]) -> str:
        """An uploaded file: `{"filename": ..., "data": b"...", "content_type": ...}`, and
        `size` to announce another size than the data's (a forged payload). With data, the
        emulator's CDN serves the bytes at the attachment's `url`, as Discord's does, so
        `Attachment.read()` fetches them."""
        aid = str(self.world.ids.next())
        filename = str(value.get("filename", "upload.bin"))
        url = f"https://cdn.discordapp.com/ephemeral-attachments/0/{aid}/{filename}"
        data = value.get("data")
        if isinstance(data, bytes) and self.world.attachment_base:
            self.world.attachments[int(aid)] = Attachment(
                int(aid), filename, value.get("content_type"), data
            )
            url = f"{self.world.attachment_base}/attachments/0/{aid}/{filename}"
        self.resolved.setdefault("attachments", {})[aid] = {
            "id": aid,
            "filename": filename,
            "size": int(value.get("size", len(value.get("data", b"")))),
            "url": url,
            "proxy_url": url,
            "content_type": value.get("content_type"),
            "ephemeral": True,
        }
        return aid


def chat_input_options(
    command: JSON,
    path: Sequence[str],
    values: Mapping[str, Any],
    resolver: Resolver,
    *,
    focused: str | None = None,
) -> list[JSON]:
    """Typed options for `/name sub group ...`, validated against the registered schema."""
    schema: list[JSON] = command.get("options") or []
    wrappers: list[JSON] = []
    for name in path:
        sub = next(
            (
                o
                for o in schema
                if o["name"] == name and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ),
            None,
        )
        if sub is None:
            raise ValueError(f"/{command['name']} has no subcommand (group) {name!r}")
        wrappers.append(sub)
        schema = sub.get("options") or []
    if any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in schema):
        names = [o["name"] for o in schema]
        raise ValueError(f"/{' '.join([command['name'], *path])} needs a subcommand: {names}")
    known = {o["name"] for o in schema}
    unknown = set(values) - known - ({focused} if focused else set())
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)}; the command has {sorted(known)}")
    options: list[JSON] = []
    for opt in schema:
        name = opt["name"]
        if name == focused:
            options.append(
                {
                    "type": opt["type"],
                    "name": name,
                    "value": str(values.get(name, "")),
                    "focused": True,
                }
            )
            continue
        if name not in values:
            if opt.get("required") and focused is None:
                raise ValueError(f"required option {name!r} missing")
            continue
        options.append(
            {"type": opt["type"], "name": name, "value": _option_value(opt, values[name], resolver)}
        )
    for sub in reversed(wrappers):
        options = [{"type": sub["type"], "name": sub["name"], "options": options}]
    return options


def _option_value(opt: JSON, value: Any, resolver: Resolver) -> Any:
    otype, name = opt["type"], opt["name"]
    if otype == STRING:
        if not isinstance(value, str):
            raise ValueError(f"option {name!r} expects a string, got {value!r}")
        lo, hi = opt.get("min_length", 0), opt.get("max_length", 6000)
        if not lo <= len(value) <= hi:
            raise ValueError(f"option {name!r} length must be within [{lo}, {hi}]")
    elif otype == INTEGER:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"option {name!r} expects an integer, got {value!r}")
    elif otype == NUMBER:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"option {name!r} expects a number, got {value!r}")
    elif otype == BOOLEAN:
        if not isinstance(value, bool):
            raise ValueError(f"option {name!r} expects a boolean, got {value!r}")
    elif otype == USER:
        return resolver.user(value)
    elif otype == CHANNEL:
        return resolver.channel_value(value, opt.get("channel_types"))
    elif otype == ROLE:
        return resolver.role(value)
    elif otype == MENTIONABLE:
        return resolver.mentionable(value)
    elif otype == ATTACHMENT:
        return resolver.attachment(value)
    if otype in (INTEGER, NUMBER):
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise ValueError(f"option {name!r}={value} is outside [{lo}, {hi}]")
    choices = opt.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise ValueError(f"option {name!r}={value!r} is not one of its choices")
    return value


def find_component(components: Iterable[Any], custom_id: str) -> JSON | None:
    """Depth-first search through action rows and v2 containers/sections/labels."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        if comp.get("custom_id") == custom_id:
            return comp
        for key in ("components", "items"):
            nested = comp.get(key)
            if isinstance(nested, list):
                found = find_component(nested, custom_id)
                if found is not None:
                    return found
        for key in ("accessory", "component"):
            nested_one = comp.get(key)
            if isinstance(nested_one, dict):
                found = find_component([nested_one], custom_id)
                if found is not None:
                    return found
    return None


def component_data(component: JSON, values: Sequence[Any] | None, resolver: Resolver) -> JSON:
    ctype = component["type"]
    data: JSON = {"custom_id": component["custom_id"], "component_type": ctype}
    if "id" in component:
        data["id"] = component["id"]
    if ctype == 2:
        if values:
            raise ValueError("buttons take no values")
        return data
    chosen = list(values or [])
    lo, hi = component.get("min_values", 1), component.get("max_values", 1)
    if not lo <= len(chosen) <= hi:
        raise ValueError(
            f"select {component['custom_id']!r} takes {lo}..{hi} values, got {len(chosen)}"
        )
    if ctype == 3:
        allowed = {o["value"] for o in component.get("options") or []}
        bad = [v for v in chosen if v not in allowed]
        if bad:
            raise ValueError(f"{bad} are not options of select {component['custom_id']!r}")
        data["values"] = chosen
        return data
    if ctype == 5:
        data["values"] = [resolver.user(v) for v in chosen]
    elif ctype == 6:
        data["values"] = [resolver.role(v) for v in chosen]
    elif ctype == 7:
        data["values"] = [resolver.mentionable(v) for v in chosen]
    elif ctype == 8:
        data["values"] = [resolver.channel_value(v, component.get("channel_types")) for v in chosen]
    else:
        raise ValueError(f"component type {ctype} does not send interactions")
    data["resolved"] = resolver.resolved
    return data


def modal_components(modal: JSON, values: Mapping[str, Any]) -> list[JSON]:
    """The `components` of a MODAL_SUBMIT, mirroring the structure of the modal the bot sent."""
    out: list[JSON] = []
    used: set[str] = set()

    def submitted(comp: JSON) -> JSON:
        cid = comp.get("custom_id")
        item: JSON = {"type": comp["type"], "id": comp.get("id", 0), "custom_id": cid}
        if comp["type"] == 4:
            text = str(values.get(cid, comp.get("value") or ""))
            if comp.get("required", True) and not text:
                raise ValueError(f"text input {cid!r} is required")
            lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
            if text and not lo <= len(text) <= hi:
                raise ValueError(f"text input {cid!r} must be {lo}..{hi} characters")
            item["value"] = text
        else:
            chosen = values.get(cid, [])
            item["values"] = list(chosen) if isinstance(chosen, list | tuple) else [chosen]
        used.add(str(cid))
        return item

    for top in modal.get("components") or []:
        if top.get("type") == 1:
            out.append(
                {
                    "type": 1,
                    "id": top.get("id", 0),
                    "components": [submitted(c) for c in top.get("components") or []],
                }
            )
        elif top.get("type") == 18 and isinstance(top.get("component"), dict):
            out.append(
                {"type": 18, "id": top.get("id", 0), "component": submitted(top["component"])}
            )
        else:
            out.append({"type": top.get("type"), "id": top.get("id", 0)})
    unknown = set(values) - used
    if unknown:
        raise ValueError(f"modal {modal.get('custom_id')!r} has no inputs {sorted(unknown)}")
    return out


def _as_user(world: World, value: Any) -> User:
    if isinstance(value, Member):
        return value.user
    if isinstance(value, User):
        return value
    user = world.users.get(int(value))
    if user is None:
        raise ValueError(f"unknown user {value!r}")
    return user


def _find_role(world: World, role_id: int) -> Role | None:
    for guild in world.guilds.values():
        role = guild.roles.get(role_id)
        if role is not None:
            return role
    return None


def _as_role(world: World, value: Any) -> Role:
    if isinstance(value, Role):
        return value
    role = _find_role(world, int(value))
    if role is None:
        raise ValueError(f"unknown role {value!r}")
    return role


def _as_channel(world: World, value: Any) -> Channel:
    if isinstance(value, Channel):
        return value
    channel = world.live_channel(int(value))
    if channel is None:
        raise ValueError(f"unknown channel {value!r}")
    return channel


def guild_member(world: World, channel: Channel, who: Member | User) -> User:
    """The invoking user; in a guild channel they must be a member of that guild."""
    user = who.user if isinstance(who, Member) else who
    guild: Guild | None = world.guild_of(channel)
    if channel.type != DM and guild is not None and user.id not in guild.members:
        raise ValueError(f"{user.username} is not a member of {guild.name!r}")
    return user


def message_owner(world: World, message: Message) -> int | None:
    """For an ephemeral message, the only user who can see (and click) it."""
    if int(message["id"]) not in world.ephemeral:
        return None
    meta = message.get("interaction_metadata") or {}
    user = meta.get("user") or {}
    return int(user["id"]) if "id" in user else None
