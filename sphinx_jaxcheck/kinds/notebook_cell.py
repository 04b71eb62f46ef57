"""A notebook's code cell: run as Jupyter runs it, its outputs compared with those the
notebook stores; its notebook is one session, reported by pytest as one item; its page shows
what it showed; update rewrites its outputs whole, in the notebook it was copied from where
the build copied it."""

from __future__ import annotations

from ..expect.conditions import Runtime, why_skipped
from ..judge.notebooks import judge_cell
from ..model import Block, Limits, NotebookCell, Outcome, Verdict
from ..rewrite.places import CellPlace
from ..worker.protocol import SessionKind


class NotebookCellRules:
    """The rules of a notebook cell (see :class:`.protocol.Kind`)."""

    session_kind = SessionKind.NOTEBOOK

    def __init__(self, kind: NotebookCell) -> None:
        self.kind = kind

    def left_out(self, runtime: Runtime | None) -> str | None:
        """Its notebook is not run (excluded from execution, or it changes the environment),
        or needs a platform the workers lack: then nothing of it runs, whatever its options."""
        if self.kind.not_run:
            return self.kind.not_run
        needs = Limits(platforms=self.kind.notebook_platforms)
        if runtime and (why := why_skipped(needs, runtime)):
            return f"the notebook needs {why}"
        return None

    def platforms(self) -> tuple[str, ...]:
        return self.kind.notebook_platforms

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        return judge_cell(block, self.kind, outcome)

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        return False  # nbval's, not pytest's doctests

    def follows_failures(self) -> bool:
        return True

    def stops_its_group(self) -> bool:
        return False

    def read_on_its_own(self) -> bool:
        return False

    def one_test_item(self) -> bool:
        return True

    def shows_its_outputs(self) -> bool:
        return True

    def stale_shown(self, verdict: Verdict) -> tuple[str, str]:
        kept = "its notebook stores" if self.kind.stored is not None else "its output block says"
        diff = "\n".join(d.diff for d in verdict.drifts)
        return f"cell shows other outputs than {kept} (show the difference)", diff

    def cell(self) -> int | None:
        return self.kind.cell

    def ran_without(self) -> str:
        return self.kind.left_out

    def named(self, label: str) -> str:
        return label  # its label says where it is: the notebook and the cell

    def drift_words(self) -> str | None:
        return "the output block after it" if self.kind.written is not None else None

    def written_where_it_is(self) -> bool:
        # A notebook the build copied into the sources is written where it was copied from:
        # a file git tracks in the project's checkout, wherever the source folder is.
        return bool(self.kind.copy)

    def outputs_place(self) -> CellPlace | None:
        return CellPlace(self.kind.cell, self.kind.written, self.kind.written_line)
