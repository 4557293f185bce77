"""Slash commands in the member's language, end to end: the bot registers its translations
itself, a Spanish client is shown Spanish descriptions (names stay English), a restart with the
same catalogs registers nothing, and /config language answers a moderator in their own
language."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from fakediscord import DiscordEmulator

from .bot_helpers import COMMANDS, STEP, QuizBotRunner, checked_bot, reply_of, text_of

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


async def wait_for_log(quizbot: QuizBotRunner, text: str, timeout: float = STEP) -> None:  # noqa: ASYNC109
    """Poll the running bot's log (it is a file of another process) for `text`."""
    async with asyncio.timeout(timeout):
        while True:
            if text in quizbot.current.log_path.read_text(errors="replace"):
                return
            await asyncio.sleep(0.05)


async def test_a_spanish_client_sees_spanish_descriptions_and_a_restart_registers_nothing(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    driver = emulator.driver
    sofia = driver.create_user("sofia", locale="es-ES")
    ana = driver.create_user("ana", locale="en-US")
    guild = driver.create_guild("Grupo de estudio", owner=sofia)
    channel = driver.create_text_channel(guild, "estudio")
    driver.add_member(guild, ana)
    async with checked_bot(emulator, tmp_path) as quizbot:
        await quizbot.start()
        await driver.wait_for_commands(names=COMMANDS, timeout=STEP)
        await wait_for_log(quizbot, "slash commands: registered")
        puts = driver.server.commands.put_count

        spanish = {c["name"]: c for c in driver.commands_as_seen(sofia)}
        english = {c["name"]: c for c in driver.commands_as_seen(ana)}
        assert set(spanish) == set(english) == COMMANDS  # names stay English
        assert spanish["quiz"]["description"] == "Publica una tarea de práctica en este canal."
        assert english["quiz"]["description"] == "Post a practice task in this channel."
        assert spanish["help"]["description"] == "Los comandos que puedes usar aquí, por grupos."
        (language,) = [o for o in spanish["config"]["options"] if o["name"] == "language"]
        assert language["description"] == "El idioma de los mensajes públicos de este servidor."
        (option,) = language["options"]
        assert [c["name"] for c in option["choices"]] == [
            "English",
            "Deutsch",
            "español",
            "français",
            "português (Brasil)",
            "El idioma de cada miembro",
        ]

        # The owner (a moderator) sets French for the server; the reply is private: Spanish.
        reply = await reply_of(
            driver.slash("config language", user=sofia, channel=channel, options={"language": "fr"})
        )
        assert text_of(reply).startswith(
            "Los mensajes públicos de aquí ahora están en **français**"
        ), text_of(reply)

        await quizbot.restart(signal.SIGTERM)
        await wait_for_log(quizbot, "are current")
        assert driver.server.commands.put_count == puts


async def test_quizbot_sync_sends_the_translations_too(
    emulator: DiscordEmulator, tmp_path: Path
) -> None:
    driver = emulator.driver
    guild = driver.create_guild("Grupo")
    brazilian = driver.create_user("joana", locale="pt-BR")
    driver.add_member(guild, brazilian)
    async with checked_bot(emulator, tmp_path) as quizbot:
        said = await quizbot.sync(guild)
        assert "Synced" in said, said
        seen = {c["name"]: c for c in driver.commands_as_seen(brazilian, guild)}
        assert seen["quiz"]["description"] == "Publica uma tarefa de prática neste canal."
