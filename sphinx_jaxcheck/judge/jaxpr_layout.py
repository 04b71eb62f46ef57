"""An actual jaxpr laid out as the author wrote the expected one (``:compare: jaxpr``).

A jaxpr compares up to whitespace, so authors break a one-line jaxpr over
readable lines. When it drifts, both the diff and ``jaxcheck update`` should
show the actual text in that layout: the same line breaks and indentation
where the words still match, the actual's own breaks only in what is new.
Only whitespace between words changes, so the result matches the actual
text under the jaxpr rule by construction. Pure.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from .matching import normalize


def in_written_layout(expected: Sequence[str], actual: Sequence[str]) -> list[str]:
    """The words of ``actual`` with the line breaks and indentation of ``expected``."""
    want, got = _words(normalize(expected)), _words(normalize(actual))
    if not want or not got:
        return normalize(actual)
    # breaks[j]: the indentation that starts a new line before actual word j (None: a space).
    breaks: list[str | None] = [None] * len(got)
    matcher = difflib.SequenceMatcher(None, [w for w, _ in want], [w for w, _ in got], False)
    for kind, i1, i2, j1, j2 in matcher.get_opcodes():
        if kind == "equal" or (kind == "replace" and i2 - i1 == j2 - j1):
            for offset in range(j2 - j1):  # word for word: the written layout
                breaks[j1 + offset] = want[i1 + offset][1]
        elif kind == "delete":
            # A line that began with a word now gone begins with the next word.
            starts = [indent for _, indent in want[i1:i2] if indent is not None]
            if starts and j1 < len(got) and breaks[j1] is None:
                breaks[j1] = starts[0]
        else:  # new words (or a different number of them): the actual's own layout
            for j in range(j1, j2):
                breaks[j] = got[j][1]
            starts = [indent for _, indent in want[i1:i2] if indent is not None]
            if starts and breaks[j1] is None:
                breaks[j1] = starts[0]
    lines: list[str] = []
    for (word, _), indent in zip(got, breaks, strict=True):
        if indent is not None or not lines:
            lines.append((indent or "") + word)
        else:
            lines[-1] += " " + word
    return lines


def _words(lines: Sequence[str]) -> list[tuple[str, str | None]]:
    """Each word, with the indentation of its line if it starts one (the first always does)."""
    words: list[tuple[str, str | None]] = []
    for line in lines:
        indent = line[: len(line) - len(line.lstrip())]
        for number, word in enumerate(line.split()):
            words.append((word, indent if number == 0 else None))
    return words
