"""Builders for Discord API v10 JSON shapes, from the emulated world's entities."""

from __future__ import annotations

from typing import Any

from .intents import GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT
from .snowflake import iso_now
from .state import DM, Channel, Guild, Member, Role, User, World

JSON = dict[str, Any]

GATEWAY_GUILD_MEMBERS_LIMITED = 1 << 15
GATEWAY_PRESENCE_LIMITED = 1 << 13
GATEWAY_MESSAGE_CONTENT_LIMITED = 1 << 19
APPLICATION_COMMAND_BADGE = 1 << 23


def user(u: User) -> JSON:
    data: JSON = {
        "id": str(u.id),
        "username": u.username,
        "discriminator": "0",
        "global_name": u.global_name,
        "avatar": None,
        "avatar_decoration_data": None,
        "banner": None,
        "accent_color": None,
        "public_flags": 0,
        "flags": 0,
        "collectibles": None,
        "primary_guild": None,
    }
    if u.bot:
        data["bot"] = True
    return data


def self_user(u: User) -> JSON:
    data = user(u)
    data.update(verified=True, mfa_enabled=False, locale="en-US", email=None)
    return data


def role(r: Role) -> JSON:
    data: JSON = {
        "id": str(r.id),
        "name": r.name,
        "description": None,
        "color": r.color,
        "colors": {"primary_color": r.color, "secondary_color": None, "tertiary_color": None},
        "hoist": r.hoist,
        "icon": None,
        "unicode_emoji": None,
        "position": r.position,
        "permissions": str(r.permissions),
        "managed": r.managed,
        "mentionable": r.mentionable,
        "flags": 0,
    }
    if r.bot_id is not None:
        data["tags"] = {"bot_id": str(r.bot_id)}
    return data


def member(m: Member, *, permissions: int | None = None, with_user: bool = True) -> JSON:
    data: JSON = {
        "nick": m.nick,
        "avatar": None,
        "banner": None,
        "roles": [str(r) for r in m.role_ids],
        "joined_at": m.joined_at,
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
        "unusual_dm_activity_until": None,
    }
    if with_user:
        data["user"] = user(m.user)
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def overwrites(ch: Channel) -> list[JSON]:
    return [
        {"id": str(o.id), "type": o.type, "allow": str(o.allow), "deny": str(o.deny)}
        for o in ch.overwrites.values()
    ]


def channel(ch: Channel, world: World, *, permissions: int | None = None) -> JSON:
    if ch.type == DM:
        return {
            "id": str(ch.id),
            "type": DM,
            "last_message_id": _opt_id(ch.last_message_id),
            "flags": 0,
            "recipients": [user(world.users[uid]) for uid in ch.recipient_ids],
        }
    data: JSON = {
        "id": str(ch.id),
        "type": ch.type,
        "guild_id": str(ch.guild_id),
        "name": ch.name,
        "parent_id": _opt_id(ch.parent_id),
        "last_message_id": _opt_id(ch.last_message_id),
        "rate_limit_per_user": 0,
        "flags": 0,
    }
    if ch.is_thread:
        data.update(
            owner_id=str(ch.owner_id),
            message_count=len(ch.messages),
            member_count=len(ch.member_ids),
            total_message_sent=ch.total_message_sent,
            thread_metadata={
                "archived": ch.archived,
                "auto_archive_duration": ch.auto_archive_duration,
                "archive_timestamp": ch.created_at,
                "locked": ch.locked,
                "invitable": ch.invitable,
                "create_timestamp": ch.created_at,
            },
        )
        if world.bot.id in ch.member_ids:
            data["member"] = {
                "id": str(ch.id),
                "user_id": str(world.bot.id),
                "join_timestamp": ch.created_at,
                "flags": 0,
            }
    else:
        data.update(
            position=ch.position,
            permission_overwrites=overwrites(ch),
            topic=ch.topic,
            nsfw=False,
            default_auto_archive_duration=1440,
        )
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def guild_create(g: Guild, world: World, *, intents: int, joined: bool = False) -> JSON:
    """`joined`: the bot has just been added to the server, and Discord leaves `unavailable`
    out (discord.py's `on_guild_join`); a server of READY's list says `false`."""
    # Without member/presence intents Discord only lists the bot itself (and voice members).
    if intents & (GUILD_MEMBERS | GUILD_PRESENCES):
        members = [member(m) for m in g.members.values()]
    else:
        members = [member(g.members[world.bot.id])] if world.bot.id in g.members else []
    plain = [ch for ch in g.channels.values() if not ch.deleted and not ch.is_thread]
    threads = [ch for ch in g.channels.values() if not ch.deleted and ch.is_thread]
    bot_member = g.members.get(world.bot.id)
    data: JSON = {
        "id": str(g.id),
        "name": g.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(g.owner_id),
        "region": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": [role(r) for r in g.roles.values()],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "system_channel_id": _opt_id(g.system_channel_id),
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": g.locale,
        "nsfw_level": 0,
        "max_members": 500000,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "application_id": None,
        "incidents_data": None,
        "joined_at": bot_member.joined_at if bot_member else g.joined_at,
        "large": len(g.members) >= 250,
        "unavailable": False,
        "member_count": len(g.members),
        "voice_states": [],
        "members": members,
        "channels": [channel(ch, world) for ch in plain],
        "threads": [channel(ch, world) for ch in threads],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "lazy": True,
    }
    if joined:
        del data["unavailable"]
    return data


def application_flags(allowed_intents: int) -> int:
    flags = APPLICATION_COMMAND_BADGE
    if allowed_intents & GUILD_MEMBERS:
        flags |= GATEWAY_GUILD_MEMBERS_LIMITED
    if allowed_intents & GUILD_PRESENCES:
        flags |= GATEWAY_PRESENCE_LIMITED
    if allowed_intents & MESSAGE_CONTENT:
        flags |= GATEWAY_MESSAGE_CONTENT_LIMITED
    return flags


def application(world: World, *, allowed_intents: int, owner: User) -> JSON:
    return {
        "id": str(world.application_id),
        "name": world.bot.username,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "bot_public": False,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": application_flags(allowed_intents),
        "owner": user(owner),
        "team": None,
        "bot": user(world.bot),
        "approximate_guild_count": len(world.guilds),
        "redirect_uris": [],
        "interactions_endpoint_url": None,
        "tags": [],
        "integration_types_config": {"0": {}},
    }


def ready(
    world: World, *, session_id: str, resume_url: str, allowed_intents: int, shard: list[int] | None
) -> JSON:
    data: JSON = {
        "v": 10,
        "user": self_user(world.bot),
        "user_settings": {},
        "guilds": [
            {"id": str(g.id), "unavailable": True}
            for g in world.guilds.values()
            if world.bot.id in g.members
        ],
        "relationships": [],
        "private_channels": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": ["us-east"],
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_url,
        "application": {
            "id": str(world.application_id),
            "flags": application_flags(allowed_intents),
        },
        "_trace": ['["fakediscord",{"micros":0}]'],
    }
    if shard is not None:
        data["shard"] = shard
    return data


def thread_member(ch: Channel, user_id: int) -> JSON:
    return {
        "id": str(ch.id),
        "user_id": str(user_id),
        "join_timestamp": iso_now(),
        "flags": 0,
    }


def _opt_id(value: int | None) -> str | None:
    return None if value is None else str(value)
