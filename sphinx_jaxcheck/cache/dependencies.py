"""Whether what a session depended on still holds: every file as it was when the session
first used it, every probe of a path answered as it was, every import found where it was
found.

The session's outcome may be reused (from the cache, or kept by an
incremental build) only when :func:`changes` finds nothing and nothing the
session used was untracked (:attr:`Dependencies.untracked`), unless the
configuration assumes that what it learned untracked still holds
(``jaxcheck_cache_assume``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator

from ..worker.dependencies import (
    LINK,
    MISSING,
    NAMESPACE,
    Dependencies,
    Finders,
    content_digest,
    link_digest,
    observe,
    per_settled_version,
    probe_of,
)


def changes(used: Dependencies, finders: Finders | None = None) -> Iterator[str]:
    """What is no longer as the session saw it, in words, one change at a time.

    ``finders`` may be shared by the checks of one pass over many sessions
    (each folder is then listed once); by default, fresh ones.
    """
    for path, digest in used.files.items():
        now = link_digest(path) if digest.startswith(LINK) else current_digest(path)
        if now != digest:
            yield _changed_file(path, digest, now)
    for key, learned in used.probes.items():
        probe, path = probe_of(key)
        now = observe(probe, path)
        if now != learned:
            yield _changed_probe(probe, path, learned, now)
    finders = finders or Finders(used.suffixes)
    for lookup in used.lookups:
        found, _ = finders.find(lookup.name, lookup.search)
        if found != lookup.found:
            yield (
                f"`import {lookup.name}` would now find {_found(found)} instead of "
                f"{_found(lookup.found)}"
            )


def reusable(used: Dependencies, finders: Finders | None = None, *, assume: bool = False) -> bool:
    """Whether everything the session depended on is tracked and unchanged; with ``assume``,
    whether what is tracked is unchanged (what is not is assumed to be)."""
    return (assume or not used.untracked) and next(changes(used, finders), None) is None


def file_digests(paths: Iterable[str]) -> dict[str, str]:
    """The content digest of each file now (:data:`MISSING` when it cannot be read)."""
    return {path: current_digest(path) for path in paths}


@per_settled_version(maxsize=4096)  # many sessions import the same helpers
def current_digest(path: str) -> str:
    """The content digest of a file now; read again only when its stat changed, or when it
    changed too recently for its stat to tell (see :func:`per_settled_version`)."""
    return content_digest(path)


def tree_digest(path: str) -> str:
    """The digest of a file, or of every file under a folder (their names and contents;
    ``__pycache__`` left out): what a package's code is, whatever its version says."""
    if not os.path.isdir(path):
        return current_digest(path)
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(path):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            file = os.path.join(folder, name)
            digest.update(f"{os.path.relpath(file, path)}\0{current_digest(file)}\0".encode())
    return digest.hexdigest()


def _changed_file(path: str, was: str, now: str) -> str:
    if was.startswith(LINK):
        if now == MISSING:
            return f"{path} no longer links to {was.removeprefix(LINK)}"
        return f"{path} now links to {now.removeprefix(LINK)}"
    if was == MISSING:
        return f"{path} now exists"
    return f"{path} is gone" if now == MISSING else f"{path} changed"


def _changed_probe(probe: str, path: str, was: str, now: str) -> str:
    if probe == "listing":
        return f"the entries of the folder {path} changed"
    if MISSING in (was, now):
        return f"{path} is gone" if now == MISSING else f"{path} now exists"
    what = {"size": "size", "mtime": "modification time", "ctime": "change time"}
    if probe in what:
        return f"the {what[probe]} of {path} changed"
    if probe == "access":
        return f"what may be done with {path} changed"
    if probe == "realpath":
        return f"{path} now names {now}"
    if probe == "identity":
        return f"{path} is now another file"
    if probe == "mount":
        return f"{path} is now {now}"
    return f"{path} changed"  # its kind, or its stat


def _found(found: str | None) -> str:
    if found is None:
        return "nothing"
    if found.startswith(NAMESPACE):
        return "a namespace package"
    return found
