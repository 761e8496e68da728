"""A pasted 6,000-character value in every free-text option of every command, from clients in
English, French and German: each gets one short answer (a refusal in the reader's words,
naming the command as his client shows it, with at most an excerpt of the value), Discord
accepts every request the bot makes, and the game does not change. And the adapter hands no
text to discord.py but through ``bot/discord/messages.py``, which fits it."""

from __future__ import annotations

import ast
from pathlib import Path

from discord import AppCommandOptionType

from bot import i18n
from bot.commands import COMMANDS, CommandSpec, Param
from bot.discord.slash import OPTION_TYPES
from tests.discord.conftest import Scene, SeededBot
from tests.fakediscord.models import FakeUser, OptionValue

LONG = ("<@123456789012345678> **@everyone** C4 mmr " * 200)[:6000]
LANGUAGES = ("en-US", "fr", "de")


def shown(spec: CommandSpec, locale: str) -> str:
    """The command as a client in ``locale`` shows it (``/partie remplacer``)."""
    words = [i18n.lookup(f"commands.{spec.name}.name", locale) or spec.name]
    if spec.parent:
        words.insert(0, i18n.lookup(f"groups.{spec.parent}.name", locale) or spec.parent)
    return "/" + " ".join(words)


def free_text(param: Param) -> bool:
    """A string option without fixed choices: Discord lets a client send any text in it."""
    return OPTION_TYPES[param.kind] is AppCommandOptionType.string and not param.choices


def filled(spec: CommandSpec, long: Param, user: FakeUser) -> dict[str, OptionValue]:
    """The command's required options with ordinary values, and ``long`` with ``LONG``."""
    ordinary: dict[str, OptionValue] = {"building": "keep", "square": "C4", "age": "might",
                                "cards": "m", "int": 1, "number": 1.0, "hours": 1.0,
                                "user": user, "seat": "Computer 1"}
    out = {p.name: ordinary[p.kind] for p in spec.params if p.required and p is not long}
    out[long.name] = LONG
    return out


CASES = [(spec, p) for spec in COMMANDS.values() for p in spec.params if free_text(p)]


def test_the_free_text_options_are_found() -> None:
    named = {(spec.name, p.name) for spec, p in CASES}
    assert {("build", "square"), ("exchange", "cards"), ("replace", "computer")} <= named
    assert len(CASES) >= 12


async def test_a_long_value_in_any_option_gets_a_short_answer_in_every_language(
        scene: Scene, seeded_bot: SeededBot) -> None:
    fake, ch = scene.fake, scene.ch
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    async with seeded_bot(7) as bot, fake.running(bot):
        await scene.two_player_game(alice, bob)
        info = await bot.service.info(ch.id)
        for lang in LANGUAGES:
            for spec, param in CASES:
                path = f"{spec.parent} {spec.name}" if spec.parent else spec.name
                ia = await fake.slash(alice, ch, path, options=filled(spec, param, bob),
                                      locale=lang)
                await ia.wait_ack()
                await ia.wait_message(timeout=10)
                where = (lang, path, param.name)
                assert not ia.refused, where
                assert ia.messages, where
                for message in ia.messages:
                    assert 0 < len(message.content) <= 2000, where
                    assert LONG[:80] not in message.content, where  # an excerpt at most
                    assert message.ephemeral, where
                said = ia.messages[-1].content
                if param.kind != "seat":  # the option itself is refused, by its command
                    assert shown(spec, lang) + ":" in said, (where, said)
        refused = [(m, p, s) for m, p, s in fake.request_log if s >= 400]
        assert refused == []
        assert (await bot.service.info(ch.id)).version == info.version  # nothing changed


# --- every text goes through messages.py --------------------------------------------------

SENDING = {"send", "send_message", "edit_message", "edit", "edit_original_response"}


def texts_handed_to_discord(path: Path) -> list[str]:
    """Calls in ``path`` that give discord.py a message's text directly: a method called
    like a sending one, with a positional argument or ``content=``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in SENDING
                and (node.args or any(k.arg == "content" for k in node.keywords))):
            found.append(f"{path.name}:{node.lineno} {ast.unparse(node.func)}")
    return found


def test_the_adapter_sends_every_text_through_the_one_place_that_fits_it() -> None:
    adapter = Path("bot/discord")
    found = [hit for path in sorted(adapter.glob("*.py")) if path.name != "messages.py"
             for hit in texts_handed_to_discord(path)]
    assert found == [], "send texts with messages.send / respond / edit_response"
    assert texts_handed_to_discord(adapter / "messages.py")  # the scan finds such calls
