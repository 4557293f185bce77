"""`--output` never destroys what it names, in every command that has it (`export results`,
`content export`, `content import`): a regular file is replaced whole, a symlink is followed
(and stays a link), a character device or a FIFO with a reader is written into, anything else is
refused, a write error is one `quizbot: …` line and exit 1, and no missing folder is created.

Every node is made in the test's own folder; the machine's /dev is never touched. A character
device is made with /dev/full's numbers (1, 7), so writing to it fails with ENOSPC: that needs
root (mknod), and those tests are skipped without it."""

from __future__ import annotations

import errno
import os
import socket
import stat
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import pytest

from bot.cli import main
from bot.quiz.errors import StoreAction
from bot.store import Store, make_engine, posts
from tests.cli_run import run_quizbot_cli
from tests.factories import choice
from tests.store_calls import write

ROOT = Path(__file__).resolve().parents[1]
GUILD = 800000000000000001
CLEAN_GIFT = "::Q1:: What is 2+2? {=4 ~3 ~5}\n"
BANK = """\
bank: arithmetic
topic: Arithmetic
tasks:
  - id: add-1
    kind: choice
    difficulty: easy
    question: What is 2+2?
    options: ['4', '3', '5']
    answer: A
    hint: Count on your fingers.
    solution:
      final_answer: '4'
"""
FIX = "(give --output a file in a folder that exists and that you may write to)"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")


@dataclass(frozen=True)
class Command:
    """One command that takes --output, set up in a folder, and what its output starts with."""

    args: list[str]
    starts: str
    env: dict[str, str]
    reads: Path

    def argv(self, output: Path | None) -> list[str]:
        return self.args + ([] if output is None else ["--output", str(output)])

    def run(self, output: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
        code = main(self.argv(output))
        return code, capsys.readouterr().err

    def subprocess(
        self, output: Path | None, stdout: int | IO[bytes] = subprocess.PIPE
    ) -> subprocess.CompletedProcess[str]:
        return run_quizbot_cli(
            *self.argv(output),
            stdout=stdout,
            # A write that waits for a reader that never comes fails at the timeout, not hangs.
            # This checkout's quizbot, whatever the current folder and the installed one.
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), **self.env},
        )


def _commands(folder: Path, env: dict[str, str]) -> dict[str, Command]:
    db, bank, gift = folder / "quizbot.db", folder / "bank.yaml", folder / "quiz.gift"
    return {
        "export results": Command(
            ["export", "results", "--guild", str(GUILD)], "\ufeffmember_id,task_id", env, db
        ),
        "content export": Command(
            ["content", "export", str(bank), "--format", "gift"], "// arithmetic", env, bank
        ),
        "content import": Command(["content", "import", str(gift)], "bank: ", env, gift),
    }


