"""Which language the bot speaks (docs/discord.md, "Languages"): the author of a command reads
his reply and refusals in his Discord client's language; the channel, the pings and the DMs read
the game's language (``/game settings language:``); an outbox row keeps the language of its
commit. English stays exactly as it was."""

from __future__ import annotations

import json
import random

import pytest

from bot.commands import Context, execute, run_line
from bot.service import HOUR, GameService, GameSettings, NotSeated, PermissionDenied
from bot.service.outbox import Deliverer, Delivery
from bot.service.texts import counted
from engine import MalformedAction
from tests.storage.postgres.backend import AnyStorage, execute_raw

from .conftest import Clock, current_user, random_move, started_game


def ctx(channel: int, user: int, locale: str | None) -> Context:
    return Context(channel_id=channel, user_id=user, user_name=f"u{user}", guild_id=1,
                   locale=locale)


async def row_body(storage: AnyStorage, row_id: int) -> dict[str, object]:
    async with storage.read() as q:
        row = await q.outbox_row(row_id)
    assert row is not None
    body: dict[str, object] = json.loads(row.body)
    return body


@pytest.mark.parametrize(("locale", "sentence"), [
    (None, "You are not playing in this game; only its players may do that."),
    ("en-US", "You are not playing in this game; only its players may do that."),
    ("fr", "Vous ne jouez pas dans cette partie ; seuls ses joueurs peuvent faire cela."),
    ("de", "Du spielst in dieser Partie nicht mit; nur ihre Mitspieler können das tun."),
    ("pt-BR", "You are not playing in this game; only its players may do that."),
])
async def test_a_refusal_speaks_the_readers_language(service: GameService, locale: str | None,
                                                     sentence: str) -> None:
    await started_game(service, 11, 2, seed=3)
    with pytest.raises(NotSeated) as refused:
        await execute(service, ctx(11, 999, locale), "hand", {})
    assert refused.value.message == sentence


async def test_a_french_reader_in_an_english_game(service: GameService,
                                                  storage: AnyStorage) -> None:
    """His reply and refusals are French; what the table reads stays English, and the outbox
    rows say so for the words the transport may add."""
    await started_game(service, 12, 2, seed=3)
    french = ctx(12, 122, "fr")  # seated, not the creator
    with pytest.raises(PermissionDenied, match="Seul le créateur de la partie ou un admin"):
        await execute(service, french, "pause", {})
    with pytest.raises(MalformedAction, match="doit valoir au plus 336"):
        await run_line(service, french, "/away 400")
    with pytest.raises(MalformedAction, match="'Z9' n'est pas une case : utilisez une lettre"):
        await run_line(service, french, "/populate Z9")
    with pytest.raises(MalformedAction, match="'C77' is outside the board: rows run from 1 to 16"):
        await run_line(service, ctx(12, 122, None), "/populate C77")

    out = await execute(service, french, "away", {"hours": 5.0})
    assert out.reply is not None
    assert out.reply.text == "C'est noté : absent pour 5 h. /retour y met fin plus tôt."
    assert out.public[0].text.startswith("Bob is away until <t:")
    assert out.reply_row is not None
    assert (await row_body(storage, out.reply_row))["lang"] == "fr"
    assert (await row_body(storage, out.outbox[0]))["lang"] == "en"

    english = await execute(service, ctx(12, 122, None), "back", {})
    assert english.reply is not None
    assert english.reply.text == "Welcome back: reminders are on again."
    assert english.public[0].text == "Bob is back."


async def test_a_french_game_posts_pings_and_reminds_in_french(service: GameService,
                                                               clock: Clock) -> None:
    start = await started_game(service, 13, 2, seed=3,
                               settings=GameSettings(language="fr", deadline_hours=48))
    assert start.public[0].text.startswith("La partie commence. Ordre des joueurs : ")
    assert len(start.pings) == 1 and "c'est votre tour (manche 1 sur 7)" in start.pings[0].text
    kinds = {d.kind: d.text for d in start.direct}
    assert kinds["your_turn"].startswith("C'est votre tour. Votre main : ")
    assert kinds["hand"].startswith("Votre main : ")
    assert "écus" in kinds["hand"] and "aventuriers en " in kinds["hand"]

    # an English-speaking reader is refused in English, whatever the game's language
    with pytest.raises(NotSeated, match="You are not playing in this game"):
        await execute(service, ctx(13, 999, "en-US"), "hand", {})

    moved = await random_move(service, 13, random.Random(4))
    if moved.pings:  # a new player's turn
        assert "c'est votre tour" in moved.pings[0].text or "votre choix" in moved.pings[0].text

    clock.now += 25 * HOUR  # past the reminder
    fired = [await service.fire_timer(t) for t in await service.due_timers()]
    reminders = [d for o in fired if o is not None for d in o.direct if d.kind == "reminder"]
    assert reminders, "no reminder fired"
    text = reminders[0].text
    assert text.startswith("Rappel : votre partie de Khronos dans <#13> attend votre ")
    assert "Votre main : " in text and "(Au plus un rappel toutes les 24 h" in text
    assert reminders[0].fallback is not None and "la partie vous attend (<t:" in (
        reminders[0].fallback)

    clock.now += 22 * HOUR  # the deadline's warning, then the deadline itself
    fired = [await service.fire_timer(t) for t in await service.due_timers()]
    warnings = [d for o in fired if o is not None for d in o.direct
                if d.kind == "deadline_warning"]
    assert warnings and warnings[0].text.startswith("Le délai de votre partie de Khronos")
    clock.now += 2 * HOUR
    fired = [await service.fire_timer(t) for t in await service.due_timers()]
    posts = [p.text for o in fired if o is not None for p in o.public]
    assert any(p.startswith("Le temps est écoulé pour ") for p in posts), posts


