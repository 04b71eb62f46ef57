"""Every ``>>>`` example with its own verdict, for reports and summaries.

A block's verdict covers all its examples; here each example (a page's own,
a plain-doctest body's, or a ``# >>>`` statement of a block) gets one of
the words a block's status uses: ``verified``, ``stale``, ``failed`` or
``skipped`` (``+SKIP``, or its block was not run). Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from ..model import Block, ExpectationKind, Status, Verdict

STATUSES = (
    Status.VERIFIED.value,
    Status.DRIFT.value,
    Status.ERROR.value,
    Status.SKIPPED.value,
    Status.OTHER_SHARD.value,
)


@dataclass(frozen=True)
class ExampleVerdict:
    """One ``>>>`` example: where its prompt is, its block, and how it fared."""

    path: str
    line: int
    block: str
    status: str


def example_verdicts(block: Block, verdict: Verdict | None) -> list[ExampleVerdict]:
    """The verdict of each ``>>>`` example of a block, in order."""
    drifted = {d.expectation for d in verdict.drifts} if verdict else set()
    found = []
    for expectation in block.expectations:
        if expectation.kind not in (ExpectationKind.DOCTEST, ExpectationKind.REPL):
            continue
        if expectation.skip or verdict is None or verdict.status is Status.SKIPPED:
            status = Status.SKIPPED
        elif verdict.status is Status.OTHER_SHARD:
            status = Status.OTHER_SHARD  # its shard's report has it
        elif expectation in verdict.failed_examples:
            status = Status.ERROR
        elif verdict.status is Status.ERROR and not verdict.failed_examples:
            status = Status.ERROR  # the whole block failed
        elif expectation in drifted:
            status = Status.DRIFT
        else:
            status = Status.VERIFIED
        found.append(
            ExampleVerdict(
                block.path, block.file_line(expectation.statement_line), block.label, status.value
            )
        )
    return found


def all_examples(checked: Iterable[tuple[Block, Verdict | None]]) -> list[ExampleVerdict]:
    """The examples of every block, in order."""
    return [example for block, verdict in checked for example in example_verdicts(block, verdict)]


def describe_examples(examples: Iterable[ExampleVerdict]) -> str:
    """``62 example(s): 54 verified, 8 skipped``; empty when there are none."""
    counts = Counter(example.status for example in examples)
    total = sum(counts.values())
    if not total:
        return ""
    parts = ", ".join(f"{counts[status]} {status}" for status in STATUSES if counts[status])
    return f"{total} `>>>` example(s): {parts}"
