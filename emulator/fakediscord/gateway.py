"""The gateway websocket: HELLO/IDENTIFY/READY, heartbeats, RESUME with replay, dispatch."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any

from aiohttp import WSMsgType, web

from . import payloads
from .compression import SUPPORTED, Encoder, make_encoder
from .intents import GUILD_MEMBERS, MESSAGE_CONTENT, PRIVILEGED
from .jsonutil import dumps
from .notify import Notifier
from .state import World

_log = logging.getLogger(__name__)

JSON = dict[str, Any]
RecordUnknown = Callable[[str, str, str], None]

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, VOICE, RESUME, RECONNECT = 0, 1, 2, 3, 4, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11

_ACK = '{"t":null,"s":null,"op":11,"d":null}'
_RECONNECT = '{"t":null,"s":null,"op":7,"d":null}'
_CLOSE = -1
# Enough for several seconds of a full-speed benchmark; older sessions must re-identify.
REPLAY_LIMIT = 20_000


class Connection:
    """One websocket. A single writer task keeps frames in order and in one compression stream."""

    __slots__ = ("closed", "encode", "gateway", "outbox", "session", "wake", "writer", "ws")

    def __init__(self, gateway: Gateway, ws: web.WebSocketResponse, encode: Encoder | None) -> None:
        self.gateway = gateway
        self.ws = ws
        self.encode = encode
        self.outbox: deque[tuple[int, str]] = deque()
        self.wake = asyncio.Event()
        self.session: Session | None = None
        self.closed = False
        self.writer = asyncio.create_task(self._write_loop())

    def send(self, seq: int, text: str) -> None:
        if self.closed:
            return
        self.outbox.append((seq, text))
        if not self.wake.is_set():
            self.wake.set()

    def close_soon(self, code: int) -> None:
        self.send(_CLOSE, str(code))

    async def _write_loop(self) -> None:
        ws, outbox, encode, wake = self.ws, self.outbox, self.encode, self.wake
        try:
            while True:
                if not outbox:
                    wake.clear()
                    await wake.wait()
                    continue
                seq, text = outbox.popleft()
                if seq == _CLOSE:
                    await ws.close(code=int(text))
                    return
                if encode is None:
                    await ws.send_str(text)
                else:
                    await ws.send_bytes(encode(text.encode()))
                if seq:
                    session = self.session
                    if session is not None and not session.ready and seq >= session.ready_seq:
                        session.ready = True
                        self.gateway.changed.notify()
        except (ConnectionError, RuntimeError):
            # The peer went away mid-write; the reader side notices and cleans up.
            pass


class Session:
    """A gateway session: survives its connection so a RESUME can replay what was missed."""

    __slots__ = ("conn", "id", "intents", "ready", "ready_seq", "replay", "seq", "shard", "valid")

    def __init__(self, session_id: str, intents: int, shard: list[int] | None) -> None:
        self.id = session_id
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.replay: deque[tuple[int, str]] = deque(maxlen=REPLAY_LIMIT)
        self.conn: Connection | None = None
        self.ready_seq = 0
        self.ready = False
        self.valid = True

    def dispatch(self, event: str, data_json: str) -> None:
        self.seq = seq = self.seq + 1
        text = f'{{"op":0,"s":{seq},"t":"{event}","d":{data_json}}}'
        self.replay.append((seq, text))
        conn = self.conn
        if conn is not None:
            conn.send(seq, text)

    def owns_guild(self, guild_id: int) -> bool:
        if not self.shard:
            return True
        shard_id, count = self.shard
        return (guild_id >> 22) % count == shard_id

    def receives(self, guild_id: int | None) -> bool:
        """Discord's routing: a server's events go to its shard, DMs to shard 0 only."""
        if guild_id is not None:
            return self.owns_guild(guild_id)
        return not self.shard or self.shard[0] == 0


class Gateway:
    def __init__(
        self,
        world: World,
        *,
        heartbeat_interval_ms: int,
        allowed_intents: int,
        record_unknown: RecordUnknown,
    ) -> None:
        self.world = world
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.allowed_intents = allowed_intents
        self.record_unknown = record_unknown
        self.resume_url = ""  # set by the server once its port is known
        self.sessions: dict[str, Session] = {}
        # Dispatch targets: every valid session, connected or waiting to resume.
        self.active: list[Session] = []
        self.connections: set[Connection] = set()
        self.identify_count = 0
        self.resume_count = 0
        self.close_codes: list[int] = []
        # Path of every websocket opened: "/" for fresh connects, "/resume" after READY.
        self.connect_paths: list[str] = []
        self.changed: Notifier = world.changed
        # Test knobs for a gateway in trouble (see `refuse` and `stall`).
        self.refusing = False
        self.refused_count = 0
        self._answering = asyncio.Event()
        self._answering.set()

    # ---- dispatch -------------------------------------------------------------------------

    def dispatch(
        self, event: str, data: JSON, intent: int = 0, *, redacted: JSON | None = None
    ) -> None:
        if not self.active:
            return
        text = dumps(data)
        redacted_text: str | None = None
        guild_id = data.get("guild_id")
        for session in self.active:
            if intent and not session.intents & intent:
                continue
            if guild_id is not None and not session.owns_guild(int(guild_id)):
                continue  # a server's events reach only the shard that owns it
            if redacted is not None and not session.intents & MESSAGE_CONTENT:
                if redacted_text is None:
                    redacted_text = dumps(redacted)
                session.dispatch(event, redacted_text)
            else:
                session.dispatch(event, text)

    def dispatch_routed(self, event: str, data_json: str, guild_id: int | None) -> int:
        """Hot path: an already-serialized payload to the sessions Discord routes it to: the
        server's shard, or shard 0 for a DM (an unsharded session gets everything).
        Returns the fan-out."""
        sent = 0
        for session in self.active:
            if session.receives(guild_id):
                session.dispatch(event, data_json)
                sent += 1
        return sent

    def dispatch_guild(self, guild_id: int, event: str, data: JSON, intent: int = 0) -> None:
        text = dumps(data)
        for session in self.active:
            if session.owns_guild(guild_id) and (not intent or session.intents & intent):
                session.dispatch(event, text)

    # ---- test-triggered disruptions ---------------------------------------------------------

    def request_reconnect(self) -> int:
        """Send op 7 to every connected session and stop feeding those sockets."""
        count = 0
        for session in self.active:
            conn = session.conn
            if conn is None:
                continue
            conn.send(0, _RECONNECT)
            conn.session = None
            session.conn = None
            # Discord closes the socket itself if the client ignores op 7.
            asyncio.get_running_loop().call_later(3.0, conn.close_soon, 4000)
            count += 1
        return count

    def drop_connections(self, code: int) -> int:
        count = 0
        for session in self.active:
            conn = session.conn
            if conn is not None:
                conn.session = None
                session.conn = None
                conn.close_soon(code)
                count += 1
        return count

    def invalidate_sessions(self) -> int:
        count = 0
        for session in list(self.active):
            conn = session.conn
            self._end_session(session)
            if conn is not None:
                conn.session = None
                conn.send(0, _op(INVALID_SESSION, False))
                count += 1
        return count

    def refuse(self, refusing: bool = True) -> None:
        """While `refusing`, answer every new websocket with HTTP 503, as a gateway that is
        down does: clients fail to connect (and discord.py retries every 5 s)."""
        self.refusing = refusing

    def stall(self, stalled: bool = True) -> None:
        """While `stalled`, read nothing from the open connections: no heartbeat ACK, no
        IDENTIFY answered, no close frame answered, as over a connection that went dead."""
        if stalled:
            self._answering.clear()
        else:
            self._answering.set()

    async def close_all(self) -> None:
        for conn in list(self.connections):
            conn.closed = True
            conn.writer.cancel()
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)

    # ---- the websocket handler ------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.StreamResponse:
        query = request.query
        self.connect_paths.append(request.path)
        if self.refusing:
            self.refused_count += 1
            self.changed.notify()
            return web.Response(status=503, text="gateway unavailable")
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = query.get("compress")
        if query.get("v") != "10":
            self.record_unknown("GATEWAY", f"{request.path_qs}", "gateway version must be 10")
            await ws.close(code=4012, message=b"Invalid API version")
            return ws
        if query.get("encoding", "json") != "json" or (compress and compress not in SUPPORTED):
            self.record_unknown("GATEWAY", f"{request.path_qs}", "unsupported encoding/compress")
            await ws.close(code=4002, message=b"Decode error")
            return ws
        try:
            encode = make_encoder(compress) if compress else None
        except ValueError as exc:
            self.record_unknown("GATEWAY", f"{request.path_qs}", str(exc))
            await ws.close(code=4002, message=b"Unsupported compression")
            return ws
        conn = Connection(self, ws, encode)
        self.connections.add(conn)
        hello = {"heartbeat_interval": self.heartbeat_interval_ms, "_trace": ['["fakediscord"]']}
        conn.send(0, _op(HELLO, hello))
        try:
            async for msg in ws:
                await self._answering.wait()
                if msg.type is WSMsgType.TEXT:
                    self._on_frame(conn, msg.data)
                elif msg.type is WSMsgType.BINARY:
                    self.record_unknown("GATEWAY", "binary frame", "clients must send text")
                    conn.close_soon(4002)
        finally:
            await self._on_closed(conn, ws.close_code)
        return ws

    async def _on_closed(self, conn: Connection, code: int | None) -> None:
        conn.closed = True
        self.connections.discard(conn)
        if code is not None:
            self.close_codes.append(code)
        session = conn.session
        if session is not None and session.conn is conn:
            session.conn = None
            # A clean client close (discord.py's Client.close sends 1000) ends the session.
            if code in (1000, 1001):
                self._end_session(session)
        conn.writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await conn.writer

    def _on_frame(self, conn: Connection, raw: str) -> None:
        try:
            frame = json.loads(raw)
            op, data = frame["op"], frame.get("d")
        except (ValueError, KeyError, TypeError):
            self.record_unknown("GATEWAY", "malformed frame", raw[:200])
            conn.close_soon(4002)
            return
        if op == HEARTBEAT:
            conn.send(0, _ACK)
        elif op == IDENTIFY:
            self._identify(conn, data or {})
        elif op == RESUME:
            self._resume(conn, data or {})
        elif op == REQUEST_MEMBERS:
            self._request_members(conn, data or {})
        elif op in (PRESENCE, VOICE):
            pass  # accepted and ignored: nothing in the emulator observes presence or voice
        else:
            self.record_unknown("GATEWAY", f"op {op}", raw[:200])

    def _identify(self, conn: Connection, data: JSON) -> None:
        if conn.session is not None:
            conn.close_soon(4005)  # Already authenticated
            return
        if data.get("token") != self.world.token:
            conn.close_soon(4004)  # Authentication failed
            return
        intents = data.get("intents")
        if not isinstance(intents, int) or intents < 0:
            conn.close_soon(4013)  # Invalid intent(s)
            return
        if intents & PRIVILEGED & ~self.allowed_intents:
            conn.close_soon(4014)  # Disallowed intent(s)
            return
        shard = data.get("shard")
        session = Session(secrets.token_hex(16), intents, shard)
        self.sessions[session.id] = session
        self.active.append(session)
        session.conn = conn
        conn.session = session
        world = self.world
        ready = payloads.ready(
            world,
            session_id=session.id,
            resume_url=self.resume_url,
            allowed_intents=self.allowed_intents,
            shard=shard,
        )
        session.dispatch("READY", dumps(ready))
        for guild in world.guilds.values():
            if session.owns_guild(guild.id) and world.bot.id in guild.members:
                session.dispatch(
                    "GUILD_CREATE", dumps(payloads.guild_create(guild, world, intents=intents))
                )
        session.ready_seq = session.seq
        self.identify_count += 1
        self.changed.notify()

    def _resume(self, conn: Connection, data: JSON) -> None:
        session = self.sessions.get(str(data.get("session_id")))
        seq = data.get("seq") or 0
        oldest = session.replay[0][0] if session and session.replay else 0
        if (
            session is None
            or not session.valid
            or data.get("token") != self.world.token
            or (oldest and seq < oldest - 1)
        ):
            conn.send(0, _op(INVALID_SESSION, False))
            return
        previous = session.conn
        if previous is not None and previous is not conn:
            previous.session = None
            previous.close_soon(4000)
        session.conn = conn
        conn.session = session
        for replay_seq, text in session.replay:
            if replay_seq > seq:
                conn.send(replay_seq, text)
        session.dispatch("RESUMED", '{"_trace":["fakediscord"]}')
        self.resume_count += 1
        self.changed.notify()

    def _request_members(self, conn: Connection, data: JSON) -> None:
        session = conn.session
        if session is None:
            conn.close_soon(4003)  # Not authenticated
            return
        if not session.intents & GUILD_MEMBERS:
            conn.close_soon(4013)
            return
        guild = self.world.guilds.get(int(data.get("guild_id") or 0))
        members = list(guild.members.values()) if guild else []
        query = (data.get("query") or "").lower()
        wanted = {int(u) for u in data.get("user_ids") or []}
        if wanted:
            members = [m for m in members if m.id in wanted]
        elif query:
            members = [m for m in members if m.user.username.lower().startswith(query)]
        limit = data.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk = {
            "guild_id": str(data.get("guild_id")),
            "members": [payloads.member(m) for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "nonce": data.get("nonce"),
        }
        session.dispatch("GUILD_MEMBERS_CHUNK", dumps(chunk))

    def _end_session(self, session: Session) -> None:
        session.valid = False
        if session in self.active:
            self.active.remove(session)


def _op(op: int, data: Any) -> str:
    return dumps({"t": None, "s": None, "op": op, "d": data})