async def test_a_german_game_frames_its_moves_and_settings_in_german(
        service: GameService) -> None:
    await started_game(service, 14, 2, seed=3)
    changed = await service.update_settings(14, 141, language="de")
    assert changed.public[0].text == (
        "Ann stellt ein: Erinnerungen nach 24 h ohne Zug, keine Frist, Sprache: Deutsch, "
        "Tipps aus.")
    user, _ = await current_user(service, 14)
    status = await service.status(14)
    assert status.reply is not None and status.reply.text.startswith("Runde 1 von 7: ")
    paused = await service.pause(14, 141)
    assert paused.public[0].text == (
        "Ann pausiert die Partie: keine Züge, Erinnerungen oder Fristen bis /spiel fortsetzen.")
    with pytest.raises(Exception, match="The game is paused"):
        await execute(service, ctx(14, user, None), "end", {})
    resumed = await service.resume(14, 141)
    assert resumed.public[0].text.startswith("Ann setzt die Partie fort (pausiert <t:")


class Unused:
    """A transport that is never asked to send."""

    async def send(self, item: Delivery) -> str:
        raise AssertionError("not sent here")


async def test_an_outbox_row_keeps_the_language_of_its_commit(service: GameService,
                                                              storage: AnyStorage,
                                                              clock: Clock) -> None:
    """A row written while the game was French is delivered in French after the game turns
    German: its text and the transport's words (``lang``) were fixed at commit."""
    start = await started_game(service, 15, 2, seed=3, settings=GameSettings(language="fr"))
    await service.update_settings(15, 151, language="de")
    async with storage.read() as q:
        rows = [await q.outbox_row(r) for r in start.outbox]
    deliverer = Deliverer(storage, Unused(), clock=clock)
    items = [await deliverer.message(r) for r in rows if r is not None]
    assert items and all(i.lang == "fr" for i in items)
    assert items[0].text.startswith("La partie commence.")
    item = next(i for i in items if i.table is not None)
    assert item.table is not None and item.image is not None
    assert item.table.header.startswith("**Manche 1 sur 7** · au tour de <@")
    assert item.image.lang == "fr" and item.table.pending.startswith("En attente de ")
    later = await service.status(15)
    assert later.reply is not None and later.reply.text.startswith("Runde 1 von 7")


async def test_a_private_answer_draws_its_picture_in_the_readers_language(
        service: GameService) -> None:
    """/hand answers only its asker: text and picture in his language, whatever the game's;
    the hand sent by DM stays in the game's."""
    start = await started_game(service, 16, 2, seed=3, settings=GameSettings(language="de"))
    user, _ = await current_user(service, 16)
    out = await execute(service, ctx(16, user, "fr"), "hand", {})
    assert out.reply is not None and out.reply.text.startswith("Votre main : ")
    assert out.reply.image is not None and out.reply.image.lang == "fr"
    assert out.reply.image.alt.startswith("Votre main : ")
    dm = next(d for d in start.direct if d.user_id == user and d.kind == "your_turn")
    assert dm.text.startswith("Du bist am Zug. Deine Hand: ")
    assert dm.image is not None and dm.image.lang == "de"


async def test_a_damaged_french_game_is_told_so_in_french(service: GameService,
                                                          storage: AnyStorage,
                                                          clock: Clock) -> None:
    """A damaged state leaves the settings readable: the channel hears of the damage in the
    game's language; with the settings damaged too, in English."""
    out = await started_game(service, 17, 2, seed=3, settings=GameSettings(language="fr"))
    assert out.game is not None
    await execute_raw(storage, "UPDATE games SET state = 'garbage' WHERE id = ?",
                      out.game.game_id)
    assert await service.game_language(out.game.game_id) == "fr"
    clock.now += 25 * HOUR
    said = [o for o in [await service.fire_timer(t) for t in await service.due_timers()] if o]
    assert len(said) == 1
    assert said[0].public[0].text.startswith("Les données enregistrées de cette partie")
    await execute_raw(storage, "UPDATE games SET settings = 'garbage' WHERE id = ?",
                      out.game.game_id)
    assert await service.game_language(out.game.game_id) == "en"


@pytest.mark.parametrize(("lang", "count", "sentence"), [
    (None, 0, "Might: 0 cards left"),
    (None, 1, "Might: 1 card left"),
    ("fr", 0, "Might : encore 0 carte"),
    ("fr", 2, "Might : encore 2 cartes"),
    ("de", 0, "Might: noch 0 Karten"),
    ("de", 1, "Might: noch 1 Karte"),
])
def test_a_counted_sentence_follows_its_languages_plural(lang: str | None, count: int,
                                                         sentence: str) -> None:
    """R14's allowance line: French counts 0 as singular, English and German as plural."""
    assert counted("hand.allowance", count, lang, age="Might") == sentence
