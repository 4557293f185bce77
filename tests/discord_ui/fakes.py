"""A fake Discord below discord.py: it replaces the two lowest HTTP entry points.

`HTTPClient.request` (the bot's REST calls) and `AsyncWebhookAdapter.request` (interaction
callbacks, follow-ups and edits) are swapped for `FakeDiscordHTTP.handle`, which records every
route and JSON body and answers with Discord-shaped payloads. Everything above (Interaction,
InteractionResponse, Message, views, embeds) is discord.py's real code, so a test sees exactly
the JSON the bot would put on the wire: the ephemeral flag, custom_ids, embeds.

Interactions are built from raw gateway payloads, the way discord.py's own
tests/test_app_commands_invoke.py does, and dispatched through the real
`ConnectionState.parse_interaction_create`.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Awaitable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
from discord.http import HTTPClient, Route
from discord.webhook.async_ import AsyncWebhookAdapter

EPHEMERAL = 64
COMPONENTS_V2 = 1 << 15
APP_ID = 900000000000000001
BOT_ID = 900000000000000002
GUILD_ID = 800000000000000001
CHANNEL_ID = 700000000000000001
OTHER_CHANNEL_ID = 700000000000000002

# Interaction callback types.
CHANNEL_MESSAGE = 4
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE = 6
UPDATE_MESSAGE = 7
AUTOCOMPLETE_RESULT = 8

POST_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, embed_links=True, read_message_history=True
)


def response(status: int, reason: str = "") -> Any:
    """What discord.py's HTTPException reads of an HTTP response (its status and reason): to
    build the errors Discord's refusals raise, e.g. `discord.NotFound(response(404), {...})`."""
    return SimpleNamespace(status=status, reason=reason)


@dataclass(frozen=True)
class Upload:
    """A file sent with a message (multipart form), as Discord receives it."""

    filename: str
    data: bytes


@dataclass
class Call:
    method: str
    path: str
    """The route template, e.g. "/channels/{channel_id}/messages"."""
    url: str
    json: Any
    params: dict[str, Any] | None = None
    uploads: list[Upload] = field(default_factory=list)
    """The files of a multipart request, in order; `json` is then its payload_json."""

    @property
    def callback_type(self) -> int | None:
        return self.json.get("type") if self.json and self.path.endswith("/callback") else None

    @property
    def data(self) -> dict[str, Any]:
        """The message body: a callback's `data`, or the JSON of any other call."""
        if self.path.endswith("/callback"):
            return (self.json or {}).get("data") or {}
        return self.json or {}

    @property
    def flags(self) -> int:
        return int(self.data.get("flags", 0) or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def text(self) -> str:
        """Everything a member would read: content, embeds and v2 text displays."""
        data = self.data
        parts = [data.get("content") or ""]
        for embed in data.get("embeds") or []:
            parts += [embed.get("title", ""), embed.get("description", "")]
            for f in embed.get("fields", []):
                parts += [f["name"], f["value"]]
            parts.append((embed.get("footer") or {}).get("text", ""))
        parts += [c.get("content", "") for c in walk(data.get("components") or [])]
        return "\n".join(p for p in parts if p)

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in walk(self.data.get("components") or []) if "custom_id" in c]


def _decode_form(form: list[dict[str, Any]]) -> tuple[Any, list[Upload]]:
    """discord.py's multipart form (`handle_message_parameters`): its payload_json, and the
    files, read from their file objects as aiohttp would send them."""
    payload: Any = None
    uploads = []
    for part in form:
        if part["name"] == "payload_json":
            payload = json.loads(part["value"])
        else:
            fp = part["value"]
            fp.seek(0)
            uploads.append(Upload(part["filename"], fp.read()))
    return payload, uploads


def walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for c in components:
        out.append(c)
        out += walk(c.get("components") or [])
        if "accessory" in c:
            out.append(c["accessory"])
    return out


def user_payload(user_id: int, name: str) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name.title(),
        "discriminator": "0",
        "avatar": None,
    }


