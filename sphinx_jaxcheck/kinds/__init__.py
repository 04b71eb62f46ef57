"""Each kind of checked thing's rules (:class:`.protocol.Kind`), a module each: how its
blocks run together, which are left out, how an outcome is judged, what a failure does to the
rest, how update plans its rewrite, how it is recorded, reported and rendered.

:func:`rules_of` is the one place that asks what kind a block is; the stages are handed the
rules it gives. A new kind is a data class in :mod:`..model`, a module here, and its entry in
``_RULES``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config import Settings
from ..judge.verdict import judge_unrun
from ..model import (
    Block,
    Directive,
    DocstringExamples,
    FileExamples,
    GroupCode,
    MarkdownFence,
    NotebookCell,
    Outcome,
    PageExamples,
    Verdict,
)
from .directive import DirectiveRules
from .docstring_examples import DocstringExamplesRules
from .file_examples import FileExamplesRules
from .group_code import GroupCodeRules
from .markdown_fence import MarkdownFenceRules
from .notebook_cell import NotebookCellRules
from .page_examples import PageExamplesRules
from .protocol import Kind

# Each kind's rules, made for one block's kind; mypy checks that each implements Kind.
_RULES: dict[type, Callable[[Any], Kind]] = {
    Directive: DirectiveRules,
    MarkdownFence: MarkdownFenceRules,
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


def warning_filters(block: Block, settings: Settings, doctests_like: str | None) -> tuple[str, ...]:
    """The warning filters a block runs under: ``jaxcheck_filterwarnings`` where pytest would
    run it under its own (every front-end alike), else none; ``doctests_like``: how a page's
    own examples are judged."""
    if rules_of(block).judged_like_pytest(doctests_like):
        return settings.filterwarnings
    return ()
