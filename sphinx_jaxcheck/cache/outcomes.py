"""Stored session outcomes, one checked JSON file each, with what each session depended on.

Entries are found by the key of :mod:`sphinx_jaxcheck.cache.key`. Sessions
with any failure are not stored.

A session may also use the project's own modules (a ``helper.py`` beside its
page, a module in an archive on ``PYTHONPATH``, a package installed in
editable mode, a file loaded by path): the worker records them as the session
first uses them (:mod:`sphinx_jaxcheck.worker.recorder`), each entry keeps
that record, and an entry whose dependencies no longer hold
(:mod:`.dependencies`) is a miss. The key cannot hold them: what a session
uses is known only once it ran.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..atomic import replace_file
from ..errors import JaxcheckError
from ..model import Outcome
from ..worker.dependencies import Dependencies, dependencies_from_wire, dependencies_to_wire
from ..worker.protocol import outcome_from_wire, outcome_to_wire
from .dependencies import reusable
from .size import mark_used


@dataclass(frozen=True)
class CachedSession:
    """A stored session: its outcomes, and what it depended on besides its code."""

    outcomes: list[Outcome]
    used: Dependencies


class BadEntryError(JaxcheckError, Exception):
    """A stored entry that is not what :meth:`OutcomeCache.put` writes."""


def _entry_digest(key: str, outcomes: object, used: object) -> str:
    return hashlib.sha256(json.dumps([key, outcomes, used], sort_keys=True).encode()).hexdigest()


def _read_entry(key: str, text: str) -> CachedSession:
    """An entry, checked: its digest, its shape, the type of every text."""
    try:
        data = json.loads(text)
    except ValueError:
        raise BadEntryError("not JSON") from None
    if not isinstance(data, dict) or set(data) != {"key", "digest", "outcomes", "used"}:
        raise BadEntryError("not an entry of this cache")
    stored = data["outcomes"]
    if data["key"] != key or data["digest"] != _entry_digest(key, stored, data["used"]):
        raise BadEntryError(
            "its content does not match its checksum (edited, or written by something else)"
        )
    try:
        used = dependencies_from_wire(data["used"])
    except (IndexError, TypeError, ValueError) as error:
        raise BadEntryError(f"what its session used does not parse ({error})") from None
    if not isinstance(stored, list) or not all(isinstance(item, dict) for item in stored):
        raise BadEntryError("its outcomes are not a list of objects")
    try:
        outcomes = [outcome_from_wire(item) for item in stored]
    except (KeyError, TypeError, ValueError) as error:
        raise BadEntryError(
            f"an outcome does not parse ({type(error).__name__}: {error})"
        ) from None
    for item, outcome in zip(stored, outcomes, strict=True):
        texts = [
            outcome.stdout,
            outcome.message,
            *outcome.examples,
            *(text for _, text in outcome.inline),
        ]
        if json.loads(json.dumps(outcome_to_wire(outcome))) != item or not all(
            isinstance(t, str) for t in texts
        ):
            raise BadEntryError("an outcome has fields of the wrong shape")
        if outcome.failure is not None:
            raise BadEntryError("it holds a failure, which is never stored")
    return CachedSession(outcomes, used)


class OutcomeCache:
    """Outcomes of whole sessions, one JSON file each, under ``directory``.

    Entries are checked on every read; one that fails the check is deleted and
    listed in :attr:`discarded` (path, reason), and its session runs again.
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.discarded: list[tuple[str, str]] = []

    def has_entries(self) -> bool:
        """Whether any outcome is stored (the folder itself may exist empty)."""
        try:
            return any(self.directory.glob("*.json"))
        except OSError:
            return False

    def get(self, key: str, count: int | None = None) -> CachedSession | None:
        """The stored session (``count`` outcomes, if given), or None.

        None on a miss, a discarded entry, or an entry whose dependencies no
        longer hold (the session must run again; its new result replaces it).
        """
        path = self.directory / f"{key}.json"
        text = self._read(path)
        entry = None if text is None else self._check(path, key, text, count)
        if text is None or entry is None:
            return None
        mark_used(path)  # pruning removes the least recently used entries first
        return entry

    def _read(self, path: Path) -> str | None:
        try:
            return path.read_text("utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as error:
            self._discard(path, f"unreadable: {error}")
            return None

    def _check(self, path: Path, key: str, text: str, count: int | None) -> CachedSession | None:
        try:
            entry = _read_entry(key, text)
        except BadEntryError as bad:
            self._discard(path, str(bad))
            return None
        if count is not None and len(entry.outcomes) != count:
            self._discard(
                path, f"{len(entry.outcomes)} outcome(s) for a session of {count} block(s)"
            )
            return None
        if not reusable(entry.used):
            return None
        return entry

    def _discard(self, path: Path, why: str) -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        self.discarded.append((str(path), why))

    def put(self, key: str, outcomes: Sequence[Outcome], used: Dependencies | None = None) -> None:
        """Store outcomes of a session that ran without failure, and what it depended on;
        atomic. Nothing is stored when the session used something untracked."""
        used = used or Dependencies()
        if any(o.failure is not None for o in outcomes) or used.untracked:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# created by sphinx-jaxcheck\n*\n", "utf-8")
        wire = [outcome_to_wire(o) for o in outcomes]
        depends = dependencies_to_wire(used)
        text = json.dumps(
            {
                "key": key,
                "digest": _entry_digest(key, wire, depends),
                "outcomes": wire,
                "used": depends,
            }
        )
        replace_file(self.directory / f"{key}.json", text.encode("utf-8"))