@pytest.fixture(params=["export results", "content export", "content import"])
def command(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Command:
    """Each command, with what it reads (a database that knows the server, a bank, a GIFT
    file) in `tmp_path/in`, run from `tmp_path`."""
    folder = tmp_path / "in"
    folder.mkdir()
    engine = make_engine(f"sqlite:///{folder / 'quizbot.db'}")
    write(
        Store(engine),
        posts.create_post,
        GUILD,
        1,
        choice("t-one"),
        None,
        now=datetime(2025, 3, 10, tzinfo=UTC),
        schedule_id=None,
        closes_at=None,
        action=StoreAction.POST,
    )
    engine.dispose()
    (folder / "bank.yaml").write_text(BANK)
    (folder / "quiz.gift").write_text(CLEAN_GIFT)
    env = {
        "DATABASE_URL": f"sqlite:///{folder / 'quizbot.db'}",
        "CONTENT_DIR": str(folder / "bank.yaml"),
        "CONTENT_CACHE": "",
        "LOG_LEVEL": "ERROR",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    return _commands(folder, env)[request.param]


def one_line(code: int, err: str) -> str:
    """The single `quizbot: …` line of a run that failed with exit 1."""
    assert code == 1, err
    assert "Traceback" not in err
    assert err.startswith("quizbot: ") and err.count("\n") == 1, err
    return err.rstrip("\n")


def parts_left(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*.part")]


# -- a FIFO ------------------------------------------------------------------------------------


def test_a_fifo_nothing_reads_is_refused_at_once_and_stays_a_fifo(
    command: Command, tmp_path: Path
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = command.subprocess(fifo)
    assert one_line(result.returncode, result.stderr) == (
        f"quizbot: can't write {fifo}: a named pipe (FIFO) that nothing reads "
        "(start its reader first, or give --output a regular file)"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert parts_left(tmp_path) == []


def test_a_fifo_with_a_reader_gets_the_output_and_stays_a_fifo(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    # The reader is there before the command runs; our own write end keeps it from seeing an
    # end of file before the command has opened the pipe (and is closed once it has run).
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    keep = os.open(fifo, os.O_WRONLY)
    os.set_blocking(reader, True)
    got = bytearray()

    def read() -> None:
        while chunk := os.read(reader, 65536):
            got.extend(chunk)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        code, err = command.run(fifo, capsys)
    finally:
        os.close(keep)
        thread.join(timeout=30)
        os.close(reader)
    assert code == 0, err
    assert got.decode("utf-8").startswith(command.starts)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert parts_left(tmp_path) == []


# -- symbolic links ----------------------------------------------------------------------------


def test_a_symlink_to_a_file_stays_a_link_and_its_target_is_replaced(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.txt"
    target.write_text("last week's\n")
    link = tmp_path / "out.txt"
    link.symlink_to(target)
    code, err = command.run(link, capsys)
    assert code == 0, err
    assert link.is_symlink() and link.readlink() == target
    assert target.read_text(encoding="utf-8").startswith(command.starts)
    assert parts_left(tmp_path) == []


def test_a_dangling_symlink_gets_its_target_made_and_stays_a_link(
    command: Command,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    link = tmp_path / "out.txt"
    link.symlink_to("made.txt")  # relative: to the link's folder, not the current one
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    code, err = command.run(link, capsys)
    assert code == 0, err
    assert link.is_symlink() and link.readlink() == Path("made.txt")
    assert (tmp_path / "made.txt").read_text(encoding="utf-8").startswith(command.starts)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_dangling_symlink_into_a_missing_folder_is_one_line(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "gone" / "made.txt")
    code, err = command.run(link, capsys)
    assert one_line(code, err) == f"quizbot: can't write {link}: No such file or directory {FIX}"
    assert link.is_symlink() and not (tmp_path / "gone").exists()


def test_a_symlink_loop_is_one_line_and_stays_a_link(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    code, err = command.run(loop, capsys)
    reason = os.strerror(errno.ELOOP)
    assert one_line(code, err) == f"quizbot: can't write {loop}: {reason} {FIX}"
    assert loop.is_symlink() and loop.readlink() == loop


# -- folders and files -------------------------------------------------------------------------


def test_no_command_makes_a_missing_folder(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "typo" / "deeper" / "out.txt"
    code, err = command.run(output, capsys)
    assert one_line(code, err) == f"quizbot: can't write {output}: No such file or directory {FIX}"
    assert not (tmp_path / "typo").exists()


def test_a_replaced_file_keeps_its_permissions(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Grades with names, kept private by the teacher: the new export must not be world-readable.
    output = tmp_path / "private.txt"
    output.write_text("last week's\n")
    output.chmod(0o600)
    code, err = command.run(output, capsys)
    assert code == 0, err
    assert stat.S_IMODE(output.stat().st_mode) == 0o600
    assert output.read_text(encoding="utf-8").startswith(command.starts)


def _may_write_read_only() -> bool:
    """Root, with its right to override file permissions, may; others may not."""
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder) / "probe"
        probe.touch(mode=0o444)
        return os.access(probe, os.W_OK)


@pytest.mark.skipif(_may_write_read_only(), reason="this user may write a read-only file")
def test_a_read_only_file_is_refused_not_renamed_over(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "kept.txt"
    output.write_text("keep me\n")
    output.chmod(0o444)
    code, err = command.run(output, capsys)
    assert one_line(code, err) == f"quizbot: can't write {output}: Permission denied {FIX}"
    assert output.read_text() == "keep me\n"


def test_a_socket_is_refused_and_stays_a_socket(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        code, err = command.run(path, capsys)
    assert one_line(code, err) == (
        f"quizbot: can't write {path}: a socket, not a file (give --output a regular file)"
    )
    assert stat.S_ISSOCK(path.lstat().st_mode)


def test_an_output_onto_a_file_the_command_reads_is_refused(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A slip of the shell's completion: the database, the bank or the source is the only copy.
    before = command.reads.read_bytes()
    link = tmp_path / "out.txt"
    link.symlink_to(command.reads)
    for output in (command.reads, link):
        code, err = command.run(output, capsys)
        assert one_line(code, err) == (
            f"quizbot: can't write {output}: it is a file this command reads "
            "(give --output another file)"
        )
    assert command.reads.read_bytes() == before


# -- devices (root only) -----------------------------------------------------------------------


def full_device(path: Path) -> Path:
    """A character device with /dev/full's numbers: every write to it fails with ENOSPC."""
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    return path


def assert_still_full_device(path: Path) -> None:
    found = path.lstat()
    assert stat.S_ISCHR(found.st_mode)
    assert (os.major(found.st_rdev), os.minor(found.st_rdev)) == (1, 7)


@as_root
def test_a_full_device_is_one_line_exit_1_and_stays_a_device(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    device = full_device(tmp_path / "full")
    code, err = command.run(device, capsys)
    assert one_line(code, err) == (
        f"quizbot: can't write {device}: {os.strerror(errno.ENOSPC)} "
        "(free some space, or give --output a file on another disk)"
    )
    assert_still_full_device(device)
    assert parts_left(tmp_path) == []


@as_root
def test_a_symlink_to_a_full_device_is_one_line_and_both_stay(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    device = full_device(tmp_path / "full")
    link = tmp_path / "out.txt"
    link.symlink_to(device)
    code, err = command.run(link, capsys)
    assert one_line(code, err).startswith(
        f"quizbot: can't write {link}: {os.strerror(errno.ENOSPC)}"
    )
    assert link.is_symlink() and link.readlink() == device
    assert_still_full_device(device)


@as_root
def test_a_block_device_is_refused_unopened(
    command: Command, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A loop device's numbers, one no machine here has attached: nothing to harm if opened.
    device = tmp_path / "disk"
    os.mknod(device, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    code, err = command.run(device, capsys)
    assert one_line(code, err) == (
        f"quizbot: can't write {device}: a block device (a disk), which quizbot will not "
        "write over (give --output a regular file)"
    )
    assert stat.S_ISBLK(device.lstat().st_mode)


@as_root
def test_standard_output_on_a_full_device_is_one_line_and_exit_1(
    command: Command, tmp_path: Path
) -> None:
    # `quizbot … > full`: no --output, and the redirection's disk is full.
    device = full_device(tmp_path / "full")
    with device.open("wb") as stdout:
        result = command.subprocess(None, stdout=stdout)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"quizbot: can't write standard output: {os.strerror(errno.ENOSPC)} "
        "(free some space, or give --output a file on another disk)"
    )
    assert_still_full_device(device)
