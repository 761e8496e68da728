"""Discord's limits on the texts the bot sends, and the one place that fits a text into them.

Both front ends print through these functions: the Discord adapter before every message it
sends or edits (``bot/discord/messages.py``), the terminal before every line it prints.
Discord counts a text's length in Unicode code points (its API measures with Python's
``len``), as these functions do.
"""

from __future__ import annotations

MESSAGE_LIMIT = 2000  # characters of a message's content
TEXT_DISPLAY_LIMIT = 4000  # characters of a message's text displays (Components V2), in all
DESCRIPTION_LIMIT = 100  # a command's, option's or choice's description, or a choice's name
NAME_LIMIT = 32  # a command's or option's name
ALT_TEXT_LIMIT = 1024  # an attachment's description (alt text)
CHOICES_LIMIT = 25  # choices of an option, options of a command
ELLIPSIS = "…"


def fit(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` as it is when it fits in ``limit`` characters; else its start, cut after the
    last whole word (at a line end or space that keeps at least half of the room) and ``…``.
    The result is at most ``limit`` characters long."""
    if len(text) <= limit:
        return text
    head = text[:limit - len(ELLIPSIS)]
    cut = max(head.rfind("\n"), head.rfind(" "))
    if not text[len(head)].isspace() and cut >= len(head) // 2:
        head = head[:cut]
    return head.rstrip() + ELLIPSIS


def chunks(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters (several messages, or printed
    lines), cut at line ends where possible, else at spaces, else anywhere; never an empty
    list, never a blank piece. Pieces cut at line ends only join with line ends into
    ``text``."""
    out: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                out.append(current)
                current = ""
            head = line[:limit]
            space = head.rfind(" ")
            if space >= limit // 2:
                head = head[:space + 1]
            out.append(head.rstrip() or head)
            line = line[len(head):]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            out.append(current)
            current = line
        else:
            current = candidate
    out.append(current)
    return [part if part.strip() else "\u200b" for part in out]
