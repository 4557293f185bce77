"""`quizbot forget --guild G [--member M]`: a host deletes a member's or a whole server's data
in DATABASE_URL, is told what went, and gets one line for anything wrong."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli import main
from bot.store import AnswerRequest, Store, make_engine, member_data
from tests import store_calls
from tests.factories import choice
from tests.store_calls import create_post, read
from tests.test_cli_db import assert_refused_touching_nothing

GUILD = 800000000000000001
OTHER = GUILD + 1
ALICE, BOB = 111111111111111111, 222222222222222222
NOW = datetime(2025, 3, 10, 10, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Alice and Bob answer in GUILD, Alice also in OTHER."""
    url = f"sqlite:///{tmp_path / 'quizbot.db'}"
    engine = make_engine(url)
    store = Store(engine)
    for guild_id, members in ((GUILD, (ALICE, BOB)), (OTHER, (ALICE,))):
        post = create_post(store, guild_id, 1, choice("t-one"), now=NOW)
        for user_id in members:
            request = AnswerRequest(post.id, guild_id, user_id, "member", ("A",))
            store_calls.answer(store, request, NOW)
    engine.dispose()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", url)
    yield url


def kept(url: str, guild_id: int, user_id: int) -> bool:
    engine = make_engine(url, create=False)
    try:
        return not read(Store(engine), member_data.member_summary, guild_id, user_id).empty
    finally:
        engine.dispose()


def test_forgetting_a_member_deletes_theirs_in_that_server_only(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["forget", "--guild", str(GUILD), "--member", str(ALICE)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"deleted the data of member {ALICE} in server {GUILD}: attempt 1,")
    assert "score 1" in out and "member 1" in out
    assert not kept(db, GUILD, ALICE)
    assert kept(db, GUILD, BOB) and kept(db, OTHER, ALICE)


def test_forgetting_a_server_deletes_all_of_it(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forget", "--guild", str(GUILD)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"deleted the data of server {GUILD}: attempt 2,")
    assert "post 1" in out
    assert not kept(db, GUILD, ALICE) and not kept(db, GUILD, BOB)
    assert kept(db, OTHER, ALICE)


def test_forgetting_what_is_not_there_is_one_line(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["forget", "--guild", str(GUILD), "--member", "333"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip() == (
        f"quizbot: the database holds nothing of member 333 in server {GUILD} "
        "(check the ids: in Discord, right-click the server (or member) and Copy ID)"
    )
    assert kept(db, GUILD, ALICE)


@pytest.mark.parametrize("argv", [["--guild", "abc"], ["--guild", "0"], ["--member", "5"]])
def test_a_bad_id_is_one_line_and_deletes_nothing(
    db: str, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["forget", *argv])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("quizbot forget: error:") == 1 and "Traceback" not in err
    assert kept(db, GUILD, ALICE)


@pytest.mark.parametrize("kind", ["folder", "not-sqlite"])
def test_an_unusable_database_is_one_line_and_writes_nothing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_refused_touching_nothing(
        ["forget", "--guild", str(GUILD)], kind, tmp_path, monkeypatch, capsys
    )


def test_no_database_is_one_line_and_creates_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'none.db'}")
    assert main(["forget", "--guild", str(GUILD)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("quizbot: there is no database at") and err.count("\n") == 1
    assert not (tmp_path / "none.db").exists()
