"""Gateway transport compression, one stream per websocket connection."""

from __future__ import annotations

import zlib
from collections.abc import Callable

Encoder = Callable[[bytes], bytes]

SUPPORTED = ("zlib-stream", "zstd-stream")


def make_encoder(kind: str) -> Encoder:
    """Return a per-connection encoder: each call yields one complete, flushed WS message."""
    if kind == "zlib-stream":
        # Level 1: the bytes only cross loopback, so spend as little CPU as possible.
        compressor = zlib.compressobj(1)
        sync = zlib.Z_SYNC_FLUSH

        def encode_zlib(data: bytes) -> bytes:
            # discord.py buffers until it sees the 00 00 ff ff sync-flush suffix.
            return compressor.compress(data) + compressor.flush(sync)

        return encode_zlib
    if kind == "zstd-stream":
        return _zstd_encoder()
    raise ValueError(f"unsupported gateway compression {kind!r}")


def _zstd_encoder() -> Encoder:
    # discord.py asks for zstd-stream when `zstandard` (or 3.14's compression.zstd) is
    # importable, so the emulator uses whichever of the two this interpreter has.
    try:
        import zstandard  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        cobj = zstandard.ZstdCompressor(level=1).compressobj()
        block = zstandard.COMPRESSOBJ_FLUSH_BLOCK

        def encode_zstandard(data: bytes) -> bytes:
            return cobj.compress(data) + cobj.flush(block)

        return encode_zstandard
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ValueError(
            "client asked for zstd-stream but neither zstandard nor compression.zstd is "
            "importable in the emulator's interpreter"
        ) from exc
    compressor = zstd.ZstdCompressor(level=1)
    flush_block = zstd.ZstdCompressor.FLUSH_BLOCK

    def encode_stdlib(data: bytes) -> bytes:
        return compressor.compress(data, mode=flush_block)

    return encode_stdlib
