"""Colour on a terminal: when to use it, and diffs coloured as git colours them."""

from __future__ import annotations

import os
from typing import TextIO

RED, GREEN, CYAN, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"


def use_colour(stream: TextIO) -> bool:
    """Colour as other tools decide it: ``NO_COLOR``, then ``FORCE_COLOR``, then a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colour_diff(diff: str) -> str:
    """A unified diff with removed lines red, added green, hunk headers cyan."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("---", "+++")):
            out.append(BOLD + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("-"):
            out.append(RED + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("+"):
            out.append(GREEN + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("@@"):
            out.append(CYAN + line.rstrip("\n") + RESET + "\n")
        else:
            out.append(line)
    return "".join(out)
