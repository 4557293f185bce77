"""Issue 26, a second adversarial pass: cases of its classes that the issue did not list.

- class 1: a database URL naming a FIFO or a device (/dev/null) is one line from every
  command, not a hang or the engine's traceback; so is an SQLite option SQLite refuses
  (`vfs=`, `nolock=`) from the commands that only read, and an `alembic_version` that says
  head over tables that are gone;
- class 2: `export results --output` onto the database's -wal, -shm or lock file is refused
  even while no bot runs (the -wal is then not there, but the next open takes the file for it);
  standard output that fills up mid-write is one line and exit 1 under PYTHONUNBUFFERED too;
  CONTENT_CACHE, which `run` writes by a rename, never replaces a device, a FIFO or a link;
- class 6: an Aiken option written without its space (`A)x`) is named as such;
- class 7: choice options that differ only in Markdown marks (two buttons "ab"), and an
  option of combining marks alone, are refused by the check; so is a topic that reads the
  same as another's but is written otherwise (`mlops`, `ML<zero-width space>Ops`);
- class 9: a bank reached by two names (a link beside it, as in a Kubernetes ConfigMap
  mount, or a hard link) is one bank, and a ConfigMap's update is reloaded;
- class 10: a city typed with its accents ("São Paulo", "Zürich") is the zone.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import textwrap
from pathlib import Path

import pytest

from bot.clock import utcnow
from bot.content import importers
from bot.content.cache import load_banks_cached
from bot.content.reload import ContentReloader
from bot.schedule.zones import resolve_zone
from bot.store import Store, answers, make_engine
from bot.store.migrate import head_revision
from tests.cli_run import ROOT, quizbot_env, run_quizbot_cli
from tests.content.test_reload import bank
from tests.content.test_reload_edges import armed_watch, until
from tests.store_calls import write

GUILD = 1


@pytest.fixture
def database(tmp_path: Path) -> Path:
    """A quizbot database whose server GUILD has a member (so `export results` writes)."""
    path = tmp_path / "q.db"
    engine = make_engine(f"sqlite:///{path}")
    write(Store(engine), answers.upsert_member, GUILD, 7, "ada", utcnow())
    engine.dispose()
    return path


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quizbot: "), result.stderr
    for word in words:
        assert word in lines[0], lines[0]


# -- class 1: the commands that read ----------------------------------------------------------


READERS = [("db", "current"), ("export", "results", "--guild", str(GUILD))]


@pytest.mark.parametrize(
    ("command", "setting"),
    [
        (("db", "current"), "DATABASE_URL"),
        (("export", "results", "--guild", str(GUILD)), "DATABASE_URL"),
        (("db", "upgrade"), "DATABASE_URL"),
        (("db", "copy", "{fifo}", "sqlite:///new.db"), "SRC_URL"),
        (("db", "copy", "{database}", "{fifo}"), "DST_URL"),
    ],
    ids=["db current", "export results", "db upgrade", "db copy from", "db copy to"],
)
def test_a_fifo_as_the_database_is_one_line_not_a_hang(
    command: tuple[str, ...], setting: str, tmp_path: Path, database: Path
) -> None:
    """The read-only open of a FIFO waited for a writer for ever; a device or a FIFO as the
    database written to (`/dev/null`) was the engine's traceback from its switch to WAL."""
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    urls = {"{fifo}": f"sqlite:///{fifo}", "{database}": f"sqlite:///{database}"}
    args = [urls.get(arg, arg) for arg in command]
    env = quizbot_env(DATABASE_URL=f"sqlite:///{fifo}")
    result = run_quizbot_cli(*args, env=env, cwd=tmp_path, timeout=30)
    one_line(result, str(fifo), "is not a database file", f"({setting})")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("command", READERS, ids=" ".join)
@pytest.mark.parametrize(
    ("option", "reason"), [("vfs=nosuch", "no such vfs"), ("nolock=1", "cannot open")]
)
def test_an_sqlite_option_sqlite_refuses_is_one_line(
    command: tuple[str, ...], option: str, reason: str, database: Path
) -> None:
    """The read probe opened the file without the URL's options, then the engine raised."""
    env = quizbot_env(DATABASE_URL=f"sqlite:///{database}?{option}")
    result = run_quizbot_cli(*command, env=env, cwd=database.parent)
    one_line(result, reason, "(DATABASE_URL)")


# -- class 2: the database's own files as --output ----------------------------------------------


