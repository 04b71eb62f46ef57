"""Docstrings collected from modules, kept between builds with the digests of what was read.

Collecting (``jaxcheck_doctest_modules``) imports the modules in a worker. A
warm build takes the result from here instead, without starting a worker,
while the workers' fingerprint is the same (it is part of the key: Python,
every installed distribution, the environment, this package's worker code)
and every file and folder collecting read is unchanged: the module files
(an edited docstring), the files the docstrings were placed in, and the
package folders (a module added or removed). Entries sit beside the session
outcomes (``docstrings-<key>.json``), and are pruned and cleared with them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..atomic import replace_file
from ..worker.dependencies import MISSING
from .dependencies import file_digests
from .size import mark_used


def collection_key(
    fingerprint: str,
    modules: Sequence[str],
    ignore: Sequence[str],
    filterwarnings: Sequence[str] = (),
) -> str:
    """The key of one collection: the workers, and what was asked (the warning filters the
    imports ran under too: one may fail under them)."""
    payload = json.dumps([fingerprint, list(modules), sorted(ignore), list(filterwarnings)])
    return hashlib.sha256(payload.encode()).hexdigest()


def path_digests(files: Iterable[str], folders: Iterable[str]) -> dict[str, str]:
    """The content digest of each file, and of each folder the names it holds."""
    digests = file_digests(files)
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            digests[folder] = MISSING
            continue
        digests[folder] = "folder:" + hashlib.sha256("\0".join(names).encode()).hexdigest()
    return digests


class CollectionCache:
    """Collections of docstrings under ``directory``, one JSON file each."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / f"docstrings-{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The collection stored under ``key``, if what it read is unchanged; else None."""
        path = self._path(key)
        try:
            entry = json.loads(path.read_text("utf-8"))
            digests, collection = entry["digests"], entry["collection"]
            files = [p for p, d in digests.items() if not d.startswith("folder:")]
            folders = [p for p, d in digests.items() if d.startswith("folder:")]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # none, or not one of ours: collect again, and replace it
        if entry.get("key") != key or path_digests(files, folders) != digests:
            return None
        mark_used(path)
        return dict(collection)

    def put(self, key: str, collection: Mapping[str, Any], digests: Mapping[str, str]) -> None:
        """Store a collection with the digests of what it read; atomic."""
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            text = json.dumps({"key": key, "digests": dict(digests), "collection": collection})
            replace_file(self._path(key), text.encode("utf-8"))
