"""The key of a session's cached outcomes: everything that can change them, and nothing else.

The key covers the programs a session runs (code, options that reach the
worker, pseudo file names, the folder they run in) and the fingerprint of the
workers (their Python, every distribution installed where they import from,
the environment they really get, this package's version and worker code;
made by :func:`sphinx_jaxcheck.run.interpreter.environment_fingerprint`).
Expected outputs are not part of it (those comments are blanked out of the
code before hashing): verdicts are always recomputed from the current
comments, so a cached outcome can never hide a drift.
"""

from __future__ import annotations

import hashlib
import io
import json
import tokenize
from collections.abc import Sequence

from ..model import Program
from ..worker.protocol import SessionKind, program_to_wire


def session_key(
    programs: Sequence[Program], fingerprint: str, kind: SessionKind = SessionKind.SCRIPT
) -> str:
    """The cache key of one session (a notebook's cells hold no expected output: all of
    their code counts)."""
    if kind is SessionKind.NOTEBOOK:
        wire = [program_to_wire(p) for p in programs]
        payload = json.dumps([fingerprint, kind.value, wire], sort_keys=True)
    else:
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
