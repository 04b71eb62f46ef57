"""Sphinx source folders near a path that names none, for the hint of a wrong path.

Imports no Sphinx: the command line and the pytest plugin ask before loading it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

_SKIPPED = ("_build", "node_modules", "site-packages")  # never a project's own source folder


def projects_near(path: Path) -> list[Path]:
    """Folders holding a ``conf.py`` one level below ``path`` (a folder) or beside it (a path
    that does not exist), else two levels (``docs/source``), the most alike in name to
    ``path`` first."""
    where = path if path.is_dir() else path.parent
    if not where.is_dir():
        return []
    found: list[Path] = []
    for pattern in ("*/conf.py", "*/*/conf.py"):
        found = [
            config.parent
            for config in where.glob(pattern)
            if not any(
                part.startswith(".") or part in _SKIPPED
                for part in config.relative_to(where).parts[:-1]
            )
        ]
        if found:
            break

    def likeness(folder: Path) -> tuple[float, str]:
        named = os.path.relpath(folder, where)
        return -difflib.SequenceMatcher(None, path.name, named).ratio(), named

    return sorted(found, key=likeness)
