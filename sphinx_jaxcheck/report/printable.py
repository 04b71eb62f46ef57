"""Text from blocks made safe to print: no terminal escapes, nothing XML cannot hold."""

from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls (ESC starts ANSI and OSC
# sequences, which retitle or recolour a terminal, or hide text), lone
# surrogates and the two non-characters XML 1.0 forbids.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def printable(text: str) -> str:
    """``text`` with every control character shown as its escape, e.g. ``\\x1b``.

    Carriage returns too: a lone one would let later text overwrite a line.
    """
    return _UNPRINTABLE.sub(
        lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text
    )
