"""Compact JSON, the way Discord sends it (no spaces, UTF-8 as is)."""

from __future__ import annotations

import json
from typing import Any

_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def dumps(data: Any) -> str:
    return _encoder.encode(data)
