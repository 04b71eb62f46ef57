"""Whether ``jaxcheck update`` may rewrite a drifted expectation where it stands, before any
second run: one decision, which update plans with and a check's advice follows.

A check says "``jaxcheck update`` accepts the actual output" (and its JSON
report ``"updatable": true``) only where update would go on to the second run:
the file is one update writes (a page inside the source folder, or outside it
when allowed; a file ``jaxcheck_doctest_files`` names; a Python file of the
project's own checkout, not of an installed package; the notebook a page the build
copied was copied from, :mod:`.origins`), the docstring's examples
are lines of one of its string literals, nothing about the block or its example
refuses, and update's planner can make the edit (it would drop or write no line
closing a Markdown fence, ...: :func:`.update.edit_problem`, which the caller hands
over, as update imports this module). Elsewhere both say the one reason instead. Pure
but for reading the files and looking at the file system.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..model import Block, Drift
from .checkout import checkout_of, is_python_file, python_file_problem
from .digests import digest
from .docstrings import PythonSource, literal_of, read_python
from .edits import SourceText, parse_source
from .python_literals import Literal
from .refusals import skip_reason

# Why update's plan refuses the edit of a drift's own lines (:func:`.update.edit_problem`).
EditProblem = Callable[[SourceText, Block, Drift, Literal | None], str | None]


@dataclass(frozen=True)
class CellPlace:
    """Where update writes a notebook cell's new outputs: the cell's index in its notebook's
    ``cells`` list (an ``.ipynb``'s cell: its ``outputs`` value is rewritten); in a text
    notebook, the output block written after it instead (its lines, and the file line of its
    first)."""

    cell: int
    written: tuple[str, ...] | None = None
    written_line: int = 0


class Rewritten(Protocol):
    """What update asks of a block's kind, here and in its planner (:mod:`.update`): every
    kind's rules give it, and the callers pass :func:`..kinds.rules_of`, which this stage,
    under it, does not import."""

    def written_where_it_is(self) -> bool:
        """Whether update writes its file wherever that is, not only inside the source
        folder: a file ``jaxcheck_doctest_files`` names (conf.py names it), the notebook a
        page the build copied was copied from (a file git tracks in the project's
        checkout)."""

    def outputs_place(self) -> CellPlace | None:
        """Where update writes its new outputs, when its rewrite is of the outputs it stores
        (a notebook cell's), rewritten whole from its second run and read back by their own
        reader; None when it is an edit of the expected lines of its body, which update's
        planner makes from its drift and its document's reader reads back."""


class Places:
    """Where update writes, for the source folder ``root`` (None: anywhere, no checkout
    asked for), its planner's ``edit_problem`` deciding the edits, ``kinds`` giving a block's
    kind's rules; each Python file is read once, at its first drift."""

    def __init__(
        self,
        root: str | None,
        edit_problem: EditProblem,
        kinds: Callable[[Block], Rewritten],
        *,
        allow_outside: bool = False,
    ) -> None:
        self.root = root
        self.edit_problem = edit_problem
        self.kinds = kinds
        self.allow_outside = allow_outside
        self.checkout = checkout_of(root) if root is not None else None
        self._read: dict[str, PythonSource | str | None] = {}  # each Python file, or why not
        self._data: dict[str, bytes | None] = {}  # each file as checked (None: changed since)

    def refusal(self, block: Block, drift: Drift) -> str | None:
        """Why update must not rewrite this drift, naming the one reason; None when it may
        (a second run still has to confirm the new output)."""
        why = None if self.kinds(block).written_where_it_is() else self._where_problem(block.path)
        # An example that does not compile never drifts: the judge fails it.
        if not why and is_python_file(block.path):
            why = self._literal_problem(block)
        why = why or drift.note or block.update_refusal or skip_reason(drift.expectation)
        return why or self._edit_problem(block, drift)

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
            data = self._checked(block)
            if isinstance(data, str):
                return data
            self._read[real] = None if data is None else read_python(data)
        python = self._read[real]
        if python is None or isinstance(python, str):
            return python
        found = literal_of(python, block)
        return found if isinstance(found, str) else None

    def _edit_problem(self, block: Block, drift: Drift) -> str | None:
        """Why update's plan would refuse the edit itself, as it decides it; None when it
        would make it."""
        if self.kinds(block).outputs_place() is not None:
            return None  # its outputs are rewritten whole, not its lines edited
        data = self._checked(block)
        if not isinstance(data, bytes):
            return None  # unread or changed since: update says so as it reads the file
        try:
            source = parse_source(data)
        except UnicodeDecodeError:
            return None  # update names the encoding as it reads the file
        python = self._read.get(os.path.realpath(block.path))
        literal = literal_of(python, block) if isinstance(python, PythonSource) else None
        return self.edit_problem(
            source, block, drift, None if isinstance(literal, str) else literal
        )

    def _checked(self, block: Block) -> bytes | str | None:
        """The block's file as it was checked, why it cannot be read, or None if it changed."""
        real = os.path.realpath(block.path)
        if real not in self._data:
            try:
                with open(real, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                return f"cannot read the file: {error}"
            self._data[real] = data if digest(data) == block.file_digest else None
        return self._data[real]


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
