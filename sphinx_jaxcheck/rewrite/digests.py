"""The digest of a source file's bytes, as a block records it when read and an update checks
it before writing (its own module: reading needs it, not the rest of the rewriting)."""

from __future__ import annotations

import hashlib


def digest(data: bytes) -> str:
    """The sha256 of file bytes, as blocks record it when read."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: str) -> str:
    """The :func:`digest` of a file, as a block records it when read; empty when unreadable."""
    try:
        with open(path, "rb") as handle:
            return digest(handle.read())
    except OSError:
        return ""
