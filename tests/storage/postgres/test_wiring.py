"""The bot follows the settings: with ``KHRONOS_DATABASE_URL`` the bot (``setup_hook``) and the
terminal game keep their games in PostgreSQL, ``python -m bot`` gives the bot this process's
shards, and a database that cannot be opened at start is one sentence with an exit status."""

from __future__ import annotations

import asyncio
import io
import socket
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot.discord.app import create_bot
from bot.discord.start import run_discord, startup_failure
from bot.settings import Settings
from bot.storage import StorageUnavailable, open_storage
from bot.storage.postgres import PgStorage
from bot.terminal.app import run_local
from tests.fakediscord.fake import FakeDiscord
from tests.fakediscord.fixtures import fake_discord  # noqa: F401
from tests.storage.postgres.backend import PG_URL, needs_pg, pg_connect, pg_schema


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def in_schema(url: str, schema: str) -> str:
    """``url`` with its connections' search_path set to ``schema`` (asyncpg passes unknown
    query parameters as server settings): the bot's own storage then uses that schema."""
    return f"{url}{'&' if '?' in url else '?'}search_path={schema}"


async def test_an_unreachable_database_is_one_sentence_to_retry(tmp_path: Path) -> None:
    settings = Settings(KHRONOS_DATA_DIR=tmp_path, KHRONOS_DATABASE_URL=(
        f"postgresql://bot:s3cret@127.0.0.1:{closed_port()}/khronos"))
    with pytest.raises(StorageUnavailable) as caught:
        await open_storage(settings)
    sentence = str(caught.value)
    assert sentence.startswith(
        "Cannot reach the PostgreSQL database at postgresql://bot:***@127.0.0.1:")
    assert "s3cret" not in sentence and "\n" not in sentence
    assert startup_failure(caught.value) == (1, sentence)


@needs_pg
async def test_a_database_that_does_not_exist_is_a_setting_to_fix(tmp_path: Path) -> None:
    assert PG_URL is not None
    url = urlunsplit(urlsplit(PG_URL)._replace(path="/no_such_khronos_db"))
    with pytest.raises(StorageUnavailable) as caught:
        await open_storage(Settings(KHRONOS_DATA_DIR=tmp_path, KHRONOS_DATABASE_URL=url))
    assert caught.value.status == 2
    assert "fix KHRONOS_DATABASE_URL" in str(caught.value)


def test_python_m_bot_gives_the_bot_its_shards_and_says_why_the_database_stops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    made: dict[str, object] = {}
    refusal = StorageUnavailable("Cannot reach the PostgreSQL database at somewhere.", 1)

    class Bot:
        def run(self, token: str, **kwargs: object) -> None:
            raise refusal

    def fake_create_bot(settings: Settings, **options: object) -> Bot:
        made.update(options)
        return Bot()

    monkeypatch.setattr("bot.discord.start.create_bot", fake_create_bot)
    settings = Settings(DISCORD_TOKEN="t", KHRONOS_DATA_DIR=tmp_path,
                        KHRONOS_DATABASE_URL="postgresql://bot:pw@db:5432/khronos",
                        KHRONOS_SHARD_COUNT=2, KHRONOS_SHARD_IDS="1")
    assert run_discord(settings) == 1
    assert made == {"handle_sigterm": True, "shard_count": 2, "shard_ids": [1]}
    out, err = capsys.readouterr()
    assert "games in postgresql://bot:***@db:5432/khronos" in out and ":pw@" not in out
    assert "shards 1 of 2" in out
    assert err == f"{refusal}\n"


@needs_pg
async def test_the_bot_keeps_its_games_in_postgresql_when_the_url_is_set(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:  # noqa: F811
    assert PG_URL is not None
    fake = fake_discord
    guild = fake.add_guild()
    ch = fake.add_channel(guild, "khronos")
    alice = fake.add_user("alice")
    async with pg_schema() as schema:
        settings = Settings(DISCORD_TOKEN=fake.token, KHRONOS_DATA_DIR=tmp_path,
                            KHRONOS_TEST_GUILD_ID=guild.id,
                            KHRONOS_DATABASE_URL=in_schema(PG_URL, schema))
        async with fake.running(create_bot(settings)) as bot:
            assert isinstance(bot.service.storage, PgStorage)
            ia = await fake.slash(alice, ch, "create", options={"players": 2})
            await ia.wait_ack()
            await ia.wait_message(timeout=10)
        assert not (tmp_path / "khronos.sqlite3").exists()
        async with PgStorage(PG_URL, schema=schema) as s, s.read() as q:
            game = await q.game_for_channel(ch.id)
            assert game is not None and game.status == "lobby"
            assert [seat.user_id for seat in await q.seats(game.id)] == [alice.id]


@needs_pg
def test_the_terminal_game_keeps_its_game_in_postgresql_when_the_url_is_set(
        tmp_path: Path) -> None:
    assert PG_URL is not None

    schema = f"t_{uuid.uuid4().hex[:16]}"

    async def sql(statement: str) -> None:
        conn = await pg_connect()
        try:
            await conn.execute(statement)
        finally:
            await conn.close()

    async def stored(schema: str) -> tuple[str, int]:
        assert PG_URL is not None
        async with PgStorage(PG_URL, schema=schema) as s, s.read() as q:
            (game,) = await q.games()
            return game.status, len(await q.moves(game.id))

    asyncio.run(sql(f"CREATE SCHEMA {schema}"))
    try:
        out = io.StringIO()
        lines = iter(["/end"])
        status = run_local(data_dir=tmp_path / "data", images_dir=tmp_path / "img", players=2,
                           seed=5, out=out, lines=lambda prompt: next(lines, None),
                           database_url=in_schema(PG_URL, schema))
        assert status == 0, out.getvalue()
        assert "Games in: postgresql://" in out.getvalue()
        assert asyncio.run(stored(schema)) == ("active", 1)
    finally:
        asyncio.run(sql(f"DROP SCHEMA {schema} CASCADE"))
