"""Split the sessions of one docs set over N machines; remember how long each session took.

Pure of Sphinx. The split is deterministic: every shard computes it from the
same sessions and the same remembered durations, so each session runs on
exactly one shard. Their reports merge back into one in ``report/merge.py``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ..atomic import replace_file
from ..model import DURATIONS_FILE, Block, SessionKey, Status, Verdict, session_name


def split(
    sessions: Sequence[SessionKey], durations: Mapping[str, float], count: int
) -> dict[SessionKey, int]:
    """The shard (1-based) of every session, balancing the remembered durations.

    Longest first, each onto the shard with the least work so far (ties: the
    lowest number). A session without a remembered duration counts as the mean
    of those known; with none known, every session weighs the same.
    """
    known = [durations[session_name(k)] for k in sessions if session_name(k) in durations]
    default = sum(known) / len(known) if known else 1.0
    weight = {key: durations.get(session_name(key), default) for key in sessions}
    loads = [0.0] * count
    assignment: dict[SessionKey, int] = {}
    for key in sorted(sessions, key=lambda k: (-weight[k], k)):
        shard = min(range(count), key=lambda n: (loads[n], n))
        loads[shard] += weight[key]
        assignment[key] = shard + 1
    return assignment


def chooser(
    assignment: Mapping[SessionKey, int], index: int
) -> Callable[[Sequence[SessionKey]], set[SessionKey]]:
    """What picks shard ``index``'s sessions, among those it is given, by ``assignment``."""

    def select(sessions: Sequence[SessionKey]) -> set[SessionKey]:
        return {key for key in sessions if assignment.get(key) == index}

    return select


def split_digest(assignment: Mapping[SessionKey, int]) -> str:
    """A digest of a split: shards that computed the same split have the same digest."""
    payload = json.dumps(sorted([list(key), shard] for key, shard in assignment.items()))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def load_durations(directory: str | os.PathLike[str]) -> dict[str, float]:
    """The remembered duration of each session, in seconds (empty when none are)."""
    try:
        text = (Path(directory) / DURATIONS_FILE).read_text("utf-8")
    except (OSError, ValueError):
        return {}
    durations: dict[str, float] = {}
    for line in text.splitlines():
        name, tab, seconds = line.rpartition("\t")
        with contextlib.suppress(ValueError):
            if tab and math.isfinite(float(seconds)):
                durations[name] = float(seconds)
    return durations


def save_durations(directory: str | os.PathLike[str], durations: Mapping[str, float]) -> None:
    """Remember these durations (added to those already known); atomic.

    One ``session<TAB>seconds`` line per session, sorted: easy to read, and
    apart from the cached outcomes (``*.json``).
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    merged = {**load_durations(folder), **durations}
    lines = "".join(f"{name}\t{seconds:.3f}\n" for name, seconds in sorted(merged.items()))
    with contextlib.suppress(OSError, ValueError):
        if (folder / DURATIONS_FILE).read_text("utf-8") == lines:
            return  # as remembered (every session from the cache): no write, no sync
    replace_file(folder / DURATIONS_FILE, lines.encode("utf-8"))


def session_durations(
    documents: Mapping[str, Sequence[Block]], verdicts: Mapping[str, Sequence[Verdict]]
) -> dict[str, float]:
    """The seconds each session took (as run, or as the cache remembers it)."""
    durations: dict[str, float] = {}
    for docname, blocks in documents.items():
        for block, verdict in zip(blocks, verdicts.get(docname, ()), strict=False):
            if verdict.status is not Status.SKIPPED:
                name = session_name(block.session_key)
                durations[name] = durations.get(name, 0.0) + verdict.seconds
    return durations
