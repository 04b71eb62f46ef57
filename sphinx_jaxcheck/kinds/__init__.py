"""Each kind of checked thing as one module of rules (:class:`.protocol.Kind`): how its blocks
run together, which are left out, how an outcome is judged, what a failure does to the rest.

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
from .directive import DirectiveRules
from .docstring_examples import DocstringExamplesRules
from .file_examples import FileExamplesRules
from .group_code import GroupCodeRules
from .notebook_cell import NotebookCellRules
from .page_examples import PageExamplesRules
from .protocol import Kind

_RULES: dict[type, Callable[[Any], Kind]] = {
    Directive: DirectiveRules,
    PageExamples: PageExamplesRules,
    GroupCode: GroupCodeRules,
    DocstringExamples: DocstringExamplesRules,
    FileExamples: FileExamplesRules,
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
