"""Request parsing and Discord-exact responses for the REST handlers."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import BodyPartReader, web

from .errors import invalid_form
from .jsonutil import dumps
from .messages import UploadedFile

JSON = dict[str, Any]

# discord.py only decodes a body when Content-Type is *exactly* "application/json";
# aiohttp's json_response appends "; charset=utf-8", which discord.py would hand back as str.
_JSON_HEADERS = {"Content-Type": "application/json"}


def json_response(data: Any, status: int = 200) -> web.Response:
    body = dumps(data).encode()
    return web.Response(body=body, status=status, headers=_JSON_HEADERS)


def no_content() -> web.Response:
    return web.Response(status=204)


def flag(request: web.Request, name: str) -> bool:
    """A boolean query parameter, read from the raw path: request.query costs a URL parse."""
    raw = request.raw_path
    start = raw.find("?")
    if start < 0:
        return False
    for pair in raw[start + 1 :].split("&"):
        key, _, value = pair.partition("=")
        if key == name:
            return value.lower() in ("1", "true")
    return False


def snowflake(request: web.Request, name: str) -> int:
    raw = request.match_info[name]
    try:
        return int(raw)
    except ValueError:
        raise invalid_form({name: f"Value {raw!r} is not snowflake."}) from None


async def read_json(request: web.Request) -> Any:
    raw = await request.read()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        raise invalid_form({"_root": "The request body contains invalid JSON."}) from None


async def read_message_body(request: web.Request) -> tuple[JSON, list[UploadedFile]]:
    """JSON bodies, or multipart with `payload_json` plus `files[n]` parts (discord.py's form)."""
    if not request.headers.get("Content-Type", "").startswith("multipart/"):
        body = await read_json(request)
        return (body if isinstance(body, dict) else {}), []
    reader = await request.multipart()
    body: JSON = {}
    files: list[UploadedFile] = []
    while True:
        part = await reader.next()
        if part is None:
            break
        if not isinstance(part, BodyPartReader):
            continue
        name = part.name or ""
        if name == "payload_json":
            body = json.loads(await part.text())
        elif name.startswith("files["):
            index = int(name[len("files[") : -1])
            files.append(
                UploadedFile(
                    index=index,
                    filename=part.filename or f"file{index}",
                    content_type=part.headers.get("Content-Type"),
                    data=bytes(await part.read()),
                )
            )
        else:
            body[name] = await part.text()
    return body, files
