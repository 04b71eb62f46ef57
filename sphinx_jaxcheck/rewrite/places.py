"""Whether ``jaxcheck update`` may rewrite a drifted expectation where it stands, before any
second run: one decision, which update plans with and a check's advice follows.

A check says "``jaxcheck update`` accepts the actual output" (and its JSON
report ``"updatable": true``) only where update would go on to the second run:
the file is one update writes (a page inside the source folder, or outside it
when allowed; a file ``jaxcheck_doctest_files`` names; a Python file of the
project's own checkout, not of an installed package), the docstring's examples
are lines of one of its string literals, and nothing about the block or its
example refuses. Elsewhere both say the one reason instead. Pure but for reading
the files and looking at the file system.
"""

from __future__ import annotations

import os

from ..model import Block, Drift, FileExamples
from .checkout import checkout_of, is_python_file, python_file_problem
from .digests import digest
from .docstrings import PythonSource, literal_of, read_python
from .refusals import skip_reason


class Places:
    """Where update writes, for the source folder ``root`` (None: anywhere, no checkout
    asked for); each Python file is read once, at its first drift."""

    def __init__(self, root: str | None, *, allow_outside: bool = False) -> None:
        self.root = root
        self.allow_outside = allow_outside
        self.checkout = checkout_of(root) if root is not None else None
        self._read: dict[str, PythonSource | str | None] = {}  # each Python file, or why not

    def refusal(self, block: Block, drift: Drift) -> str | None:
        """Why update must not rewrite this drift, naming the one reason; None when it may
        (a second run still has to confirm the new output)."""
        # A file jaxcheck_doctest_files names is written where it is: conf.py names it.
        named = isinstance(block.kind, FileExamples)
        why = None if named else self._where_problem(block.path)
        # An example that does not compile never drifts: the judge fails it.
        if not why and is_python_file(block.path):
            why = self._literal_problem(block)
        return why or drift.note or block.update_refusal or skip_reason(drift.expectation)

    def _where_problem(self, path: str) -> str | None:
        """Why update must not write this file where it is, or None."""
        if is_python_file(path):
            if self.root is None:
                return None
            return python_file_problem(path, self.root, self.checkout)
        return None if self.allow_outside else _outside(os.path.realpath(path), path, self.root)

    def _literal_problem(self, block: Block) -> str | None:
        """Why the literal of this docstring's block cannot be written into (or its text is
        no literal), or None; also None when the file changed since it was checked (writing it
        then says so)."""
        real = os.path.realpath(block.path)
        if real not in self._read:
            try:
                with open(real, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                return f"cannot read the file: {error}"
            self._read[real] = read_python(data) if digest(data) == block.file_digest else None
        python = self._read[real]
        if python is None or isinstance(python, str):
            return python
        found = literal_of(python, block)
        return found if isinstance(found, str) else None


def _outside(real: str, path: str, root: str | None) -> str | None:
    if root is None:
        return None
    top = os.path.realpath(root)
    if os.path.commonpath([top, real]) == top:
        return None
    shown = path if real == os.path.abspath(path) else f"{path}, which is {real}"
    return (
        f"the file ({shown}) is outside the source folder {top}; update writes there only when "
        "asked: pass --allow-outside (or set jaxcheck_update_allow_outside = True)"
    )
