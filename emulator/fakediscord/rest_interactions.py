"""Interaction callbacks and the interaction webhook (follow-ups, @original)."""

from __future__ import annotations

import time
from typing import Any

from aiohttp import web

from . import validation
from .errors import (
    already_acknowledged,
    invalid_form,
    unknown_interaction,
    unknown_message,
    unknown_webhook,
)
from .httputil import flag, json_response, no_content, read_message_body
from .interactions import ALLOWED_CALLBACKS, APPLICATION_COMMAND, InteractionRecord
from .messages import UploadedFile
from .rest import RouteDef, Services
from .state import Message

JSON = dict[str, Any]

EPHEMERAL = validation.EPHEMERAL
LOADING = validation.LOADING
_CHAT_INPUT_COMMAND_MESSAGE = 20
_CONTEXT_MENU_COMMAND_MESSAGE = 23
_WEBHOOK_MESSAGE = "/webhooks/{app_id}/{token}/messages/{message_id}"


class InteractionRoutes:
    def __init__(self, services: Services) -> None:
        self.s = services

    def routes(self) -> list[RouteDef]:
        return [
            RouteDef(
                "POST", "/interactions/{interaction_id}/{token}/callback", self.callback, auth=False
            ),
            RouteDef("POST", "/webhooks/{app_id}/{token}", self.followup, auth=False),
            RouteDef("GET", _WEBHOOK_MESSAGE, self.get_webhook_message, auth=False),
            RouteDef("PATCH", _WEBHOOK_MESSAGE, self.edit_webhook_message, auth=False),
            RouteDef("DELETE", _WEBHOOK_MESSAGE, self.delete_webhook_message, auth=False),
        ]

    # ---- initial response (the hot path of the load benchmark) ---------------------------

    async def callback(self, request: web.Request) -> web.Response:
        match = request.match_info
        try:
            interaction_id = int(match["interaction_id"])
        except ValueError:
            raise unknown_interaction() from None
        store = self.s.interactions
        rec = store.by_id.get(interaction_id)
        if rec is None or rec.token != match["token"]:
            raise unknown_interaction()
        if rec.response is not None:
            raise already_acknowledged()
        deadline = self.s.callback_deadline
        if deadline is not None and time.monotonic() - rec.dispatched_at > deadline:
            rec.late_callback_at = time.monotonic()
            store.late_callbacks += 1
            rec.changed.notify()
            raise unknown_interaction()
        body, files = await read_message_body(request)
        rtype = body.get("type")
        data = body.get("data") or {}
        if rtype not in ALLOWED_CALLBACKS.get(rec.type, ()):
            raise invalid_form(
                {"type": f"Callback type {rtype!r} is invalid for interaction type {rec.type}."}
            )
        message: Message | None = None
        if rtype == 4:
            fields = validation.message_fields(
                data, files=len(files), editing=False, flags_allowed=validation.INTERACTION_FLAGS
            )
            message = rec.original_message = self._new_message(rec, fields, files, flags=0)
        elif rtype == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            rec.original_message = self._new_message(rec, {}, [], flags=flags)
            message = rec.original_message
        elif rtype in (6, 7):
            source = self._source_message(rec)
            rec.original_message = source
            if rtype == 7:
                fields = validation.message_fields(
                    data, files=len(files), editing=True, flags_allowed=validation.SENDABLE_FLAGS
                )
                message = self.s.messages.edit(source, fields, files)
        elif rtype == 8:
            validation.autocomplete_choices(data)
            self.s.world.note_said({"choices": data.get("choices") or []})
        elif rtype == 9:
            validation.modal(data)
            self.s.world.note_said({"modal": data})
        rec.set_response(body)
        if not flag(request, "with_response"):
            return no_content()
        return json_response(_callback_body(rec, rtype, message))

    def _new_message(
        self, rec: InteractionRecord, fields: JSON, files: list[UploadedFile], *, flags: int
    ) -> Message:
        """A message authored by the app through the interaction webhook."""
        world = self.s.world
        is_first = rec.original_message is None
        if rec.type == APPLICATION_COMMAND and is_first:
            command_type = (rec.payload.get("data") or {}).get("type", 1)
            mtype = (
                _CHAT_INPUT_COMMAND_MESSAGE if command_type == 1 else _CONTEXT_MENU_COMMAND_MESSAGE
            )
        else:
            mtype = 0
        payload = rec.payload
        member = payload.get("member")
        metadata: JSON = {
            "id": str(rec.id),
            "type": rec.type,
            "user": member["user"] if member else payload.get("user"),
            "authorizing_integration_owners": payload.get("authorizing_integration_owners", {}),
        }
        if rec.source_message_id is not None:
            metadata["interacted_message_id"] = str(rec.source_message_id)
        if not is_first and rec.original_message is not None:
            metadata["original_response_message_id"] = rec.original_message["id"]
        msg = self.s.messages.build(
            channel_id=rec.channel_id,
            author=world.bot,
            fields=fields,
            files=files,
            message_type=mtype,
            flags=flags,
            webhook=True,
            interaction_metadata=metadata,
        )
        if msg["flags"] & EPHEMERAL:
            world.store_ephemeral(rec.user_id, msg)
            world.changed.notify()
        else:
            channel = world.live_channel(rec.channel_id)
            if channel is not None:
                self.s.messages.publish(channel, msg)
        return msg

    def _source_message(self, rec: InteractionRecord) -> Message:
        world = self.s.world
        mid = rec.source_message_id
        msg = None if mid is None else world.messages.get(mid) or world.ephemeral.get(mid)
        if msg is None:
            raise invalid_form({"type": "This interaction has no message to update."})
        return msg

    # ---- the interaction webhook ---------------------------------------------------------

    def _record(self, request: web.Request) -> InteractionRecord:
        match = request.match_info
        if match["app_id"] != str(self.s.world.application_id):
            raise unknown_webhook()
        rec = self.s.interactions.by_token.get(match["token"])
        # The webhook only exists once the interaction has been acknowledged.
        if rec is None or rec.response is None:
            raise unknown_webhook()
        return rec

    def _webhook_message(self, rec: InteractionRecord, raw_id: str) -> Message:
        if raw_id == "@original":
            msg = rec.original_message
        else:
            candidates = [rec.original_message, *rec.followups]
            msg = next((m for m in candidates if m is not None and m["id"] == raw_id), None)
        if msg is None or int(msg["id"]) in self.s.world.deleted_messages:
            raise unknown_message()
        return msg

    async def followup(self, request: web.Request) -> web.Response:
        rec = self._record(request)
        body, files = await read_message_body(request)
        fields = validation.message_fields(
            body, files=len(files), editing=False, flags_allowed=validation.INTERACTION_FLAGS
        )
        original = rec.original_message
        if rec.response_type == 5 and original is not None and original["flags"] & LOADING:
            # Discord: the first follow-up after a "thinking" defer fills in that message,
            # keeping the defer's ephemerality, instead of posting a new one.
            original["flags"] &= ~LOADING
            fields.pop("flags", None)
            msg = self.s.messages.edit(original, fields, files)
            msg["edited_timestamp"] = None  # filling in the placeholder is not an "edit"
        else:
            msg = self._new_message(rec, fields, files, flags=0)
        rec.followups.append(msg)
        rec.changed.notify()
        if flag(request, "wait"):
            return json_response(msg)
        return no_content()

    async def get_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._record(request)
        return json_response(self._webhook_message(rec, request.match_info["message_id"]))

    async def edit_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._record(request)
        msg = self._webhook_message(rec, request.match_info["message_id"])
        body, files = await read_message_body(request)
        fields = validation.message_fields(
            body, files=len(files), editing=True, flags_allowed=validation.SENDABLE_FLAGS
        )
        msg["flags"] &= ~LOADING
        self.s.messages.edit(msg, fields, files)
        rec.changed.notify()
        return json_response(msg)

    async def delete_webhook_message(self, request: web.Request) -> web.Response:
        rec = self._record(request)
        msg = self._webhook_message(rec, request.match_info["message_id"])
        self.s.messages.delete(msg)
        rec.changed.notify()
        return no_content()


def _callback_body(rec: InteractionRecord, rtype: int, message: Message | None) -> JSON:
    interaction: JSON = {"id": str(rec.id), "type": rec.type}
    resource: JSON = {"type": rtype}
    if message is not None:
        interaction["response_message_id"] = message["id"]
        interaction["response_message_loading"] = rtype == 5
        interaction["response_message_ephemeral"] = bool(message["flags"] & EPHEMERAL)
        resource["message"] = message
    return {"interaction": interaction, "resource": resource}
