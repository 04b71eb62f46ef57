"""A persistent cache of session outcomes, keyed by everything that can change them.

The key covers the programs a session runs (code, options that reach the
worker, pseudo file names), the Python, jax, jaxlib and numpy versions, the
worker environment and this package's version. Expected outputs are not part
of it (those comments are blanked out of the code before hashing): verdicts are
always recomputed from the current comments, so a cached outcome can never hide
a drift. Sessions with any failure are not stored.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import io
import json
import os
import sys
import tempfile
import tokenize
from collections.abc import Mapping, Sequence
from pathlib import Path

from . import __version__
from .model import Outcome, Program
from .worker.protocol import outcome_from_wire, outcome_to_wire, program_to_wire

TRACKED_PACKAGES = ("jax", "jaxlib", "numpy")


def installed_version(package: str) -> str:
    """The installed version of a distribution, or ``"none"`` (never imports it)."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def _worker_source_digest() -> str:
    """A digest of the code that runs blocks, so a changed worker invalidates the cache."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).parent / "worker").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def environment_fingerprint(
    env: Mapping[str, str], versions: Mapping[str, str] | None = None, python: str | None = None
) -> str:
    """What, besides the code, decides a session's outcome.

    ``versions`` (package -> version) defaults to the installed jax, jaxlib and
    numpy, ``python`` (a ``sys.version``) to ours: pass the workers' when they
    run another interpreter.
    """
    if versions is None:
        versions = {name: installed_version(name) for name in TRACKED_PACKAGES}
    parts = {
        "python": python or sys.version,
        "jaxcheck": __version__,
        "worker": _worker_source_digest(),
        "env": dict(sorted(env.items())),
        **{name: versions.get(name, "none") for name in TRACKED_PACKAGES},
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def session_key(programs: Sequence[Program], fingerprint: str) -> str:
    """The cache key of one session."""
    wire = [{**program_to_wire(p), "code": code_without_expectations(p)} for p in programs]
    payload = json.dumps([fingerprint, wire], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def code_without_expectations(program: Program) -> str:
    """The code with the comments that only hold expected output blanked out.

    Those are the comment lines after the last line of code (the trailing block;
    commented-REPL statements travel separately as examples) and the comments
    on annotated print lines. Blanking keeps every line number, so editing an
    expectation (or ``jaxcheck update`` rewriting it) reuses the cached run.
    """
    lines = program.code.split("\n")
    # Backwards over comment lines only: an unterminated string cannot end valid code.
    row = len(lines)
    while row and (not lines[row - 1].strip() or lines[row - 1].lstrip().startswith("#")):
        lines[row - 1] = ""
        row -= 1
    if program.inline_prints:
        inline = {last for _, last in program.inline_prints}
        try:
            tokens = tokenize.generate_tokens(io.StringIO(program.code).readline)
            for token in tokens:
                if token.type == tokenize.COMMENT and token.start[0] in inline:
                    lines[token.start[0] - 1] = lines[token.start[0] - 1][: token.start[1]]
        except (tokenize.TokenError, SyntaxError):
            return program.code
    return "\n".join(lines)


class OutcomeCache:
    """Outcomes of whole sessions, one JSON file each, under ``directory``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def has_entries(self) -> bool:
        """Whether any outcome is stored (the folder itself may exist empty)."""
        try:
            return any(self.directory.glob("*.json"))
        except OSError:
            return False

    def get(self, key: str) -> list[Outcome] | None:
        """The stored outcomes, or None on a miss (or an unreadable entry)."""
        try:
            data = json.loads((self.directory / f"{key}.json").read_text("utf-8"))
            return [outcome_from_wire(item) for item in data]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, outcomes: Sequence[Outcome]) -> None:
        """Store outcomes of a session that ran without failure; atomic."""
        if any(o.failure is not None for o in outcomes):
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# created by sphinx-jaxcheck\n*\n", "utf-8")
        data = json.dumps([outcome_to_wire(o) for o in outcomes])
        handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(data)
            os.replace(temporary, self.directory / f"{key}.json")
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
