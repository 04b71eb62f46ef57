"""How big the caches are, and keeping them under a size: least recently used first.

One folder holds both caches: session outcomes (``<key>.json``) and, in
``xla/``, JAX's persistent compilation cache that the workers share. Both only
grow as blocks change; after every build the folder is pruned to
``jaxcheck_cache_max_mb`` by deleting what was used least recently (an outcome
is marked used when a build reads it; JAX stamps its own entries). Temporary
files that an interrupted write left behind go too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

XLA_FOLDER = "xla"
# Written by sharding beside the outcomes; cleared with them.
DURATIONS_FILE = "durations.tsv"
# A write in progress is younger than this; an older temporary file is debris.
STALE_TEMPORARY_SECONDS = 3600.0


@dataclass(frozen=True)
class Item:
    """What is deleted as one: an outcome, or a compiled program with its access stamp."""

    paths: tuple[Path, ...]
    size: int
    used: float  # when it was last used (seconds since the epoch)
    kind: str  # "outcome", "xla" or "temporary"


@dataclass(frozen=True)
class Usage:
    """The items of a cache folder, least recently used first."""

    directory: Path
    items: tuple[Item, ...]

    def size(self, kind: str | None = None) -> int:
        """Bytes held (by items of ``kind``)."""
        return sum(i.size for i in self.items if kind is None or i.kind == kind)

    def count(self, kind: str) -> int:
        """How many items of ``kind``."""
        return sum(1 for i in self.items if i.kind == kind)


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def usage(directory: str | os.PathLike[str]) -> Usage:
    """Every item of the cache folder (none if it does not exist)."""
    root = Path(directory)
    items: list[Item] = []
    with contextlib.suppress(OSError):
        for path in root.iterdir():
            stat = _stat(path)
            if stat is None or not path.is_file():
                continue
            if path.suffix == ".json":
                items.append(Item((path,), stat.st_size, stat.st_mtime, "outcome"))
            elif path.suffix == ".tmp":
                items.append(Item((path,), stat.st_size, stat.st_mtime, "temporary"))
    items.extend(_xla_items(root / XLA_FOLDER))
    return Usage(root, tuple(sorted(items, key=lambda i: i.used)))


def _xla_items(folder: Path) -> list[Item]:
    """JAX's entries: ``<key>-cache`` with ``<key>-atime`` (its access stamp), or one file each."""
    groups: dict[str, list[tuple[Path, os.stat_result]]] = {}
    with contextlib.suppress(OSError):
        for path in folder.rglob("*"):
            stat = _stat(path)
            if stat is None or not path.is_file():
                continue
            key = str(path.relative_to(folder)).removesuffix("-cache").removesuffix("-atime")
            groups.setdefault(key, []).append((path, stat))
    return [
        Item(
            tuple(p for p, _ in group),
            sum(s.st_size for _, s in group),
            max(s.st_mtime for _, s in group),
            "xla",
        )
        for group in groups.values()
    ]


@dataclass(frozen=True)
class Pruned:
    """What :func:`prune` deleted."""

    removed: int
    freed: int
    left: int  # bytes the folder still holds


def prune(directory: str | os.PathLike[str], max_bytes: int, *, now: float | None = None) -> Pruned:
    """Delete leftover temporary files, then least recently used items until at most ``max_bytes`` remain."""
    found = usage(directory)
    now = time.time() if now is None else now
    total = found.size()
    removed = freed = 0
    for item in found.items:
        debris = item.kind == "temporary" and now - item.used > STALE_TEMPORARY_SECONDS
        if not debris and (total <= max_bytes or item.kind == "temporary"):
            continue
        for path in item.paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        removed += 1
        freed += item.size
        total -= item.size
    return Pruned(removed, freed, total)


def clear(directory: str | os.PathLike[str]) -> int:
    """Delete every outcome, compiled program and remembered session duration; the bytes freed.

    The folder and its .gitignore stay.
    """
    found = usage(directory)
    for item in found.items:
        for path in item.paths:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
    shutil.rmtree(Path(directory) / XLA_FOLDER, ignore_errors=True)
    durations = Path(directory) / DURATIONS_FILE
    freed = found.size() + (durations.stat().st_size if durations.is_file() else 0)
    durations.unlink(missing_ok=True)
    return freed


def mark_used(path: str | os.PathLike[str]) -> None:
    """Stamp an outcome as just used, so pruning keeps it longer."""
    with contextlib.suppress(OSError):
        os.utime(path)


def human_size(size: int) -> str:
    """``size`` bytes for people: ``512 B``, ``40.2 KB``, ``12.3 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"
