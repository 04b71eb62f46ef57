"""How big the caches are, and keeping them under ``jaxcheck_cache_max_mb``.

One folder holds both caches: session outcomes (``<key>.json``) and, in
``xla/``, JAX's persistent compilation cache that the workers share. Both only
grow as blocks change, so the limit is split between them. After every build
the outcomes are pruned to :func:`~sphinx_jaxcheck.config.results_share`, least
recently used first (an outcome is marked used when a build reads it), with the
temporary files that an interrupted write left behind; ``xla/`` is emptied when
it holds more than :func:`~sphinx_jaxcheck.config.compiled_share`. Nothing here
reads that folder's layout, only its size: JAX refills it with what it compiles
again. (JAX's own limit, ``jax_compilation_cache_max_size``, rescans the folder
each time it stores a program, which is quadratic in the programs stored.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from ..model import DURATIONS_FILE

XLA_FOLDER = "xla"
# What the workers' interpreters answered, kept while nothing they depend on changed.
INTERPRETERS_FOLDER = "interpreters"
# A write in progress is younger than this; an older temporary file is debris.
STALE_TEMPORARY_SECONDS = 3600.0


def compiled_folder(directory: str | os.PathLike[str]) -> str:
    """``xla/`` in the cache folder, where the workers' JAX keeps what it compiles."""
    folder = Path(directory) / XLA_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    return str(folder)


@dataclass(frozen=True)
class Item:
    """An outcome, or a temporary file an interrupted write may have left."""

    path: Path
    size: int
    used: float  # when it was last used (seconds since the epoch)
    kind: str  # "outcome" or "temporary"


@dataclass(frozen=True)
class Usage:
    """The items of a cache folder, least recently used first, and the size of ``xla/``."""

    directory: Path
    items: tuple[Item, ...]
    compiled: int  # bytes in xla/: JAX's compiled programs, and what it keeps beside them

    def size(self, kind: str | None = None) -> int:
        """Bytes held by items of ``kind``; without a kind, by the whole folder."""
        if kind is None:
            return sum(i.size for i in self.items) + self.compiled
        return sum(i.size for i in self.items if i.kind == kind)

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
                items.append(Item(path, stat.st_size, stat.st_mtime, "outcome"))
            elif path.suffix == ".tmp":
                items.append(Item(path, stat.st_size, stat.st_mtime, "temporary"))
    return Usage(root, tuple(sorted(items, key=lambda i: i.used)), _folder_size(root / XLA_FOLDER))


def _folder_size(folder: Path) -> int:
    total = 0
    with contextlib.suppress(OSError):
        for path in folder.rglob("*"):
            stat = _stat(path)
            if stat is not None and path.is_file():
                total += stat.st_size
    return total


@dataclass(frozen=True)
class Pruned:
    """What :func:`prune` deleted."""

    removed: int
    freed: int
    left: int  # bytes the outcomes still take
    emptied: int = 0  # bytes of compiled programs removed (0: xla/ was kept)


def prune(
    directory: str | os.PathLike[str],
    max_bytes: int,
    compiled_max_bytes: int | None = None,
    *,
    now: float | None = None,
) -> Pruned:
    """Delete leftover temporary files, then least recently used outcomes until they take at
    most ``max_bytes``; empty ``xla/`` if it holds more than ``compiled_max_bytes``.

    The ``xla/`` folder itself stays: another build's workers may be storing programs in it.
    """
    found = usage(directory)
    now = time.time() if now is None else now
    total = found.size("outcome")
    removed = freed = 0
    for item in found.items:
        if item.kind == "temporary":
            if now - item.used <= STALE_TEMPORARY_SECONDS:
                continue  # a write in progress
        elif total <= max_bytes:
            continue
        else:
            total -= item.size
        with contextlib.suppress(FileNotFoundError):
            item.path.unlink()
        removed += 1
        freed += item.size
    emptied = 0
    if compiled_max_bytes is not None and found.compiled > compiled_max_bytes:
        emptied = found.compiled
        with contextlib.suppress(OSError):
            for path in (found.directory / XLA_FOLDER).iterdir():
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
    return Pruned(removed, freed, total, emptied)


def clear(directory: str | os.PathLike[str]) -> int:
    """Delete every outcome, compiled program, interpreter answer, and
    remembered session duration; the bytes freed (answers and records uncounted).

    The folder and its .gitignore stay.
    """
    found = usage(directory)
    for item in found.items:
        with contextlib.suppress(FileNotFoundError):
            item.path.unlink()
    shutil.rmtree(Path(directory) / XLA_FOLDER, ignore_errors=True)
    shutil.rmtree(Path(directory) / INTERPRETERS_FOLDER, ignore_errors=True)
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
