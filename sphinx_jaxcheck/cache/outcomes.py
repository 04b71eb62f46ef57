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

A session that learned something the worker could not record (a child
process, a database) is stored only by assumption (``jaxcheck_cache_assume``):
its entry keeps those reasons, with the item that ran when each was heard, and
is reused only while that assumption is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
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
    """A stored session: its outcomes, and what it depended on besides its code; for one
    stored by assumption, where each untracked reason (``used.untracked``) was heard: the
    number of the item that ran then, or None (before the first)."""

    outcomes: list[Outcome]
    used: Dependencies
    untracked_at: Mapping[str, int | None] = field(default_factory=dict)


class BadEntryError(JaxcheckError, Exception):
    """A stored entry that is not what :meth:`OutcomeCache.put` writes."""


# In an entry stored by assumption: where each of its untracked reasons was heard.
UNTRACKED_AT = "untracked_at"


def _entry_digest(key: str, outcomes: object, used: object, *assumed: object) -> str:
    shown = [key, outcomes, used, *assumed]
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


def _read_entry(key: str, text: str) -> CachedSession:
    """An entry, checked: its digest, its shape, the type of every text."""
    try:
        data = json.loads(text)
    except ValueError:
        raise BadEntryError("not JSON") from None
    assumed = (UNTRACKED_AT,) if isinstance(data, dict) and UNTRACKED_AT in data else ()
    if not isinstance(data, dict) or set(data) != {"key", "digest", "outcomes", "used", *assumed}:
        raise BadEntryError("not an entry of this cache")
    stored = data["outcomes"]
    at = [data[name] for name in assumed]
    if data["key"] != key or data["digest"] != _entry_digest(key, stored, data["used"], *at):
        raise BadEntryError(
            "its content does not match its checksum (edited, or written by something else)"
        )
    try:
        used = dependencies_from_wire(data["used"])
    except (IndexError, TypeError, ValueError) as error:
        raise BadEntryError(f"what its session used does not parse ({error})") from None
    untracked_at = at[0] if at else {}
    if (
        not isinstance(untracked_at, dict)
        or set(untracked_at) != set(used.untracked)
        or not all(item is None or type(item) is int for item in untracked_at.values())
    ):
        raise BadEntryError("where its untracked reasons were heard does not match them")
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
    return CachedSession(outcomes, used, untracked_at)


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

    def get(
        self, key: str, count: int | None = None, *, assume: bool = False
    ) -> CachedSession | None:
        """The stored session (``count`` outcomes, if given), or None.

        None on a miss, a discarded entry, or an entry whose dependencies no
        longer hold (the session must run again; its new result replaces it).
        An entry stored by assumption is taken only with ``assume``.
        """
        path = self.directory / f"{key}.json"
        text = self._read(path)
        entry = None if text is None else self._check(path, key, text, count, assume)
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

    def _check(
        self, path: Path, key: str, text: str, count: int | None, assume: bool
    ) -> CachedSession | None:
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
        if not reusable(entry.used, assume=assume):
            return None
        return entry

    def _discard(self, path: Path, why: str) -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        self.discarded.append((str(path), why))

    def put(
        self,
        key: str,
        outcomes: Sequence[Outcome],
        used: Dependencies | None = None,
        assumed: Mapping[str, int | None] | None = None,
    ) -> None:
        """Store outcomes of a session that ran without failure, and what it depended on;
        atomic. Nothing is stored when the session used something untracked, unless by
        assumption: then ``assumed`` says where each untracked reason was heard (as
        :attr:`CachedSession.untracked_at`)."""
        used = used or Dependencies()
        if any(o.failure is not None for o in outcomes) or (used.untracked and assumed is None):
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# created by sphinx-jaxcheck\n*\n", "utf-8")
        wire = [outcome_to_wire(o) for o in outcomes]
        depends = dependencies_to_wire(used)
        at = [{why: (assumed or {}).get(why) for why in used.untracked}] if used.untracked else []
        entry = {
            "key": key,
            "digest": _entry_digest(key, wire, depends, *at),
            "outcomes": wire,
            "used": depends,
        }
        text = json.dumps(entry | {UNTRACKED_AT: at[0]} if at else entry)
        replace_file(self.directory / f"{key}.json", text.encode("utf-8"))
