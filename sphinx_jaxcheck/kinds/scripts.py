"""The rules the kinds that run as a script share: blocks whose printed text is compared with
what their comments or ``>>>`` examples say (a ``jaxcheck`` block, a Markdown fence, a page's
``>>>`` examples, a ``sphinx.ext.doctest`` group's code, a docstring's, a text file's). Each
such kind has its module, which says where it differs."""

from __future__ import annotations

from ..expect.conditions import Runtime
from ..judge.verdict import judge_printed
from ..model import Block, Outcome, Verdict
from ..rewrite.places import CellPlace
from ..worker.protocol import SessionKind


class ScriptRules:
    """The rules of a block run as part of a script (see :class:`.protocol.Kind`)."""

    session_kind = SessionKind.SCRIPT

    def __init__(self, _kind: object = None) -> None:
        pass  # made from its block's kind, as every kind's rules are; these ask nothing of it

    def left_out(self, runtime: Runtime | None) -> str | None:
        return None

    def platforms(self) -> tuple[str, ...]:
        return ()

    def judge(self, block: Block, outcome: Outcome) -> Verdict:
        return judge_printed(block, outcome)

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        return False

    def follows_failures(self) -> bool:
        return False

    def stops_its_group(self) -> bool:
        return False

    def read_on_its_own(self) -> bool:
        return False

    def one_test_item(self) -> bool:
        return False

    def shows_its_outputs(self) -> bool:
        return False

    def stale_shown(self, verdict: Verdict) -> tuple[str, str]:
        return "block prints something else (show)", verdict.actual_text

    def cell(self) -> int | None:
        return None

    def ran_without(self) -> str:
        return ""

    def named(self, label: str) -> str:
        return f"block {label!r}"

    def drift_words(self) -> str | None:
        return None

    def written_where_it_is(self) -> bool:
        return False

    def outputs_place(self) -> CellPlace | None:
        return None
