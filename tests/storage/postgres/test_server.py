"""The PostgreSQL test server: in CI it must be there and answer, else every PostgreSQL case
would skip (or fail one by one) without saying why."""

from __future__ import annotations

import os

import pytest

from tests.storage.postgres.backend import PG_URL, pg_connect


def test_ci_gives_a_postgresql_server() -> None:
    if not os.environ.get("KHRONOS_CI"):
        pytest.skip("not in CI (.ci/run sets KHRONOS_CI and starts the server)")
    assert PG_URL, "KHRONOS_TEST_DATABASE_URL must be set in CI (.ci/run starts the server)"


async def test_the_test_server_answers() -> None:
    if PG_URL is None:
        pytest.skip("KHRONOS_TEST_DATABASE_URL is not set")
    conn = await pg_connect()  # fails the test, with the reason, if the server does not answer
    try:
        assert await conn.fetchval("SELECT 1") == 1
        assert int(await conn.fetchval("SHOW server_version_num")) >= 120000
    finally:
        await conn.close()