@dataclass
class FakeDiscordHTTP:
    """discord.py's HTTP layer, faked: records every call and answers like Discord would."""

    calls: list[Call] = field(default_factory=list)
    messages: dict[int, dict[str, Any]] = field(default_factory=dict)
    interaction_message: dict[int, int] = field(default_factory=dict)
    """interaction id -> the message its response created or will update."""
    fail: dict[str, discord.HTTPException | type[Exception]] = field(default_factory=dict)
    """route template -> exception to raise instead of answering."""
    channel_posts: list[int] = field(default_factory=list)
    """Ids of the messages sent to channels (task posts), in order."""
    latency: float = 0.0
    hold: dict[str, asyncio.Event] = field(default_factory=dict)
    """route template -> an event the answer waits for (a request kept in flight)."""
    cdn: dict[str, bytes | BaseException] = field(default_factory=dict)
    """url -> the bytes Discord's CDN serves there (an uploaded attachment)."""
    cdn_fetches: list[str] = field(default_factory=list)
    files: list[tuple[str, bytes]] = field(default_factory=list)
    """(filename, content) of every file the bot sent, in order."""
    registered_commands: list[dict[str, Any]] = field(default_factory=list)
    """The application commands Discord holds (the last bulk overwrite)."""
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(10**17))

    def next_id(self) -> int:
        return next(self._ids)

    # -- what the tests look at ------------------------------------------------------------------

    def callbacks(self) -> list[Call]:
        return [c for c in self.calls if c.path.endswith("/callback")]

    def replies(self) -> list[Call]:
        """Every message-bearing answer to an interaction: callbacks with data, follow-ups,
        and edits of the original response."""
        return [
            c
            for c in self.calls
            if (c.path.endswith("/callback") and c.callback_type in (4, 7))
            or c.path == "/webhooks/{webhook_id}/{webhook_token}"
            or (c.path.endswith("/messages/@original") and c.method == "PATCH")
        ]

    def last_reply(self) -> Call:
        return self.replies()[-1]

    def posts(self) -> list[Call]:
        return [c for c in self.calls if c.method == "POST" and c.path.endswith("/messages")]

    def edits(self) -> list[Call]:
        return [
            c for c in self.calls if c.method == "PATCH" and c.path.endswith("{message_id}")
        ]

    def response_to(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The message an interaction's response created (or updated), as Discord holds it."""
        return self.messages[self.interaction_message[int(payload["id"])]]

    def clear(self) -> None:
        self.calls.clear()

    # -- the wire --------------------------------------------------------------------------------

    def message_payload(
        self, body: dict[str, Any], *, channel_id: int, message_id: int | None = None
    ) -> dict[str, Any]:
        message_id = message_id or self.next_id()
        payload = {
            "id": str(message_id),
            "channel_id": str(channel_id),
            "guild_id": str(GUILD_ID),
            "type": 0,
            "content": body.get("content") or "",
            "embeds": body.get("embeds") or [],
            "components": body.get("components") or [],
            "flags": int(body.get("flags", 0) or 0),
            "author": {**user_payload(BOT_ID, "quizbot"), "bot": True},
            "timestamp": discord.utils.utcnow().isoformat(),
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "pinned": False,
            "application_id": str(APP_ID),
        }
        self.messages[message_id] = payload
        return payload

    def _update(self, message_id: int, body: dict[str, Any]) -> dict[str, Any]:
        message = self.messages[message_id]
        ephemeral = int(message.get("flags", 0) or 0) & EPHEMERAL
        for key in ("content", "embeds", "components", "flags"):
            if key in body:
                message[key] = body[key] if body[key] is not None else message[key]
        # An edit cannot make a private message public (nor the reverse): Discord keeps the bit.
        message["flags"] = (int(message.get("flags", 0) or 0) & ~EPHEMERAL) | ephemeral
        return message

    async def handle(
        self,
        route: Route,
        json: Any,
        params: dict[str, Any] | None,
        form: list[dict[str, Any]] | None = None,
    ) -> Any:
        uploads: list[Upload] = []
        if form:
            json, uploads = _decode_form(form)
        self.calls.append(Call(route.method, route.path, route.url, json, params, uploads))
        if self.latency:
            await asyncio.sleep(self.latency)
        if (gate := self.hold.get(route.path)) is not None:
            await gate.wait()
        failure = self.fail.get(route.path)
        if failure is not None:
            raise failure if isinstance(failure, BaseException) else failure()
        body = json or {}
        path, url = route.path, route.url
        if path == "/users/@me":
            return {**user_payload(BOT_ID, "quizbot"), "bot": True}
        if path == "/oauth2/applications/@me":
            return {
                "id": str(APP_ID),
                "name": "quizbot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": user_payload(1, "owner"),
                "verify_key": "k",
                "flags": 0,
            }
        if path == "/channels/{channel_id}/messages" and route.method == "POST":
            message = self.message_payload(body, channel_id=int(route.channel_id or 0))
            self.channel_posts.append(int(message["id"]))
            return message
        if path == "/channels/{channel_id}/messages/{message_id}":
            message_id = int(url.rsplit("/", 1)[1])
            if route.method == "PATCH":
                return self._update(message_id, body)
            return self.messages[message_id]
        if path == "/interactions/{webhook_id}/{webhook_token}/callback":
            return self._callback(int(route.webhook_id or 0), body)
        if path == "/webhooks/{webhook_id}/{webhook_token}":
            return self.message_payload(body, channel_id=CHANNEL_ID)
        if path.endswith("/messages/@original"):
            interaction_id = int(str(route.webhook_token).removeprefix("itoken-"))
            message_id = self.interaction_message[interaction_id]
            if route.method == "DELETE":
                del self.messages[message_id]
                return None
            return self._update(message_id, body)
        if path.startswith("/applications/") and route.method == "PUT":
            # Bulk overwrite of the commands: Discord answers with them, ids assigned.
            self.registered_commands = [
                {**command, "id": str(self.next_id()), "application_id": str(APP_ID)}
                for command in json or []
            ]
            return self.registered_commands
        if path.startswith("/applications/") and route.method == "GET":
            return self.registered_commands
        raise AssertionError(f"the fake Discord does not know {route.method} {path}")

    def _callback(self, interaction_id: int, body: dict[str, Any]) -> dict[str, Any]:
        kind = body["type"]
        data = body.get("data") or {}
        result: dict[str, Any] = {
            "interaction": {
                "id": str(interaction_id),
                "type": 2,
                "response_message_loading": kind == DEFERRED_CHANNEL_MESSAGE,
                "response_message_ephemeral": bool(int(data.get("flags", 0) or 0) & EPHEMERAL),
            }
        }
        if kind == CHANNEL_MESSAGE:
            message = self.message_payload(data, channel_id=CHANNEL_ID)
            self.interaction_message[interaction_id] = int(message["id"])
            result["interaction"]["response_message_id"] = message["id"]
            result["resource"] = {"type": kind, "message": message}
        elif kind == DEFERRED_CHANNEL_MESSAGE:
            message = self.message_payload(
                {"flags": data.get("flags", 0), "content": ""}, channel_id=CHANNEL_ID
            )
            self.interaction_message[interaction_id] = int(message["id"])
            result["interaction"]["response_message_id"] = message["id"]
        elif kind == UPDATE_MESSAGE:
            message = self._update(self.interaction_message[interaction_id], data)
            result["resource"] = {"type": kind, "message": message}
        return result

    def note_files(self, files: Any) -> None:
        for file in files or ():
            file.reset()
            self.files.append((file.filename, file.fp.read()))

    # -- installing ------------------------------------------------------------------------------

    def install(self, monkeypatch: Any) -> None:
        fake = self

        async def http_request(
            self: HTTPClient, route: Route, *, files: Any = None, form: Any = None, **kwargs: Any
        ) -> Any:
            fake.note_files(files)
            # The form only when there is one: tests that wrap `handle` take three arguments.
            extra = (form,) if form else ()
            return await fake.handle(route, kwargs.get("json"), kwargs.get("params"), *extra)

        async def webhook_request(
            self: AsyncWebhookAdapter,
            route: Route,
            session: Any,
            *,
            payload: dict[str, Any] | None = None,
            multipart: list[dict[str, Any]] | None = None,
            params: dict[str, Any] | None = None,
            **kwargs: Any,
        ) -> Any:
            fake.note_files(kwargs.get("files"))
            extra = (multipart,) if multipart else ()
            return await fake.handle(route, payload, params, *extra)

        async def get_from_cdn(self: HTTPClient, url: str) -> bytes:
            fake.cdn_fetches.append(url)
            data = fake.cdn[url]
            if isinstance(data, BaseException):
                raise data
            return data

        monkeypatch.setattr(HTTPClient, "request", http_request)
        monkeypatch.setattr(HTTPClient, "get_from_cdn", get_from_cdn)
        monkeypatch.setattr(AsyncWebhookAdapter, "request", webhook_request)


# -- raw interaction payloads --------------------------------------------------------------------


@dataclass
class Member:
    id: int
    name: str
    permissions: discord.Permissions = field(default_factory=discord.Permissions.none)
    roles: tuple[int, ...] = ()

    def payload(self) -> dict[str, Any]:
        return {
            "user": user_payload(self.id, self.name),
            "roles": [str(r) for r in self.roles],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "nick": None,
            "permissions": str(self.permissions.value),
        }


ALICE = Member(111, "alice")
BOB = Member(222, "bob")
MOD = Member(333, "mod", discord.Permissions(manage_guild=True))


def interaction_payload(
    fake: FakeDiscordHTTP,
    *,
    kind: int,
    data: dict[str, Any],
    member: Member = ALICE,
    channel_id: int = CHANNEL_ID,
    app_permissions: discord.Permissions = POST_PERMISSIONS,
    message: dict[str, Any] | None = None,
    guild: bool = True,
) -> dict[str, Any]:
    interaction_id = fake.next_id()
    payload: dict[str, Any] = {
        "id": str(interaction_id),
        "application_id": str(APP_ID),
        "type": kind,
        "token": f"itoken-{interaction_id}",
        "version": 1,
        "data": data,
        "channel_id": str(channel_id),
        "app_permissions": str(app_permissions.value),
        "locale": "en-US",
        "attachment_size_limit": 8 * 1024 * 1024,
        "entitlements": [],
    }
    if guild:
        payload |= {
            "guild_id": str(GUILD_ID),
            "guild_locale": "en-US",
            "member": member.payload(),
            "context": 0,
            "authorizing_integration_owners": {"0": str(GUILD_ID)},
            "channel": {
                "id": str(channel_id),
                "type": 0,
                "guild_id": str(GUILD_ID),
                "name": "study-room",
                "position": 0,
                "permission_overwrites": [],
                "nsfw": False,
                "parent_id": None,
            },
        }
    else:
        payload |= {
            "user": user_payload(member.id, member.name),
            "context": 1,
            "channel": {"id": str(channel_id), "type": 1, "recipients": []},
        }
    if message is not None:
        payload["message"] = message
        fake.interaction_message[interaction_id] = int(message["id"])
    return payload


STRING, INTEGER, USER = 3, 4, 6


def command_data(name: str, focused: str | None = None, **options: Any) -> dict[str, Any]:
    opts = []
    resolved: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, Member):
            opts.append({"name": key, "type": USER, "value": str(value.id)})
            resolved.setdefault("users", {})[str(value.id)] = user_payload(value.id, value.name)
            member = value.payload()
            del member["user"]
            resolved.setdefault("members", {})[str(value.id)] = member
        else:
            opt = {"name": key, "type": STRING, "value": value}
            if key == focused:
                opt["focused"] = True
            opts.append(opt)
    data: dict[str, Any] = {"id": "1", "name": name, "type": 1, "options": opts}
    if resolved:
        data["resolved"] = resolved
    return data


