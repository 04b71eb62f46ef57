"""The own line of a role or inline literal, for findings inside multi-line paragraphs.

Docutils and MyST give inline markup only the first line of its paragraph. The
markup itself is still in the source, so its own line is where it occurs there,
searched from the paragraph's first line. The file is read once per document,
and repeated markup in one paragraph is told apart by counting.
"""

from __future__ import annotations

import re
from typing import cast

from sphinx.environment import BuildEnvironment

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


_FILES = "jaxcheck_file_lines"  # temp_data: path -> lines (None: unreadable)
_SEEN = "jaxcheck_markup_seen"  # temp_data: (path, first line, content) -> times located


def file_lines(env: BuildEnvironment, path: str) -> list[str] | None:
    """The lines of a source file, read once per document being read; None if unreadable."""
    files = cast("dict[str, list[str] | None]", env.temp_data.setdefault(_FILES, {}))
    if path not in files:
        try:
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                files[path] = handle.read().splitlines()
        except OSError:
            files[path] = None
    return files[path]


def own_line(
    env: BuildEnvironment, path: str | None, first_line: int, raw: str, quoted: bool = True
) -> int:
    """The line where markup ``raw`` (``:role:`text```, ````text````) is written.

    ``first_line`` is the line the parser gave it (its paragraph's or
    directive's). ``quoted=False`` finds plain text, such as a target in a
    directive's option. Falls back to ``first_line`` when the text cannot be
    found in the file (generated text). Call once per piece of markup, in
    document order.
    """
    if not path or not first_line:
        return first_line
    content = markup_content(raw) if quoted else raw.strip()
    seen = cast("dict[tuple[str, int, str, bool], int]", env.temp_data.setdefault(_SEEN, {}))
    key = (path, first_line, content, quoted)
    nth = seen.get(key, 0)
    seen[key] = nth + 1
    lines = file_lines(env, path)
    found = line_of(lines, first_line, content, nth, quoted) if lines is not None else None
    return found or first_line