def export_results(database: Path, target: Path) -> subprocess.CompletedProcess[str]:
    env = quizbot_env(DATABASE_URL=f"sqlite:///{database}")
    return run_quizbot_cli(
        "export",
        "results",
        "--guild",
        str(GUILD),
        "--output",
        str(target),
        env=env,
        cwd=database.parent,
    )


@pytest.mark.parametrize("end", ["-wal", "-shm", ".lock"])
def test_export_refuses_the_database_companion_files_while_no_bot_runs(
    end: str, database: Path
) -> None:
    target = database.with_name(database.name + end)
    target.unlink(missing_ok=True)
    result = export_results(database, target)
    assert result.returncode == 1
    assert "it is a file this command reads" in result.stderr
    assert not target.exists()


def test_export_still_writes_a_file_beside_the_database(database: Path) -> None:
    target = database.with_name("grades.csv")
    result = export_results(database, target)
    assert result.returncode == 0, result.stderr
    assert target.read_text(encoding="utf-8-sig").startswith("member_id,")


# -- class 6: Aiken ------------------------------------------------------------------------------


def test_an_aiken_option_without_its_space_is_named() -> None:
    """It was reported as "the ANSWER line needs at least two options before it"."""
    _, result = importers.parse(
        "What?\nA)x\nB)y\nANSWER: A\n", source="q.txt", fmt="aiken", topic="T"
    )
    assert not result.drafts
    (line,) = result.report
    assert line.line == 2
    assert "option line 'A)x' needs a space after 'A)'" in line.render("q.txt")


# -- class 7: options that read the same ------------------------------------------------------


def check(tmp_path: Path, options: list[str]) -> subprocess.CompletedProcess[str]:
    shown = ", ".join(f'"{o}"' for o in options)
    bank = tmp_path / "b.yaml"
    bank.write_text(
        textwrap.dedent(
            f"""\
            bank: b
            topic: T
            tasks:
              - id: t1
                kind: choice
                difficulty: easy
                question: Which?
                options: [{shown}]
                answer: A
                hint: Think.
                solution: {{explanation: Because.}}
            """
        ),
        encoding="utf-8",
    )
    return run_quizbot_cli("content", "check", str(bank), env=quizbot_env(), cwd=tmp_path)


@pytest.mark.parametrize(
    "options",
    [["ab", "**ab**"], ["a*b", "a\\\\*b"], ["x", "`x`"], ["ab", "||ab||"]],
    ids=["bold", "escaped", "code", "spoiler"],
)
def test_choice_options_that_differ_only_in_markdown_are_refused(
    options: list[str], tmp_path: Path
) -> None:
    """Both are the same button label ("A · ab", "B · ab"): the label is plain text."""
    result = check(tmp_path, options)
    assert result.returncode == 1
    assert "b.yaml:8: task t1, field options[1]: option B reads the same as option A" in (
        result.stdout + result.stderr
    )


def test_an_option_of_combining_marks_alone_is_refused(tmp_path: Path) -> None:
    result = check(tmp_path, ["\\u0301\\u0301", "beta"])
    assert result.returncode == 1
    assert "field options[0]: shows nothing: it holds only combining marks" in (
        result.stdout + result.stderr
    )


def test_options_that_read_differently_still_pass(tmp_path: Path) -> None:
    result = check(tmp_path, ["a*b", "ab", "é", "e"])
    assert result.returncode == 0, result.stdout + result.stderr


# -- class 10: cities with their accents -------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "zone"),
    [("São Paulo", "America/Sao_Paulo"), ("zürich", "Europe/Zurich"), ("Berlin", "Europe/Berlin")],
)
def test_a_city_typed_with_its_accents_is_its_zone(typed: str, zone: str) -> None:
    assert resolve_zone(typed) == zone


def test_quizbot_timezone_takes_a_city_with_its_accents(database: Path) -> None:
    env = quizbot_env(DATABASE_URL=f"sqlite:///{database}", QUIZBOT_TIMEZONE="Zürich")
    result = run_quizbot_cli("db", "current", env=env, cwd=database.parent)
    assert result.returncode == 0, result.stderr


# -- class 9: one file, two names --------------------------------------------------------------


def configmap(folder: Path, version: str, *task_ids: str) -> None:
    """CONTENT_DIR as Kubernetes mounts a ConfigMap: `a.yaml -> ..data/a.yaml`, and `..data`
    a link to the current version's hidden folder, swapped in one rename on each update."""
    data = folder / f"..{version}"
    data.mkdir()
    (data / "a.yaml").write_text(bank(*task_ids), encoding="utf-8")
    link = folder / "..data_tmp"
    link.symlink_to(data.name)
    link.replace(folder / "..data")
    if not (folder / "a.yaml").is_symlink():
        (folder / "a.yaml").symlink_to("..data/a.yaml")


