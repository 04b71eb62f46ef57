"""Find the line of an inline role or literal inside a multi-line paragraph.

Parsers give inline markup only its paragraph's first line. The markup itself
is still in the source, so its own line is where it occurs there, searched
from the paragraph's first line. Pure: text in, line out.
"""

from __future__ import annotations

import re

# ``:role:`` (reStructuredText, and MyST's rawtext) or ``{role}`` (MyST source) before the text.
_ROLE_PREFIX = re.compile(r"^(?::[\w.+-]+(?::[\w.+-]+)*:|\{[\w.+:-]+\})")


def markup_content(raw: str) -> str:
    """The text between the backticks of ``:role:`text```, ````text````, or plain ``text``."""
    content = _ROLE_PREFIX.sub("", raw.strip(), count=1)
    run = len(content) - len(content.lstrip("`"))
    if run and content.endswith("`" * run):
        content = content[run : len(content) - run]
    return content.strip()


def line_of(
    lines: list[str], first_line: int, content: str, nth: int = 0, quoted: bool = True
) -> int | None:
    """The 1-based line where the ``nth`` ``content`` starts, from ``first_line`` on.

    ``quoted``: only where backticks enclose it, as in inline markup.
    Whitespace inside ``content`` may be any run of spaces and line breaks (with
    indentation), as a paragraph wraps it. None when it is not found.
    """
    words = content.split()
    if not words or first_line < 1:
        return None
    quote = "`" if quoted else ""
    pattern = re.compile(quote + r"\s+".join(re.escape(word) for word in words) + quote)
    text = "\n".join(lines[first_line - 1 :])
    for count, match in enumerate(pattern.finditer(text)):
        if count == nth:
            return first_line + text.count("\n", 0, match.start())
    return None
