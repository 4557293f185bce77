"""Files the command line writes for the host (`--output`): whole or not at all."""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO


def replace_file(path: Path, encoding: str, write: Callable[[IO[str]], object]) -> None:
    """Write `path` whole or not at all: into a new file beside it, renamed over it once
    complete, so a full disk or a bad path never leaves half a file (or eats the old one).
    Opened like a plain file, not with tempfile's private mode, so the result gets the usual
    permissions. Raises OSError (the file, if any, is then as it was)."""
    if path.is_dir():
        # Checked first: the rename below would say so too, but "/" has no name to put beside.
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    part = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
    try:
        with part.open("x", encoding=encoding, newline="") as file_out:
            write(file_out)
        part.replace(path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def cannot_write(path: Path, exc: OSError) -> str:
    """The one line for an `--output` that `replace_file` could not write."""
    return (
        f"quizbot: can't write {path}: {exc.strerror or exc} "
        "(give --output a file in a folder that exists and that you may write to)"
    )
