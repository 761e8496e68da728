"""French and German: complete catalogues, valid Discord names, and a synced payload that
carries them; autocomplete, replies and refusals in the player's language; posts, pings and
notices in the game's, also when sent after a restart."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import engine
from bot import i18n
from bot.commands import COMMANDS, GROUPS
from bot.discord.slash import english_strings
from bot.service import GameService
from bot.storage.sqlite import SqliteStorage
from engine import Family
from tests.discord.conftest import Scene
from tests.discord.test_slash import first_player_has, make_bot, run, synced
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.models import FakeMessage, Perm, body_of

TRANSLATED = ("fr", "de")
# Discord's rule for slash command and option names (lowercase letters of any script,
# digits, - and _; 1 to 32 characters)
NAME = re.compile(r"^[-_\w]{1,32}$")


def english() -> dict[str, str]:
    return dict(i18n.catalogue("en")) | english_strings()


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_key_has_its_translation_with_the_same_placeholders(lang: str) -> None:
    source = english()
    cat = i18n.catalogue(lang)
    assert sorted(set(source) - set(cat)) == [], f"{lang}: keys to translate"
    assert sorted(set(cat) - set(source)) == [], f"{lang}: keys no longer used"
    for key, text in source.items():
        assert i18n.placeholders(cat[key]) == i18n.placeholders(text), (lang, key)
        assert cat[key].strip(), (lang, key)


# a catalogue call in the bot's code: say/tell/counted (bot/service/texts.py), i18n.text,
# i18n.private, i18n.lookup; group 2 is its key, literal or the fixed start of an f-string
KEY_CALL = re.compile(r"\b(say|tell|counted|i18n\.text|i18n\.private|i18n\.lookup)\(\s*"
                      r"(f?\"[a-z_]+(?:\.[a-z_]+)*\.?(?:\{|\"))")


def keys_in_code() -> tuple[set[str], set[str]]:
    """The catalogue keys the bot's code names: whole keys, and the prefixes of keys it builds
    (``manage.{what}``)."""
    whole: set[str] = set()
    prefixes: set[str] = set()
    for path in Path("bot").rglob("*.py"):
        for match in KEY_CALL.finditer(path.read_text(encoding="utf-8")):
            literal = match.group(2)
            if literal.startswith("f") and literal.endswith("{"):
                prefixes.add(literal[2:-1])
            elif literal.startswith("f"):
                whole.add(literal[2:-1])
            else:
                key = literal[1:-1]
                if match.group(1) == "counted":
                    whole |= {f"{key}.one", f"{key}.other"}
                else:
                    whole.add(key)
    return whole, prefixes


def test_every_key_the_code_uses_is_in_the_english_catalogue() -> None:
    """A sentence the code asks for exists in en.toml (or the command table), so each is also
    checked for its French and German above; a key built from a value (``manage.{what}``)
    has at least one entry under its prefix."""
    source = english()
    whole, prefixes = keys_in_code()
    assert len(whole) > 150, "the scan finds the catalogue calls"
    assert sorted(k for k in whole if k not in source) == []
    assert sorted(p for p in prefixes if not any(k.startswith(p) for k in source)) == []


def test_a_translated_sentence_names_the_commands_as_its_reader_sees_them() -> None:
    """A French or German sentence tells of /rejoindre or /spiel fortsetzen, the names that
    reader's Discord shows, never of the English /join or /game resume."""
    from bot.commands import COMMANDS

    english = {s.name for s in COMMANDS.values()} | set(GROUPS)
    for lang in TRANSLATED:
        local = {v for k, v in i18n.catalogue(lang).items()
                 if k.startswith(("commands.", "groups.")) and k.endswith(".name")}
        for key, value in i18n.catalogue(lang).items():
            named = set(re.findall(r"(?<![\w/])/([^\W\d]\w*)", value))
            assert not named & (english - local), (lang, key, value)


