"""Loaded at start-up by a ``python -m bot`` that the tests run (``PYTHONPATH`` names this
folder): it points discord.py at the fake Discord the test process runs, named by
``KHRONOS_FAKE_DISCORD`` (JSON: ``api_base``, ``gateway_url``, ``cdn_base``), and changes
nothing else. Without that variable it does nothing."""

from __future__ import annotations

import json
import os

_FAKE = os.environ.get("KHRONOS_FAKE_DISCORD")
if _FAKE:
    import discord.asset
    import discord.gateway
    import discord.http
    import yarl

    _where = json.loads(_FAKE)
    discord.http.Route.BASE = _where["api_base"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(_where["gateway_url"])
    discord.asset.Asset.BASE = _where["cdn_base"]

# benchmarks: the service's clock runs ahead of the wall clock by the number of seconds
# written in this file (an outage simulated without waiting for it)
_SHIFT = os.environ.get("KHRONOS_CLOCK_SHIFT_FILE")
if _SHIFT:
    import time
    from pathlib import Path

    from bot.service import core

    def _shifted(path: Path = Path(_SHIFT)) -> float:
        try:
            return time.time() + float(path.read_text() or 0)
        except (OSError, ValueError):
            return time.time()

    assert core.ServiceCore.__init__.__kwdefaults__ is not None
    core.ServiceCore.__init__.__kwdefaults__["clock"] = _shifted
