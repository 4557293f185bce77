"""A raw-protocol "bot" that answers every interaction with the cheapest valid callback.

Not discord.py: it exists to measure fakediscord's own cost per click, with the client side
as cheap as it gets. Run by `python -m benchmarks.fakediscord_click_rate --bot null`.
"""

from __future__ import annotations

import asyncio
import json
import os
import zlib

import aiohttp

_ANSWER = b'{"type":4,"data":{"content":"ok","flags":64}}'
_HEADERS = {"Content-Type": "application/json"}
_SYNC_FLUSH = b"\x00\x00\xff\xff"


async def main() -> None:
    api = os.environ["DISCORD_API_BASE"].rstrip("/")
    gateway = api.replace("http", "ws", 1).split("/api/", 1)[0] + "/"
    tasks: set[asyncio.Task[None]] = set()
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def answer(interaction_id: str, token: str) -> None:
            url = f"{api}/interactions/{interaction_id}/{token}/callback?with_response=1"
            async with session.post(url, data=_ANSWER, headers=_HEADERS) as resp:
                await resp.read()

        ws = await session.ws_connect(gateway + "?v=10&encoding=json&compress=zlib-stream")
        inflate, buffer = zlib.decompressobj(), bytearray()
        async for msg in ws:
            buffer += msg.data
            if not buffer.endswith(_SYNC_FLUSH):
                continue
            event = json.loads(inflate.decompress(buffer))
            buffer.clear()
            if event["op"] == 10:
                identify = {"token": os.environ["DISCORD_TOKEN"], "intents": 1, "properties": {}}
                await ws.send_str(json.dumps({"op": 2, "d": identify}))
            elif event.get("t") == "INTERACTION_CREATE":
                data = event["d"]
                task = asyncio.create_task(answer(data["id"], data["token"]))
                tasks.add(task)
                task.add_done_callback(tasks.discard)


if __name__ == "__main__":
    asyncio.run(main())