def test_every_english_sentence_is_translated() -> None:
    """A French or German entry equal to the English one is an entry left untranslated (a
    few words are the same in both languages and are listed here)."""
    same = {"cards.list", "suggest.cards_label", "suggest.label", "suggest.cards",
            "image.hand_alt", "compare.title", "choices.language.en", "choices.language.fr",
            "choices.language.de", "options.option", "options.holdem", "timers.warning_here",
            "community.hours", "count.cubes.other", "count.cubes.one", "help.option",
            "surcharge.terrain", "mygames.entry", "parse.refused"}
    source = english()
    for lang in TRANSLATED:
        cat = i18n.catalogue(lang)
        left = sorted(k for k, v in source.items()
                      if cat.get(k) == v and k not in same and len(v) > 12
                      and not k.startswith(("commands.", "options.", "choices.")))
        assert left == [], (lang, left)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translated_names_are_valid_and_unique_where_discord_needs(lang: str) -> None:
    cat = i18n.catalogue(lang)

    def name(key: str) -> str:
        value = cat[key]
        assert NAME.match(value) and value == value.lower(), (lang, key, value)
        return value

    top = [name(f"commands.{s.name}.name") for s in COMMANDS.values() if s.parent is None]
    top += [name(f"groups.{g}.name") for g in GROUPS]
    assert len(top) == len(set(top)), f"{lang}: two top-level commands share a name"
    for group in GROUPS:
        members = [name(f"commands.{s.name}.name") for s in COMMANDS.values()
                   if s.parent == group]
        assert len(members) == len(set(members))
    for spec in COMMANDS.values():
        options = [name(f"options.{p.name}") for p in spec.params]
        assert len(options) == len(set(options)), (lang, spec.name)
    for key, value in cat.items():
        if key.startswith(("commands.", "groups.", "choices.")):
            assert 1 <= len(value) <= 100, (lang, key)  # Discord's limit


def test_text_falls_back_to_english_and_fills_placeholders() -> None:
    assert i18n.language("fr") == "fr" and i18n.language("de") == "de"
    assert i18n.language("fr-CA") == "fr" and i18n.language("en-GB") == "en"
    assert i18n.language("pt-BR") == "en" and i18n.language(None) == "en"
    assert i18n.text("suggest.cards", "de", family="Zivil", count=2) == "Zivil \u00d72"
    assert i18n.text("suggest.cards", "pt-BR", family="civil", count=2) == "civil \u00d72"
    assert i18n.text("families.civil", "fr") == "civile"
    with pytest.raises(KeyError):
        i18n.text("no.such.key", "fr")


def localizations(item: dict[str, Any], field: str) -> dict[str, str]:
    return item.get(f"{field}_localizations") or {}


async def test_the_synced_commands_carry_french_and_german(fake_discord: FakeDiscord,
                                                           tmp_path: Path) -> None:
    """Every command, group, subcommand, option and choice Discord receives has its French and
    German name and description, equal to the catalogue's."""
    fake = fake_discord
    guild = fake.add_guild()
    bot, storage = await make_bot(fake, tmp_path, guild)
    try:
        async with fake.running(bot):
            commands = synced(fake, guild)
    finally:
        await storage.close()
    checked = 0

    def check(item: dict[str, Any], name_key: str, description_key: str) -> None:
        nonlocal checked
        for lang in TRANSLATED:
            cat = i18n.catalogue(lang)
            assert localizations(item, "name")[lang] == cat[name_key]
            assert localizations(item, "description")[lang] == cat[description_key]
        checked += 1

    for group in GROUPS:
        check(commands[group], f"groups.{group}.name", f"groups.{group}.description")
    for spec in COMMANDS.values():
        if spec.parent is None:
            data = commands[spec.name]
        else:
            data = next(o for o in commands[spec.parent]["options"] if o["name"] == spec.name)
        check(data, f"commands.{spec.name}.name", f"commands.{spec.name}.description")
        for opt in data.get("options") or []:
            check(opt, f"options.{opt['name']}",
                  f"commands.{spec.name}.options.{opt['name']}")
            kind = next(p.kind for p in spec.params if p.name == opt["name"])
            for choice in opt.get("choices") or []:
                for lang in TRANSLATED:
                    assert localizations(choice, "name")[lang] == i18n.catalogue(lang)[
                        f"choices.{kind}.{choice['value']}"]
    assert checked > len(COMMANDS)
    assert localizations(commands["build"], "name") == {"fr": "construire", "de": "bauen"}


