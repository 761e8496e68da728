"""Every command as Discord receives it, in every language, within Discord's rules for
application commands: names of 1 to 32 characters of Discord's pattern, in lower case;
descriptions of 1 to 100 characters; at most 25 options and 25 choices; choice names of 1 to
100 characters and string values of at most 100; required options first; names unique at
each level in each language; at most 4,000 characters of names, descriptions and values per
command and language. One character too many anywhere and Discord refuses the whole sync."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.discord.test_slash import make_bot, synced
from tests.fakediscord.fake import FakeDiscord

# Discord's pattern for the names of chat-input commands and options: letters and digits of
# any script, - _ and ' (and Devanagari and Thai marks, which \w covers but for some), 1-32
NAME = re.compile(r"^[-_'\w]{1,32}$")
LOCALES = ("en", "fr", "de")


def localized(item: dict[str, Any], field: str, locale: str) -> str:
    if locale == "en":
        return str(item[field])
    return str((item.get(f"{field}_localizations") or {}).get(locale, item[field]))


def problems(item: dict[str, Any], where: str, locale: str) -> Iterator[str]:
    """What breaks Discord's rules in one command, subcommand or option, in ``locale``."""
    name = localized(item, "name", locale)
    if not NAME.match(name) or name != name.lower():
        yield f"{where}: name {name!r}"
    description = localized(item, "description", locale)
    if not 1 <= len(description) <= 100:
        yield f"{where}: description of {len(description)} characters"
    options = item.get("options") or []
    if len(options) > 25:
        yield f"{where}: {len(options)} options"
    names = [localized(o, "name", locale) for o in options]
    if len(names) != len(set(names)):
        yield f"{where}: two options share a name in {locale}"
    required = [bool(o.get("required")) for o in options]
    if required != sorted(required, reverse=True):
        yield f"{where}: an optional option before a required one"
    choices = [c for o in options for c in o.get("choices") or []]
    for o in options:
        if len(o.get("choices") or []) > 25:
            yield f"{where} {o['name']}: more than 25 choices"
    for c in choices:
        label = localized(c, "name", locale)
        if not 1 <= len(label) <= 100:
            yield f"{where}: choice name {label!r}"
        if isinstance(c["value"], str) and not 1 <= len(c["value"]) <= 100:
            yield f"{where}: choice value {c['value']!r}"
    for o in options:
        yield from problems(o, f"{where} {o['name']}", locale)


def characters(item: dict[str, Any], locale: str) -> int:
    """The names, descriptions and choice names and values of a command, in ``locale``: what
    Discord sums against its 4,000."""
    total = len(localized(item, "name", locale)) + len(localized(item, "description", locale))
    for c in item.get("choices") or []:
        total += len(localized(c, "name", locale)) + len(str(c["value"]))
    return total + sum(characters(o, locale) for o in item.get("options") or [])


def test_the_check_finds_what_discord_refuses() -> None:
    good = {"name": "build", "description": "Build", "options": [
        {"name": "age", "description": "The age", "required": True,
         "choices": [{"name": "Might", "value": "might"}]}]}
    assert list(problems(good, "/build", "en")) == []
    bad = {"name": "Build it", "description": "x" * 101,
           "description_localizations": {"fr": ""}, "options": [
               {"name": "a", "description": "A"}, {"name": "b", "description": "B",
                                                   "required": True}]}
    assert len(list(problems(bad, "/bad", "en"))) == 3
    assert any("description of 0" in p for p in problems(bad, "/bad", "fr"))


async def test_every_command_in_every_language_is_within_discords_limits(
        fake_discord: FakeDiscord, tmp_path: Path) -> None:
    fake = fake_discord
    guild = fake.add_guild()
    bot, storage = await make_bot(fake, tmp_path, guild)
    try:
        async with fake.running(bot):
            commands = synced(fake, guild)
    finally:
        await storage.close()
    assert len(commands) > 20
    found = [p for locale in LOCALES for name, data in commands.items()
             for p in problems(data, f"/{name} ({locale})", locale)]
    assert found == []
    for locale in LOCALES:
        names = [localized(data, "name", locale) for data in commands.values()]
        assert len(names) == len(set(names)), f"two commands share a name in {locale}"
        assert max(characters(data, locale) for data in commands.values()) <= 4000
    assert len(commands) <= 100  # global and guild chat-input commands each


def test_no_description_is_within_ten_characters_of_the_limit() -> None:
    """A margin for translators: a description written at 100 characters fails at the first
    word changed; none is longer than 90."""
    from bot import i18n
    from bot.discord.slash import english_strings

    for locale in LOCALES:
        words = english_strings() if locale == "en" else i18n.catalogue(locale)
        long = {k: len(v) for k, v in words.items()
                if k.startswith(("commands.", "groups.")) and len(v) > 90}
        assert long == {}, locale
