"""The rules of the kinds that run as a script: blocks whose printed text is compared with what
their comments or ``>>>`` examples say (a ``jaxcheck`` block, a page's ``>>>`` examples, a
docstring's, a text file's); a kind that differs overrides what it does otherwise."""

from __future__ import annotations

from ..expect.conditions import Runtime
from ..judge.verdict import judge_printed
from ..model import Block, Outcome, Verdict
from ..worker.protocol import SessionKind


class ScriptRules:
    """The rules of a block run as part of a script (see :class:`.protocol.Kind`)."""

    session_kind = SessionKind.SCRIPT

    def __init__(self, _kind: object) -> None:
        pass  # these rules ask nothing of the kind

    def left_out(self, runtime: Runtime | None) -> str | None:
        return None

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        return judge_printed(block, outcome)

    def follows_failures(self) -> bool:
        return False

    def stops_its_group(self) -> bool:
        return False
