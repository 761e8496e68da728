"""Words that point somewhere: every sentence of the bot, in every language, names only
commands that exist as its reader's Discord shows them (``/game rebuild``, ``/partie
reconstruire``, ``/spiel wiederherstellen``; never ``/rebuild`` or the English ``/build`` to a
French reader), and an answer a reader alone gets is in his language."""

from __future__ import annotations

import re

import pytest

from bot import i18n
from bot.commands import COMMANDS, GROUPS, Context, run_line
from bot.discord.slash import english_strings
from bot.service import GameService
from tests.service.conftest import started_game

# "/word" or "/group member" not inside a word, a path, a URL, a placeholder or a mention
COMMAND_REF = re.compile(r"(?<![-\w/:.<{])/([^\W\d]\w*)(?: ([^\W\d]\w*))?")


def shown(key: str, english: str, lang: str) -> str:
    return (i18n.lookup(key, lang) if lang != "en" else None) or english


def commands_in(lang: str) -> tuple[set[str], dict[str, set[str]]]:
    """The top-level commands and the groups with their members, as a client in ``lang``
    shows them."""
    top = {shown(f"commands.{s.name}.name", s.name, lang) for s in COMMANDS.values()
           if s.parent is None}
    groups = {shown(f"groups.{g}.name", g, lang): {
        shown(f"commands.{s.name}.name", s.name, lang) for s in COMMANDS.values()
        if s.parent == g} for g in GROUPS}
    return top, groups


def nowhere(text: str, lang: str) -> list[str]:
    """The command references in ``text`` that a client in ``lang`` does not show."""
    top, groups = commands_in(lang)
    bad = []
    for match in COMMAND_REF.finditer(text):
        word, member = match.group(1), match.group(2)
        if word in groups:
            if member not in groups[word]:
                bad.append(match.group(0))
        elif word not in top:
            bad.append(f"/{word}")
    return bad


def sentences(lang: str) -> dict[str, str]:
    """Every sentence of ``lang``: its catalogue, and in English the command table's words."""
    words = dict(i18n.catalogue(lang))
    if lang == "en":
        words |= english_strings()
    return {k: v for k, v in words.items() if not k.endswith(".name")}


def test_the_check_finds_a_command_that_does_not_exist() -> None:
    assert nowhere("use /rebuild, or /game rebuild", "en") == ["/rebuild"]
    assert nowhere("utilisez /build ou /construire", "fr") == ["/build"]
    assert nowhere("/spiel pause, /spiel pausieren, /game pause", "de") == [
        "/spiel pausieren", "/game"]
    assert nowhere("Might/Faith, Wald-/Gebirgszuschlag, <t:1:R>, {a}/{b}, https://x.y/z", "de") \
        == []


# the terminal's own words (``/as NAME /command``, ``/random``, ``/quit``), which its
# sentences (``terminal.*``) may name besides the commands
TERMINAL_WORDS = {"en": {"/as", "/command", "/random", "/quit"},
                  "fr": {"/comme", "/commande", "/hasard", "/sortir"},
                  "de": {"/als", "/befehl", "/zufall", "/beenden"}}


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_no_sentence_names_a_command_its_reader_does_not_have(lang: str) -> None:
    found = {key: [w for w in nowhere(text, lang)
                   if not (key.startswith("terminal.") and w in TERMINAL_WORDS[lang])]
             for key, text in sentences(lang).items()}
    assert {k: v for k, v in found.items() if v} == {}
    assert sum(1 for text in sentences(lang).values() if COMMAND_REF.search(text)) > 30


@pytest.mark.parametrize(("lang", "said"), [(None, "The age of Faith."),
                                             ("fr", "Plateau : Foi."),
                                             ("de", "Spielplan: Glaube.")])
async def test_board_age_answers_in_the_readers_language(
        service: GameService, lang: str | None, said: str) -> None:
    """/board age:faith answers its reader alone: the sentence and the picture in his
    language, whatever the game's."""
    await started_game(service, 5, players=2, seed=5)
    out = await run_line(service, Context(5, 51, "Ann", 1, locale=lang), "/board age:faith")
    assert out.reply is not None and out.reply.image is not None
    assert out.reply.text == said
    assert out.reply.image.lang == i18n.language(lang)
