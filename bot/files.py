"""Files the command line writes for the host (`--output`): never at the cost of what they name.

What `--output` names decides how it is written (see `write_output`):

- a regular file, or a path where nothing is yet, is replaced whole or not at all: written
  beside it, then renamed over it;
- a symbolic link is followed, and its target written by this same rule (the link stays);
- a character device (/dev/null, a terminal) and a FIFO are streams: there is nothing to
  replace, and writing into them is what the person asked. A FIFO only with a reader;
- anything else (a folder, a block device, a socket) is refused.

Missing folders are never created: a path under a folder that is not there is far more often a
typo or a disk that is not mounted than a wish, and a new folder would hide either.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO

Write = Callable[[IO[str]], object]

OUTPUT_HELP = (
    "(default: stdout). Its folder must exist: none is created. A file is replaced only once "
    "complete, a symlink's target likewise; a device, or a FIFO with a reader, is written into"
)
"""The tail of every `--output` help text: the rule above, as the command line says it."""

UNSYNCABLE = frozenset({errno.EINVAL, errno.EROFS, errno.ENOTSUP, errno.EOPNOTSUPP})
"""fsync's answers for a file with nothing to sync to (a terminal, /dev/null, a pipe, some
network or FUSE file systems): the write itself succeeded."""

DEFAULT_FIX = "give --output a file in a folder that exists and that you may write to"
FULL_FIX = "free some space, or give --output a file on another disk"


class RefusedOutput(OSError):
    """An `--output` quizbot will not write, for a reason of its own rather than the system's:
    `strerror` says what it is, `fix` what to do instead."""

    def __init__(self, path: Path, reason: str, fix: str = DEFAULT_FIX) -> None:
        super().__init__(errno.EPERM, reason, str(path))
        self.fix = fix


def write_output(path: Path, encoding: str, write: Write, *, reads: Iterable[Path] = ()) -> None:
    """Write `path` by calling `write` with a text file, as the module's rule says for what
    `path` is; never over one of the files the command `reads` (its source, its database),
    which a mistyped --output would otherwise destroy. Raises OSError: for a regular file the
    old one, if any, is then as it was."""
    try:
        found: os.stat_result | None = path.stat()  # the kernel's own following of links
    except FileNotFoundError:
        found = None
    # By name too: an SQLite -wal or -shm is there only while the database is open, and a file
    # written at its name now is taken for (or deleted as) the journal at the next open.
    real = os.path.realpath(path)
    if any(
        (found is not None and _same(found, read)) or real == os.path.realpath(read)
        for read in reads
    ):
        raise RefusedOutput(path, "it is a file this command reads", "give --output another file")
    if found is None or stat.S_ISREG(found.st_mode):
        _replace(path, found, encoding, write)
    elif stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    elif stat.S_ISCHR(found.st_mode) or stat.S_ISFIFO(found.st_mode):
        _stream(path, found, encoding, write)
    elif stat.S_ISBLK(found.st_mode):
        # A disk or a partition: the text would overwrite its first blocks, file system and all.
        raise RefusedOutput(
            path,
            "a block device (a disk), which quizbot will not write over",
            "give --output a regular file",
        )
    else:
        raise RefusedOutput(path, "a socket, not a file", "give --output a regular file")


def _replace(path: Path, found: os.stat_result | None, encoding: str, write: Write) -> None:
    """Write the file a regular or new `path` names (through its links, so a link stays a link)
    whole: into a new file beside it, synced, then renamed over it. The new file keeps the old
    one's permissions, so a private export stays private."""
    # Not Path.resolve: on Python 3.11 it raises RuntimeError on a symlink loop.
    real = Path(os.path.realpath(path))
    if found is not None:
        named = _stat_or_none(real)
        if named is None or not os.path.samestat(found, named):
            # /proc/self/fd/N of a deleted file, or a link changed meanwhile: no name to rename.
            raise RefusedOutput(
                path,
                "a link to a file quizbot cannot find by name",
                "give --output the file's own path",
            )
        if not os.access(real, os.W_OK):
            # The rename would get round a read-only file, which `>` in a shell would not.
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    part = real.with_name(f".{real.name}.{secrets.token_hex(4)}.part")
    mode = stat.S_IMODE(found.st_mode) if found is not None else 0o666
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(fd, "w", encoding=encoding, newline="") as file_out:
            if found is not None:
                _keep_owner(fd, found)  # first: a change of owner clears set-id bits
                os.fchmod(fd, mode)  # exactly the old mode, whatever the umask took away
            write(file_out)
            file_out.flush()
            _sync(fd)  # on disk before the rename, or a crash could leave it empty
        part.replace(real)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def _stream(path: Path, found: os.stat_result, encoding: str, write: Write) -> None:
    """Write into a character device or a FIFO, as `cat > path` would, and check that it took
    every byte (flush, sync where there is a disk, close). Opened without O_CREAT: if the node
    went meanwhile, this fails rather than leave a regular file in its place."""
    fifo = stat.S_ISFIFO(found.st_mode)
    # A FIFO opened for writing waits for a reader, forever if none comes: O_NONBLOCK fails
    # at once instead (ENXIO), and is cleared after, so that writing waits for a slow reader.
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC | (os.O_NONBLOCK if fifo else 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if fifo and exc.errno == errno.ENXIO:
            raise RefusedOutput(
                path,
                "a named pipe (FIFO) that nothing reads",
                "start its reader first, or give --output a regular file",
            ) from None
        raise
    try:
        opened = os.fstat(fd)
        if stat.S_IFMT(opened.st_mode) != stat.S_IFMT(found.st_mode):
            raise RefusedOutput(
                path, "it changed into another kind of file meanwhile", "run the command again"
            )
        if fifo:
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        file_out = os.fdopen(fd, "w", encoding=encoding, newline="")
    except BaseException:
        os.close(fd)
        raise
    with file_out:
        write(file_out)
        file_out.flush()  # a full device (ENOSPC) says so here at the latest
        _sync(file_out.fileno())


def _sync(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in UNSYNCABLE:
            raise


def _same(found: os.stat_result, path: Path) -> bool:
    try:
        return os.path.samestat(found, path.stat())
    except OSError:
        return False  # not there (an SQLite -wal file, say), or not ours to look at


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def _keep_owner(fd: int, found: os.stat_result) -> None:
    """Give the new file the old one's owner and group, where we may (root may; anyone may
    keep their own): a file root replaces for a teacher stays the teacher's."""
    if (found.st_uid, found.st_gid) == (os.geteuid(), os.getegid()):
        return
    # Not ours to give away, else: the new file is then ours, as a copy of it would be.
    with contextlib.suppress(PermissionError):
        os.fchown(fd, found.st_uid, found.st_gid)


def write_stdout(out: IO[str], write: Write, err: IO[str]) -> bool:
    """Write to `out` (standard output, when there is no `--output`) and flush it, so that a
    redirection to a full disk is one line here; False after printing it on `err`."""
    try:
        out.flush()
        buffered = _buffered(out)
        write(buffered)
        buffered.flush()
    except BrokenPipeError:
        raise  # the reader left (`| head`): not an error of ours, and cli.main ends quietly
    except OSError as exc:
        _drop_unwritten(out)
        print(cannot_write("standard output", exc), file=err)
        return False
    return True


def _buffered(out: IO[str]) -> IO[str]:
    """`out` through a buffered writer of its own. Under PYTHONUNBUFFERED (the Dockerfile sets
    it) sys.stdout writes straight to its file descriptor and ignores a short write: a disk
    that fills up mid-write kept the first 8 KiB without an error. A buffered writer writes
    the rest, and raises ENOSPC when it cannot."""
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # not a real file (a test's capture): nothing is lost there
        return out
    encoding = getattr(out, "encoding", None) or "utf-8"
    errors = getattr(out, "errors", None) or "strict"
    return open(fd, "w", encoding=encoding, errors=errors, closefd=False)


def _drop_unwritten(out: IO[str]) -> None:
    """Point `out`'s file descriptor at /dev/null: Python flushes stdout again at exit, and the
    text still held for it would fail again, as an "Exception ignored" message and exit 120."""
    try:
        fd = out.fileno()
    except (OSError, ValueError):  # not a real file (a test's capture): nothing flushes it later
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def cannot_write(path: Path | str, exc: OSError) -> str:
    """The one line for an output (`--output`, or standard output) that could not be written."""
    if isinstance(exc, RefusedOutput):
        fix = exc.fix
    elif exc.errno in (errno.ENOSPC, errno.EDQUOT):
        fix = FULL_FIX
    else:
        fix = DEFAULT_FIX
    return f"quizbot: can't write {path}: {exc.strerror or exc} ({fix})"