async def test_autocomplete_speaks_the_players_language(fake_discord: FakeDiscord,
                                                        tmp_path: Path) -> None:
    """A player whose Discord is in French reads the suggested squares in French; the values
    submitted stay the same."""
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice, bob = fake.add_user("alice", locale="fr"), fake.add_user("bob", locale="fr")
    bot, storage = await make_bot(fake, tmp_path, guild, first_player_has({Family.MILITARY: 2}))
    try:
        async with fake.running(bot):
            await run(fake, alice, ch, "create", players=2)
            await run(fake, bob, ch, "join")
            info, state = await bot.service.snapshot(ch.id)
            player = alice if info.user_of(state.turn) == alice.id else bob
            got = await fake.autocomplete(player, ch, "build", focused="square", options={
                "age": "might", "building": "keep", "square": ""})
            assert got and all("Puissance" in c["name"] and "Donjon" in c["name"]
                               and "militaire \u00d72" in c["name"] for c in got)
            assert all(re.fullmatch(r"[A-T]\d{1,2}", c["value"]) for c in got)
    finally:
        await storage.close()


def saying(text: str) -> Callable[[FakeMessage], bool]:
    """The check that a message says ``text``."""
    return lambda m: text in m.content


async def test_help_follows_the_players_discord_language(fake_discord: FakeDiscord,
                                                         tmp_path: Path) -> None:
    """/help lists the commands as a French or German Discord shows them; English stays the
    default for every other locale."""
    from bot.commands import help_text

    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    users = {lang: fake.add_user(f"u{lang}", locale=lang) for lang in ("fr", "de", "es-ES")}
    bot, storage = await make_bot(fake, tmp_path, guild)
    try:
        async with fake.running(bot):
            replies = {}
            for lang, user in users.items():
                ia = await fake.slash(user, ch, "help")
                last = help_text(lang).rsplit("\n", 1)[1]
                await ia.wait_message(saying(last), timeout=10)
                replies[lang] = "\n".join(m.content for m in ia.messages)
    finally:
        await storage.close()
    assert replies["fr"] == help_text("fr") and "/construire" in replies["fr"]
    assert "/partie pause" in replies["fr"] and "Votre tour :" in replies["fr"]
    assert replies["de"] == help_text("de") and "/bauen" in replies["de"]
    assert "/spiel pause" in replies["de"]
    assert replies["es-ES"] == help_text() and "/build keep C4 might" in replies["es-ES"]


