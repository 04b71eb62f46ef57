"""What the engine asks of each kind of checked thing: one protocol, one module per kind.

The stages under this layer (report, rewrite) cannot import it: each declares, in the module
that needs it, a protocol of what it asks of a kind (:class:`..report.records.Recorded`,
:class:`..report.findings.Reported`, :class:`..rewrite.places.Rewritten`), and is handed the
rules. :class:`Kind` is all of them, and what the stages above ask (run, the front-ends).
"""

from __future__ import annotations

from typing import Protocol

from ..expect.conditions import Runtime
from ..model import Block, Outcome, Verdict
from ..report.findings import Reported
from ..report.records import Recorded
from ..rewrite.places import Rewritten
from ..worker.protocol import SessionKind


class Kind(Recorded, Reported, Rewritten, Protocol):
    """The rules of one kind of block (a ``jaxcheck`` block, a page's ``>>>`` examples, a
    ``sphinx.ext.doctest`` group's code, a docstring's or a text file's examples, a notebook
    cell, a Markdown page's fence), for the one block they are asked about."""

    #: How the blocks of one session run: as Python runs a script (``jaxcheck_setup``
    #: first), or as Jupyter runs cells.
    session_kind: SessionKind

    def left_out(self, runtime: Runtime | None) -> str | None:
        """Why the block is left out of its session, whatever its own limits say (None: it
        is not)."""

    def platforms(self) -> tuple[str, ...]:
        """The platforms it runs on only, beyond those its own options name (a notebook's,
        from its metadata; empty: any)."""

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        """The verdict on the block once it ran (its failure to run already judged)."""

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        """Whether pytest would run its examples, so under its ``filterwarnings``, where a
        page's examples are judged as ``doctests_like`` says (``jaxcheck_doctests_like``)."""

    def follows_failures(self) -> bool:
        """Whether its failures after an earlier failure of its session are grouped under
        that first one, as the later cells of a notebook whose kernel went on."""

    def stops_its_group(self) -> bool:
        """Whether, when it fails, the page examples after it in its session are skipped
        (a ``sphinx.ext.doctest`` group's setup code)."""

    def read_on_its_own(self) -> bool:
        """Whether its file is read by no page but on its own, a session of its own (a file
        ``jaxcheck_doctest_files`` names): update reads it again by itself."""

    def one_test_item(self) -> bool:
        """Whether pytest reports its whole session as one item, as it runs as one (a
        notebook), rather than an item per block."""

    def shows_its_outputs(self) -> bool:
        """Whether its page shows what it showed when it ran, in place of what its file
        stores (a notebook cell's outputs)."""

    def stale_shown(self, verdict: Verdict) -> tuple[str, str]:
        """How its page's marker says it is stale: what it does now, in words (after "with
        jax X this"), and the text shown when opened."""
