"""Each kind of checked thing's rules (:class:`.protocol.Kind`): how its blocks run together,
which are left out, how an outcome is judged, what a failure does to the rest. The kinds that
run as a script share theirs (:mod:`.scripts`); a kind that differs has a module of its own.

:func:`rules_of` is the one place that asks what kind a block is; the stages are handed the
rules it gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..judge.verdict import judge_unrun
from ..model import (
    Block,
    Directive,
    DocstringExamples,
    FileExamples,
    GroupCode,
    NotebookCell,
    Outcome,
    PageExamples,
    Verdict,
)
from .group_code import GroupCodeRules
from .notebook_cell import NotebookCellRules
from .protocol import Kind
from .scripts import ScriptRules

_RULES: dict[type, Callable[[Any], Kind]] = {
    Directive: ScriptRules,
    PageExamples: ScriptRules,
    GroupCode: GroupCodeRules,
    DocstringExamples: ScriptRules,
    FileExamples: ScriptRules,
    NotebookCell: NotebookCellRules,
}


def rules_of(block: Block) -> Kind:
    """The rules of the block's kind."""
    return _RULES[type(block.kind)](block.kind)


def judge(block: Block, outcome: Outcome | None) -> Verdict:
    """The verdict on one block, given what happened when it ran (None: not run)."""
    unrun = judge_unrun(block, outcome)
    if unrun is not None:
        return unrun
    assert outcome is not None  # a block that did not run is judged unrun
    return rules_of(block).judge(block, outcome)
