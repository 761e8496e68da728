"""The engine's sentences reach players in their language (docs/discord.md, "Languages"): an
engine refusal in the language of the reader's Discord client, with names for seat tokens; a
move's events in the game's language in its post, in the reader's in /history."""

from __future__ import annotations

import pytest

from bot.commands import Context, execute
from bot.service import GameService, GameSettings
from engine import NotYourTurn

from .conftest import current_user, started_game


def ctx(channel: int, user: int, locale: str | None) -> Context:
    return Context(channel_id=channel, user_id=user, user_name=f"u{user}", guild_id=1,
                   locale=locale)


@pytest.mark.parametrize(("locale", "sentence"), [
    (None, "It is not your turn: it is {name}'s turn (R8)."),
    ("fr", "Ce n'est pas votre tour : c'est à {name} de jouer (R8)."),
    ("de", "Du bist nicht am Zug: {name} ist am Zug (R8)."),
])
async def test_an_engine_refusal_speaks_the_readers_language(
        service: GameService, locale: str | None, sentence: str) -> None:
    """R8: a player out of turn is refused in his client's language, whatever the game's."""
    await started_game(service, 21, 2, seed=3, settings=GameSettings(language="de"))
    user, state = await current_user(service, 21)
    info = await service.info(21)
    other = next(s.user_id for s in info.seats if s.user_id != user)
    with pytest.raises(NotYourTurn) as refused:
        await execute(service, ctx(21, other, locale), "end", {})
    assert refused.value.message == sentence.format(name=info.names[state.turn])


async def test_a_french_game_posts_the_engines_events_in_french(service: GameService) -> None:
    """R12: the end of a turn is posted in the game's language; /history answers its reader in
    his own."""
    await started_game(service, 22, 2, seed=3, settings=GameSettings(language="fr"))
    user, state = await current_user(service, 22)
    name = (await service.info(22)).names[state.turn]
    out = await execute(service, ctx(22, user, "en-US"), "end", {})
    assert out.public[0].text.startswith(f"{name} termine son tour et pioche ")
    english = await execute(service, ctx(22, user, None), "history", {})
    assert english.reply is not None and f"{name} ends the turn" in english.reply.text
    german = await execute(service, ctx(22, user, "de"), "history", {})
    assert german.reply is not None and f"{name} beendet den Zug" in german.reply.text