def test_a_configmap_folder_checks_clean(tmp_path: Path) -> None:
    """Each bank was read twice (as a.yaml and as ..v1/a.yaml), every id clashing."""
    content = tmp_path / "content"
    content.mkdir()
    configmap(content, "v1", "k-1", "k-2")
    result = run_quizbot_cli("content", "check", str(content), env=quizbot_env(), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 tasks in 1 bank: OK" in result.stdout


def test_a_hard_link_to_a_bank_is_one_bank(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "a.yaml").write_text(bank("h-1"), encoding="utf-8")
    os.link(content / "a.yaml", content / "b.yaml")
    result = run_quizbot_cli("content", "check", str(content), env=quizbot_env(), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


async def test_a_configmap_update_is_reloaded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    content = tmp_path / "content"
    content.mkdir()
    configmap(content, "v1", "k-1")
    made: list[ContentReloader] = []
    holder, reloader = await armed_watch(made, content, caplog)
    try:
        assert [t.id for t in holder.catalog] == ["k-1"]
        configmap(content, "v2", "k-1", "k-2")
        shutil.rmtree(content / "..v1")
        await until(lambda: "k-2" in holder.catalog, "the updated ConfigMap's banks")
    finally:
        await reloader.stop()


# -- class 2: standard output that fills up --------------------------------------------------------


def choice_bank(tmp_path: Path, count: int) -> Path:
    """A bank every format exports whole, of some 1,000 bytes a task."""
    tasks = "".join(
        f"""
  - id: t{i}
    kind: choice
    difficulty: easy
    question: Question {i}, {"lorem ipsum " * 60}?
    options: [alpha, beta]
    answer: A
    hint: Think.
    solution: {{explanation: Because.}}
"""
        for i in range(count)
    )
    folder = tmp_path / "banks"
    folder.mkdir()
    (folder / "b.yaml").write_text(f"bank: b\ntopic: T\ntasks:{tasks}", encoding="utf-8")
    return folder


def small_files() -> None:
    """In the child: files stop growing at 4 KiB (a disk that fills up mid-write: the write
    that crosses the limit is short, the next one fails), without SIGXFSZ killing it."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["PYTHONUNBUFFERED", "buffered"])
def test_an_export_to_standard_output_that_fills_up_is_one_line(
    unbuffered: str, tmp_path: Path
) -> None:
    """Under PYTHONUNBUFFERED (the Dockerfile's), the short write kept the first 4 KiB and the
    export said nothing and exited 0."""
    banks = choice_bank(tmp_path, 12)
    out = tmp_path / "out.xml"
    with out.open("wb") as stdout:
        result = run_quizbot_cli(
            "content",
            "export",
            str(banks),
            "--format",
            "moodle-xml",
            # No bytecode: the limit would cut the .pyc files it writes short too, and every
            # later `python -m bot` would fail to load them.
            env=quizbot_env(PYTHONUNBUFFERED=unbuffered, PYTHONDONTWRITEBYTECODE="1"),
            cwd=tmp_path,
            stdout=stdout,
            preexec_fn=small_files,
        )
    assert result.returncode == 1, result.stderr
    assert result.stderr.strip() == (
        "quizbot: can't write standard output: File too large (give --output a file in a "
        "folder that exists and that you may write to)"
    )


# -- class 2: the content cache, written by `run` ------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo"])
def test_a_content_cache_that_is_no_file_is_one_line(kind: str, tmp_path: Path) -> None:
    """Renamed over at the first start (and a FIFO's read waited for ever before that)."""
    fifo = tmp_path / "cache.fifo"
    os.mkfifo(fifo)
    cache = fifo
    if kind == "link to a fifo":
        cache = tmp_path / "cache.pickle"
        cache.symlink_to(fifo)
    result = run_quizbot_cli(
        "db", "current", env=quizbot_env(CONTENT_CACHE=str(cache)), cwd=tmp_path, timeout=30
    )
    one_line(result, "is not a regular file", "(CONTENT_CACHE)")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_the_content_cache_never_replaces_a_device(tmp_path: Path) -> None:
    """CONTENT_CACHE=/dev/null as root made /dev/null a regular file (here: a copy of it)."""
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    content = tmp_path / "content"
    content.mkdir()
    (content / "a.yaml").write_text(bank("c-1"), encoding="utf-8")
    assert [t.id for t in load_banks_cached(content, device)] == ["c-1"]
    assert stat.S_ISCHR(device.lstat().st_mode)


def test_the_content_cache_is_written_through_its_link(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    (content / "a.yaml").write_text(bank("c-1"), encoding="utf-8")
    link = tmp_path / "cache.pickle"
    link.symlink_to("volume.pickle")
    load_banks_cached(content, link)
    assert link.is_symlink() and (tmp_path / "volume.pickle").is_file()
    assert [t.id for t in load_banks_cached(content, link)] == ["c-1"]  # read back from it


# -- class 7: topics that read the same --------------------------------------------------------


def topic_bank(folder: Path, name: str, topic: str) -> None:
    text = bank(f"t-{name}").replace("topic: Testing", f'topic: "{topic}"')
    (folder / f"{name}.yaml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("other", "spelled"),
    [("mlops", "'mlops'"), ("ML\\u200bOps", "'ML\\u200bOps'"), ("ＭＬＯｐｓ", "'ＭＬＯｐｓ'")],
    ids=["case", "zero-width space", "full width"],
)
def test_a_topic_that_reads_like_another_is_refused(
    other: str, spelled: str, tmp_path: Path
) -> None:
    """/topics listed both ("MLOps" twice, to the eye), each with part of the tasks."""
    content = tmp_path / "content"
    content.mkdir()
    topic_bank(content, "a", "MLOps")
    topic_bank(content, "b", other)
    result = run_quizbot_cli("content", "check", str(content), env=quizbot_env(), cwd=tmp_path)
    assert result.returncode == 1
    assert (
        f"b.yaml:2: task t-b, field topic: topic {spelled} reads the same as the topic "
        f"'MLOps' at {content / 'a.yaml'}:2: write it the same way in every bank"
    ) in result.stdout + result.stderr


def test_topics_written_the_same_way_pass(tmp_path: Path) -> None:
    content = tmp_path / "content"
    content.mkdir()
    topic_bank(content, "a", "MLOps")
    topic_bank(content, "b", "MLOps")
    topic_bank(content, "c", "Python")
    result = run_quizbot_cli("content", "check", str(content), env=quizbot_env(), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


# -- class 1: a version table that says head over missing tables ----------------------------------


GUTTED_COMMANDS = [
    ("db", "current"),
    ("db", "upgrade"),
    ("export", "results", "--guild", str(GUILD)),
    ("practice", "--db", "{database}"),
]


@pytest.mark.parametrize("command", GUTTED_COMMANDS, ids=" ".join)
def test_a_head_version_over_a_dropped_table_is_one_line(
    command: tuple[str, ...], database: Path
) -> None:
    """`db current` said "(head)", `db upgrade` "nothing to do", and `practice` and `export
    results` died on the missing table with SQLAlchemy's traceback."""
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("DROP TABLE reveal")
        conn.commit()
    env = quizbot_env(DATABASE_URL=f"sqlite:///{database}", CONTENT_DIR=str(ROOT / "content"))
    command = tuple(part.format(database=database) for part in command)
    result = run_quizbot_cli(*command, env=env, cwd=database.parent, input=":q\n")
    one_line(result, "is at quizbot's schema revision", "but lacks its tables reveal")


def test_a_file_holding_only_the_version_table_is_one_line(tmp_path: Path) -> None:
    database = tmp_path / "q.db"
    with contextlib.closing(sqlite3.connect(database)) as conn:
        conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        conn.execute("INSERT INTO alembic_version VALUES (?)", (head_revision(),))
        conn.commit()
    env = quizbot_env(DATABASE_URL=f"sqlite:///{database}")
    result = run_quizbot_cli("db", "upgrade", env=env, cwd=tmp_path)
    one_line(result, "but lacks its tables", "attempt", "member")


def test_a_dotenv_that_is_a_fifo_is_one_line_not_a_hang(tmp_path: Path) -> None:
    """pydantic-settings opens .env with a bare open(): a FIFO there held every command."""
    os.mkfifo(tmp_path / ".env")
    env = quizbot_env(DATABASE_URL=f"sqlite:///{tmp_path / 'q.db'}")
    one_line(
        run_quizbot_cli("db", "current", env=env, cwd=tmp_path, timeout=30),
        ".env",
        "is not a regular file",
    )


def test_an_output_with_a_trailing_slash_is_refused_not_written_as_a_file(tmp_path: Path) -> None:
    """pathlib drops the slash: `--output new.yaml/` wrote a file named new.yaml."""
    typed = f"{tmp_path / 'new.gift'}/"
    result = run_quizbot_cli(
        "content",
        "export",
        str(ROOT / "content"),
        "--format",
        "gift",
        "--output",
        typed,
        env=quizbot_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2
    assert "names a folder" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "new.gift").exists()
