"""Issue 26, class 5, second pass: a lone surrogate ("\\ud800", valid in a raw payload's JSON,
never text) in a free-text option reached the database's UTF-8 encoder and logged a traceback
(`/bank download name`, `/bank remove name`). Every free-text option refuses it privately, as
it refuses a value of the wrong type."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.quiz.tasks import Catalog
from tests.discord_ui.fakes import FakeDiscordHTTP
from tests.discord_ui.test_fuzz import OPTIONS, STRING, Option, harness

SURROGATES = ["\ud800", "bank\udfff", "\udc00x"]
TEXT_OPTIONS = [o for o in OPTIONS if o.kind == STRING]


def test_the_bank_name_options_are_among_those_tried() -> None:
    assert {"/bank download name", "/bank remove name"} <= {str(o) for o in TEXT_OPTIONS}


@pytest.mark.parametrize("option", TEXT_OPTIONS, ids=str)
def test_a_lone_surrogate_in_a_text_option_is_refused_privately(
    option: Option,
    tmp_path: Path,
    fake: FakeDiscordHTTP,
    catalog: Catalog,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # `Harness.send` asserts one private answer within 3 s and no ERROR or traceback logged.
    with harness(tmp_path, fake, catalog, caplog) as h:
        for value in SURROGATES:
            h.command(option, value)
