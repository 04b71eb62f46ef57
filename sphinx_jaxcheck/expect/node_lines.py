"""Where a document node's text stands in its source file, found from the text itself.

A node (a code block, a ``doctest_block``, a ``testcode`` made by any
directive) knows the line its directive starts at, not where its text is.
:func:`locate` finds the text's lines in the file, all of them, in order and
contiguous, as docutils reads them (tabs expanded, trailing blanks dropped,
indentation removed): so the lines checked are the lines written, and a node
whose text is not written anywhere (a directive made it) is told apart instead
of being read from the wrong lines. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence


def node_lines(text: str) -> tuple[str, ...]:
    """A node's text as lines, without the blank lines around it."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return tuple(lines)


def locate(lines: Sequence[str], wanted: Sequence[str], start: int = 0) -> int | None:
    """The 0-based index from which ``lines`` (a file's) hold ``wanted``, searching from
    ``start``; None when they hold it nowhere there.

    Both sides are compared dedented, so a node's text matches however deep
    the file indents it; blank lines match blank lines.
    """
    if not wanted:
        return None
    expected = _dedented([line.rstrip() for line in wanted])
    first = expected[0]
    read = [line.expandtabs(8).rstrip() for line in lines]
    for index in range(max(start, 0), len(read) - len(expected) + 1):
        if read[index].strip() != first.strip():
            continue
        if _dedented(read[index : index + len(expected)]) == expected:
            return index
    return None


def _dedented(lines: Sequence[str]) -> list[str]:
    indent = min((len(line) - len(line.lstrip()) for line in lines if line), default=0)
    return [line[indent:] for line in lines]