def find_component(message: dict[str, Any], pattern: str) -> dict[str, Any]:
    for component in walk(message.get("components") or []):
        if re.fullmatch(pattern, component.get("custom_id", "")):
            return component
    raise AssertionError(f"no component matching {pattern!r} in {message.get('components')}")


class ManualSleep:
    """An `asyncio.sleep` stand-in: whoever sleeps waits until the test calls `elapse()`."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self._sleepers: list[asyncio.Future[None]] = []
        self._someone_asleep = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        sleeper = asyncio.get_running_loop().create_future()
        self._sleepers.append(sleeper)
        self._someone_asleep.set()
        await sleeper

    @property
    def sleeping(self) -> int:
        return sum(not s.done() for s in self._sleepers)

    async def until_asleep(self, timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Wait until someone sleeps (fails after `timeout` real seconds: a hang, not a bound)."""
        await asyncio.wait_for(self._someone_asleep.wait(), timeout)

    def elapse(self) -> None:
        """Every sleep asked so far is over."""
        sleepers, self._sleepers = self._sleepers, []
        self._someone_asleep.clear()
        for sleeper in sleepers:
            if not sleeper.done():
                sleeper.set_result(None)

    async def run_out(self, work: Awaitable[object], timeout: float = 5.0) -> None:  # noqa: ASYNC109
        """Let time pass, one sleep at a time, until `work` is done."""
        task = asyncio.ensure_future(work)
        while not task.done():
            asleep = asyncio.ensure_future(self._someone_asleep.wait())
            done, _ = await asyncio.wait(
                {task, asleep}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
            )
            asleep.cancel()
            if not done:
                task.cancel()
                raise AssertionError("neither done nor asleep")
            if asleep in done:
                self.elapse()
        await task
