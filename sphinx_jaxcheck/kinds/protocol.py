"""What the engine asks of each kind of checked thing: one protocol, one module per kind."""

from __future__ import annotations

from typing import Protocol

from ..expect.conditions import Runtime
from ..model import Block, Outcome, Verdict
from ..worker.protocol import SessionKind


class Kind(Protocol):
    """The rules of one kind of block (a ``jaxcheck`` block, a page's ``>>>`` examples, a
    ``sphinx.ext.doctest`` group's code, a docstring's or a text file's examples, a notebook
    cell), for the one block they are asked about."""

    #: How the blocks of one session run: as Python runs a script (``jaxcheck_setup``
    #: first), or as Jupyter runs cells.
    session_kind: SessionKind

    def left_out(self, runtime: Runtime | None) -> str | None:
        """Why the block is left out of its session, whatever its own limits say (None: it
        is not)."""

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        """The verdict on the block once it ran (its failure to run already judged)."""

    def follows_failures(self) -> bool:
        """Whether its failures after an earlier failure of its session are grouped under
        that first one, as the later cells of a notebook whose kernel went on."""

    def stops_its_group(self) -> bool:
        """Whether, when it fails, the page examples after it in its session are skipped
        (a ``sphinx.ext.doctest`` group's setup code)."""