async def test_a_french_client_is_refused_in_french_and_a_german_game_posts_german(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    """Through discord.py and the fake Discord: a player whose client is French reads his
    refusals in French, ephemeral (the service's, and the engine's R8 out of turn); once the
    creator sets /game settings language:de, the channel reads German (settings, the start,
    the turn ping, the notice that a player's DMs are closed, with its button), and a refusal
    to an English client stays English."""
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice = fake.add_user("alice")
    bob = fake.add_user("bob", locale="fr")
    carl = fake.add_user("carl", locale="fr", dms_open=False)
    bot, storage = await make_bot(fake, tmp_path, guild)
    try:
        async with fake.running(bot):
            await run(fake, alice, ch, "create", players=3)
            await run(fake, bob, ch, "join")
            refused = await run(fake, bob, ch, "start")  # bob is not the creator
            words = refused.messages[-1]
            assert words.ephemeral
            assert words.content == i18n.text("manage.start", "fr")
            assert words.content.startswith("Seul le créateur de la partie")

            settings = await run(fake, alice, ch, "game settings", language="de")
            posted = await fake.wait_for_message(
                ch, lambda m: "stellt ein" in m.content, timeout=10)
            assert posted.content.endswith("Sprache: Deutsch, Tipps aus.")
            assert settings.messages  # alice's own answer came too

            english = await run(fake, alice, ch, "hand")  # the game has not started
            assert english.messages[-1].content == i18n.text("refusal.not_started", None)
            assert english.messages[-1].content.startswith("The game has not started yet")

            await run(fake, carl, ch, "join")  # the third seat: the game starts by itself
            begins = await fake.wait_for_message(
                ch, lambda m: "Die Partie beginnt" in m.content, timeout=10)
            assert "carl tritt bei; die Partie ist voll." in begins.content
            ping = await fake.wait_for_message(  # the first turn's table, in German
                ch, lambda m: m.text().startswith("**Runde 1 von 7** · <@"), timeout=10)
            assert ping.id > begins.id and "ist am Zug" in ping.text() and ping.pinged
            assert "Wartet auf " in ping.text() and "/ende beendet den Zug." in ping.text()
            closed = await fake.wait_for_message(
                ch, lambda m: "Direktnachrichten von carl sind geschlossen" in m.content,
                timeout=10)
            labels = [c.get("label") for row in closed.components
                      for c in row.get("components", [])]
            assert labels == ["Meine Hand zeigen"]

            # R8: the engine's refusal, in the French client's words, with a name for the seat
            info, state = await bot.service.snapshot(ch.id)
            waiting = bob if info.user_of(state.turn) != bob.id else carl
            out_of_turn = await run(fake, waiting, ch, "end")
            assert out_of_turn.messages[-1].ephemeral
            assert out_of_turn.messages[-1].content == (
                f"Ce n'est pas votre tour : c'est à {info.names[state.turn]} de jouer (R8).")
    finally:
        await storage.close()


async def test_rows_sent_after_a_restart_keep_the_language_of_their_commit(
        scene: Scene) -> None:
    """A French game without Attach Files in its channel: a move is committed, the process
    stops before sending, the game is set to German, and the bot starts 10 minutes later.
    The move's table edit comes late in French, its "delayed" and picture-in-words framing
    in French too; the settings post written after it comes in German."""
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    fake.set_permissions(ch, fake.bot_user, deny=Perm.ATTACH_FILES)
    async with fake.running(scene.bot()) as bot:
        await scene.slash(alice, "create", players=2)
        await scene.slash(alice, "game settings", language="fr")
        await scene.slash(bob, "join")
        notice = await fake.wait_for_message(
            ch, lambda m: "**Joindre des fichiers**" in m.content, timeout=10)
        info, state = await bot.service.snapshot(ch.id)
    first = info.user_of(state.turn)
    assert first is not None and notice.content.startswith("Le bot n'a pas le droit")
    async with SqliteStorage.in_dir(scene.data) as storage:  # committed, then the process stops
        offline = GameService(storage)
        await offline.act(ch.id, first, engine.EndTurn())
        await offline.update_settings(ch.id, alice.id, language="de")
    async with SqliteStorage.in_dir(scene.data) as storage:
        later = GameService(storage, clock=lambda: time.time() + 600)
        async with fake.running(scene.bot(service=later)):
            german = await fake.wait_for_message(
                ch, lambda m: "stellt ein" in m.content, timeout=10)
    # the move is on its turn's table message (plain: no Attach Files), edited late
    [table] = [m for m in fake.channel_messages(ch) if "termine son tour" in m.content]
    move = table.content
    assert "\n(En retard : ceci s'est passé <t:" in move and "(terminé)" in move
    assert "\n(Image : " in move and "Verspätet" not in move
    assert german.content.startswith("(Verspätet: Das geschah <t:")
    edited = [i for i, r in enumerate(fake.requests)
              if r["method"] == "PATCH" and r["path"].endswith(f"/messages/{table.id}")]
    posted = [i for i, r in enumerate(fake.requests) if r["method"] == "POST"
              and str(body_of(r).get("content", "")).startswith("(Verspätet")]
    assert edited and posted and edited[-1] < posted[0], "in the order of their commits"
