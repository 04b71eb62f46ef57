"""The own line of a role or inline literal, for findings inside multi-line paragraphs.

Docutils and MyST give inline markup the first line of its paragraph; the
markup is found in the source file from there (see :mod:`sphinx_jaxcheck.locate`).
The file is read once per document, and repeated markup in one paragraph is
told apart by counting.
"""

from __future__ import annotations

from typing import cast

from sphinx.environment import BuildEnvironment

from ..locate import line_of, markup_content

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
