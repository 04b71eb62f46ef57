"""A notebook's code cell: run as Jupyter runs it, its outputs compared with those the
notebook stores."""

from __future__ import annotations

from ..expect.conditions import Runtime, why_skipped
from ..judge.notebooks import judge_cell
from ..model import Block, Limits, NotebookCell, Outcome, Verdict
from ..worker.protocol import SessionKind


class NotebookCellRules:
    """The rules of a notebook cell (see :class:`.protocol.Kind`)."""

    session_kind = SessionKind.NOTEBOOK

    def __init__(self, cell: NotebookCell) -> None:
        self.cell = cell

    def left_out(self, runtime: Runtime | None) -> str | None:
        """Its notebook is not run (excluded from execution, or it changes the environment),
        or needs a platform the workers lack: then nothing of it runs, whatever its options."""
        if self.cell.not_run:
            return self.cell.not_run
        needs = Limits(platforms=self.cell.notebook_platforms)
        if runtime and (why := why_skipped(needs, runtime)):
            return f"the notebook needs {why}"
        return None

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        return judge_cell(block, self.cell, outcome)

    def follows_failures(self) -> bool:
        return True

    def stops_its_group(self) -> bool:
        return False
