from tests.fakediscord.fixtures import fake_discord  # noqa: F401
