"""Block code known to compile: the digests of code this interpreter compiled without error.

Before anything runs, a block's code is compiled to report syntax errors at its
line. Whether code compiles depends only on its text and on the interpreter, so
the digest of code that compiled is kept in the cache folder, one file per
interpreter build (``syntax/<tag>.txt``), and a later build skips compiling
exactly that text. Code that fails is never kept: it is compiled again, and its
error reported, every time. A damaged line matches no digest, so it only costs a
compile.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
from collections.abc import Iterable

from ..atomic import replace_file
from .size import SYNTAX_FOLDER

_DIGEST = re.compile(r"[0-9a-f]{64}")


def code_digest(code: str) -> str:
    """The digest under which ``code`` is known to compile."""
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def record_path(directory: str | os.PathLike[str]) -> str:
    """The record of this interpreter build (its version string names the build) in the
    cache folder ``directory``."""
    build = hashlib.sha256(sys.version.encode()).hexdigest()[:16]
    tag = sys.implementation.cache_tag or sys.implementation.name
    return os.path.join(directory, SYNTAX_FOLDER, f"{tag}-{build}.txt")


def known_to_compile(directory: str | os.PathLike[str]) -> frozenset[str]:
    """The digests of code this interpreter compiled without error (none when unreadable)."""
    try:
        with open(record_path(directory), encoding="ascii", errors="replace") as handle:
            return frozenset(line for line in handle.read().split("\n") if _DIGEST.fullmatch(line))
    except OSError:
        return frozenset()


def remember_compiled(directory: str | os.PathLike[str], digests: Iterable[str]) -> None:
    """Add the digests of code that compiled to the record, if any is new.

    Only a shortcut: a record that cannot be written costs a compile next time.
    """
    known = known_to_compile(directory)
    new = {d for d in digests if _DIGEST.fullmatch(d)} - known
    if not new:
        return
    path = record_path(directory)
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_file(path, "".join(f"{d}\n" for d in sorted(known | new)).encode("ascii"))
