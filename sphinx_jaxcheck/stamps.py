"""Stamps of files and folders, to tell later whether any of them changed.

A file's stamp is its modification and change times, size and inode: an edit,
a replacement, even a ``touch`` or a ``chmod`` changes it. A folder's stamp is
a digest of the names in it, so a file added, removed or renamed there changes
it (and nothing written inside a file does); ``__pycache__``, Python's own
cache of compiled modules, is left out. A path that does not exist has
the stamp None, so creating it later is a change too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping

# ["file", mtime_ns, ctime_ns, size, inode] or ["folder", digest of the names]: lists, as JSON reads them back.
Stamp = list[object] | None


def stamp(path: str) -> Stamp:
    """The stamp of ``path`` now (symbolic links followed)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    if os.path.isdir(path):
        names = names_in(path)
        digest = (
            "unreadable"
            if names is None
            else hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape"))
        )
        return ["folder", digest if isinstance(digest, str) else digest.hexdigest()]
    return ["file", found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino]


def names_in(folder: str) -> list[str] | None:
    """The names a folder's stamp covers, sorted (None: not a readable folder)."""
    try:
        return sorted(name for name in os.listdir(folder) if name != "__pycache__")
    except OSError:
        return None


def stamps(paths: Iterable[str]) -> dict[str, Stamp]:
    """The stamps of these paths, by path."""
    return {path: stamp(path) for path in paths}


def first_changed(recorded: Mapping[str, Stamp]) -> str | None:
    """A path whose stamp is no longer the recorded one, or None when none changed."""
    for path, then in recorded.items():
        if stamp(path) != then:
            return path
    return None


def changed_since(recorded: Mapping[str, Stamp], moment_ns: int) -> str | None:
    """A file whose stamp shows a change at or after ``moment_ns`` (a file system time), or None."""
    for path, then in recorded.items():
        if (
            then is not None
            and then[0] == "file"
            and max(int(str(then[1])), int(str(then[2]))) >= moment_ns
        ):
            return path
    return None
