"""Creating, editing and deleting stored messages, and announcing them on the gateway."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from . import payloads
from .errors import invalid_form
from .intents import DIRECT_MESSAGES, GUILD_MESSAGES
from .jsonutil import dumps
from .snowflake import iso_now
from .state import DM, Attachment, Channel, Message, User, World

JSON = dict[str, Any]

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")
_REDACTED_KEYS = ("content", "embeds", "attachments", "components")


@dataclass(slots=True)
class UploadedFile:
    index: int
    filename: str
    content_type: str | None
    data: bytes


class EventSink(Protocol):
    def dispatch(
        self, event: str, data: JSON, intent: int = 0, *, redacted: JSON | None = None
    ) -> None: ...


class Messages:
    def __init__(self, world: World, events: EventSink) -> None:
        self.world = world
        self.events = events
        self.attachment_base = ""  # set by the server once its port is known
        # One shared author dict: every bot message references it instead of copying it.
        self._bot_author = payloads.user(world.bot)
        # Serialized messages for interaction payloads, valid while the revision matches.
        self._revisions: dict[int, int] = {}
        self._json: dict[int, tuple[int, str]] = {}

    def touched(self, msg: Message) -> None:
        """Record that `msg` changed, so cached serializations of it are not reused."""
        mid = int(msg["id"])
        self._revisions[mid] = self._revisions.get(mid, 0) + 1

    def json_of(self, msg: Message) -> str:
        mid = int(msg["id"])
        revision = self._revisions.get(mid, 0)
        cached = self._json.get(mid)
        if cached is not None and cached[0] == revision:
            return cached[1]
        text = dumps(msg)
        self._json[mid] = (revision, text)
        return text

    def author_payload(self, author: User) -> JSON:
        return self._bot_author if author is self.world.bot else payloads.user(author)

    def build(
        self,
        *,
        channel_id: int,
        author: User,
        fields: JSON,
        files: list[UploadedFile] | None = None,
        message_type: int = 0,
        flags: int = 0,
        webhook: bool = False,
        interaction_metadata: JSON | None = None,
    ) -> Message:
        mid = self.world.ids.next()
        content = fields.get("content") or ""
        msg: Message = {
            "type": message_type,
            "content": content,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": fields.get("embeds") or [],
            "timestamp": iso_now(),
            "edited_timestamp": None,
            "flags": flags | int(fields.get("flags") or 0),
            "components": fields.get("components") or [],
            "id": str(mid),
            "channel_id": str(channel_id),
            "author": self.author_payload(author),
            "pinned": False,
            "mention_everyone": False,
            "tts": bool(fields.get("tts")),
        }
        if content and "<@" in content:
            self._fill_mentions(msg, content)
        if files or fields.get("attachments"):
            msg["attachments"] = self._attachments(channel_id, fields, files or [], existing=[])
        if webhook:
            msg["webhook_id"] = str(self.world.application_id)
            msg["application_id"] = str(self.world.application_id)
        if interaction_metadata is not None:
            msg["interaction_metadata"] = interaction_metadata
        if fields.get("nonce") is not None:
            msg["nonce"] = fields["nonce"]
        if author is self.world.bot:
            self.world.note_said(_shown(msg))
        return msg

    def create(
        self,
        channel: Channel,
        author: User,
        fields: JSON,
        files: list[UploadedFile] | None = None,
        **kwargs: Any,
    ) -> Message:
        """Create a public message in `channel`, store it and dispatch MESSAGE_CREATE."""
        msg = self.build(channel_id=channel.id, author=author, fields=fields, files=files, **kwargs)
        reference = fields.get("message_reference")
        if reference:
            self._attach_reference(msg, channel, reference)
        self.publish(channel, msg)
        return msg

    def publish(self, channel: Channel, msg: Message) -> None:
        """Store an already-built message as public in `channel` and dispatch MESSAGE_CREATE."""
        self.store_public(channel, msg)
        self._announce("MESSAGE_CREATE", channel, msg)

    def store_public(self, channel: Channel, msg: Message) -> None:
        mid = int(msg["id"])
        channel.messages[mid] = msg
        channel.last_message_id = mid
        channel.total_message_sent += 1
        self.world.messages[mid] = msg
        self.world.changed.notify()

    def edit(self, msg: Message, fields: JSON, files: list[UploadedFile] | None = None) -> Message:
        for key in ("content", "embeds", "components"):
            if key in fields:
                msg[key] = fields[key]
        if "flags" in fields:
            # Only the suppress-embeds bit may be toggled on edit; the rest are sticky.
            msg["flags"] = (msg["flags"] & ~4) | (int(fields["flags"]) & 4)
        if "content" in fields:
            msg["mentions"], msg["mention_roles"] = [], []
            if "<@" in msg["content"]:
                self._fill_mentions(msg, msg["content"])
        if "attachments" in fields or files:
            msg["attachments"] = self._attachments(
                int(msg["channel_id"]), fields, files or [], existing=msg["attachments"]
            )
        msg["edited_timestamp"] = iso_now()
        self.world.note_said(_shown(msg))  # only the bot edits its messages
        self.touched(msg)
        self.world.changed.notify()
        if int(msg["id"]) in self.world.messages:
            channel = self.world.channels.get(int(msg["channel_id"]))
            if channel is not None:
                self._announce("MESSAGE_UPDATE", channel, msg)
        return msg

    def delete(self, msg: Message) -> None:
        mid = int(msg["id"])
        if self.world.messages.pop(mid, None) is not None:
            channel = self.world.channels.get(int(msg["channel_id"]))
            if channel is not None:
                channel.messages.pop(mid, None)
                data: JSON = {"id": msg["id"], "channel_id": msg["channel_id"]}
                intent = DIRECT_MESSAGES if channel.type == DM else GUILD_MESSAGES
                if channel.guild_id is not None:
                    data["guild_id"] = str(channel.guild_id)
                self.events.dispatch("MESSAGE_DELETE", data, intent)
        else:
            self.world.ephemeral.pop(mid, None)
        self.world.deleted_messages.add(mid)
        self._json.pop(mid, None)
        self.world.changed.notify()

    def _announce(self, event: str, channel: Channel, msg: Message) -> None:
        data = dict(msg)
        intent = DIRECT_MESSAGES if channel.type == DM else GUILD_MESSAGES
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
            guild = self.world.guilds.get(channel.guild_id)
            member = guild.members.get(int(msg["author"]["id"])) if guild else None
            if member is not None and "webhook_id" not in msg:
                data["member"] = payloads.member(member, with_user=False)
        redacted = None
        # Without MESSAGE_CONTENT a bot only sees content of its own messages, DMs and
        # messages that mention it; everyone else's arrives blank.
        bot_id = str(self.world.bot.id)
        is_own = msg["author"]["id"] == bot_id
        mentioned = any(u["id"] == bot_id for u in msg["mentions"])
        if not is_own and not mentioned and channel.type != DM:
            redacted = dict(data)
            for key in _REDACTED_KEYS:
                redacted[key] = "" if key == "content" else []
        self.events.dispatch(event, data, intent, redacted=redacted)

    def _fill_mentions(self, msg: Message, content: str) -> None:
        users = self.world.users
        seen: set[int] = set()
        mentions = []
        for raw in _USER_MENTION.findall(content):
            uid = int(raw)
            if uid in users and uid not in seen:
                seen.add(uid)
                mentions.append(payloads.user(users[uid]))
        msg["mentions"] = mentions
        msg["mention_roles"] = list(dict.fromkeys(_ROLE_MENTION.findall(content)))
        msg["mention_everyone"] = "@everyone" in content or "@here" in content

    def _attach_reference(self, msg: Message, channel: Channel, reference: JSON) -> None:
        ref_id = int(reference.get("message_id") or 0)
        referenced = channel.messages.get(ref_id)
        if referenced is None:
            if reference.get("fail_if_not_exists", True):
                raise invalid_form({"message_reference": "Unknown message"})
            return
        msg["type"] = 19  # REPLY
        msg["message_reference"] = {
            "type": 0,
            "message_id": str(ref_id),
            "channel_id": str(channel.id),
            "guild_id": None if channel.guild_id is None else str(channel.guild_id),
        }
        msg["referenced_message"] = referenced

    def _attachments(
        self, channel_id: int, fields: JSON, files: list[UploadedFile], existing: list[JSON]
    ) -> list[JSON]:
        by_index = {f.index: f for f in files}
        kept = {a["id"]: a for a in existing}
        out: list[JSON] = []
        meta = fields.get("attachments")
        if meta is None:
            # No metadata: keep what was there and append every uploaded file.
            out.extend(existing)
            meta = [{"id": f.index} for f in files]
        used: set[int] = set()
        for item in meta:
            if str(item.get("id")) in kept:
                out.append(kept[str(item["id"])])
                continue
            upload = by_index.get(int(item.get("id", -1)))
            if upload is None:
                raise invalid_form({"attachments": f"Unknown attachment {item.get('id')!r}"})
            used.add(upload.index)
            out.append(self._store_upload(channel_id, upload, item.get("description")))
        for upload in files:
            if upload.index not in used and fields.get("attachments") is not None:
                out.append(self._store_upload(channel_id, upload, None))
        return out

    def _store_upload(self, channel_id: int, upload: UploadedFile, description: str | None) -> JSON:
        aid = self.world.ids.next()
        self.world.attachments[aid] = Attachment(
            aid, upload.filename, upload.content_type, upload.data
        )
        url = f"{self.attachment_base}/attachments/{channel_id}/{aid}/{upload.filename}"
        data: JSON = {
            "id": str(aid),
            "filename": upload.filename,
            "size": len(upload.data),
            "url": url,
            "proxy_url": url,
            "content_type": upload.content_type,
        }
        if description:
            data["description"] = description
        return data


def _shown(msg: Message) -> JSON:
    return {key: msg[key] for key in ("content", "embeds", "components")}
