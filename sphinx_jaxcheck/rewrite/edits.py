"""Rewrite lines of a source file safely: every other byte stays as it was.

Pure line surgery plus one careful write: line endings (LF, CRLF, CR, mixed),
the encoding, a byte-order mark and the presence of a final newline are kept;
a file whose bytes changed since they were read is never written; the write is
atomic (a temporary file in the same folder, fsync, rename), so a crash leaves
either the old or the new file.
"""

from __future__ import annotations

import collections
import itertools
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..atomic import replace_file
from ..errors import JaxcheckError
from .digests import digest as digest  # also found here, as before
from .digests import file_digest as file_digest

_LINE = re.compile(r"([^\r\n]*)(\r\n|\n|\r|$)")
BOM = "\ufeff"


class FileChangedError(JaxcheckError, Exception):
    """The file changed since it was read; it was left alone."""


@dataclass(frozen=True)
class Edit:
    """Replace lines ``start:stop`` (0-based) by ``lines`` (text without endings)."""

    start: int
    stop: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class SourceText:
    """A decoded source file, line by line, with each line's own ending."""

    lines: tuple[str, ...]
    endings: tuple[str, ...]
    bom: bool = False
    encoding: str = "utf-8"

    @property
    def usual_ending(self) -> str:
        """The most common line ending (LF for a file without any)."""
        found = collections.Counter(e for e in self.endings if e)
        return found.most_common(1)[0][0] if found else "\n"


def parse_source(data: bytes, encoding: str = "utf-8") -> SourceText:
    """Split file bytes into lines, keeping each line's ending."""
    text = data.decode(encoding)
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    lines, endings = [], []
    for match in _LINE.finditer(text):
        if match.start() == len(text) and not match.group(0):
            break
        lines.append(match.group(1))
        endings.append(match.group(2))
    return SourceText(tuple(lines), tuple(endings), bom, encoding)


def render_source(source: SourceText) -> bytes:
    """The inverse of :func:`parse_source`."""
    text = "".join(line + ending for line, ending in zip(source.lines, source.endings, strict=True))
    return ((BOM if source.bom else "") + text).encode(source.encoding)


def apply_edits(source: SourceText, edits: Sequence[Edit]) -> SourceText:
    """Apply non-overlapping edits; untouched lines keep their bytes."""
    _check_overlaps(edits)
    lines, endings = list(source.lines), list(source.endings)
    usual = source.usual_ending
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if not 0 <= edit.start <= edit.stop <= len(lines):
            raise ValueError(f"edit {edit.start}:{edit.stop} is outside the file")
        at_end = edit.stop == len(lines)
        final = endings[-1] if lines else "\n"  # "" when the file lacks a last newline
        old = endings[edit.start : edit.stop]
        new = [old[i] if i < len(old) - 1 else usual for i in range(len(edit.lines))]
        if new and old:
            new[-1] = old[-1]
        lines[edit.start : edit.stop] = edit.lines
        endings[edit.start : edit.stop] = new
        if at_end and lines:
            # The file keeps (or keeps lacking) its last newline.
            if edit.start > 0 and not old:
                endings[edit.start - 1] = endings[edit.start - 1] or usual
            endings[-1] = final
    _keep_lines_apart(lines, endings)
    return SourceText(tuple(lines), tuple(endings), source.bom, source.encoding)


def _keep_lines_apart(lines: list[str], endings: list[str]) -> None:
    """A bare CR followed by an empty LF line would read as one CRLF: the two lines would merge.

    That happens when an edit brings them together (a deleted line between them,
    or a new empty line); the empty line then ends with CR like the line before it.
    """
    for at in range(1, len(lines)):
        if endings[at - 1] == "\r" and not lines[at] and endings[at] == "\n":
            endings[at] = "\r"


def _check_overlaps(edits: Sequence[Edit]) -> None:
    ordered = sorted(edits, key=lambda e: (e.start, e.stop))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.stop:
            raise ValueError(
                f"edits {before.start}:{before.stop} and {after.start}:{after.stop} overlap"
            )


def write_atomically(path: str | os.PathLike[str], data: bytes, expected_digest: str) -> None:
    """Replace the file with ``data`` unless its bytes no longer hash to ``expected_digest``.

    The new text is written and flushed to disk first; only then is the file
    read and hashed one last time, and renamed over at once. An editor's save
    that lands between that last read and the rename (no slow step in between,
    but not nothing) is lost: no lock holds editors off.
    """
    target = os.fspath(path)

    def unchanged() -> None:
        with open(target, "rb") as handle:
            current = handle.read()
        if digest(current) != expected_digest:
            raise FileChangedError(
                f"{target} changed since jaxcheck read it; nothing was written. "
                "Run the update again to rewrite it from its current text."
            )

    replace_file(target, data, mode=os.stat(target).st_mode & 0o7777, before_rename=unchanged)
