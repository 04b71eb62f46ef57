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

from ..expect.docstrings import docstring_of
from ..model import Block, ExpectationKind, Status, Verdict

STATUSES = (
    Status.VERIFIED.value,
    Status.STALE.value,
    Status.FAILED.value,
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
    docstring: str | None = None  # the docstring it is in (``pkg.mod.func``); None on a page


def example_verdicts(block: Block, verdict: Verdict | None) -> list[ExampleVerdict]:
    """The verdict of each ``>>>`` example of a block, in order."""
    drifted = {d.expectation for d in verdict.drifts} if verdict else set()
    docstring = docstring_of(block)
    found = []
    for expectation in block.expectations:
        if expectation.kind not in (ExpectationKind.DOCTEST, ExpectationKind.REPL):
            continue
        if expectation.skip or verdict is None or verdict.status is Status.SKIPPED:
            status = Status.SKIPPED
        elif verdict.status is Status.OTHER_SHARD:
            status = Status.OTHER_SHARD  # its shard's report has it
        elif expectation in verdict.failed_examples:
            status = Status.FAILED
        elif verdict.status is Status.FAILED and not verdict.failed_examples:
            status = Status.FAILED  # the whole block failed
        elif expectation in drifted:
            status = Status.STALE
        else:
            status = Status.VERIFIED
        found.append(
            ExampleVerdict(
                block.path,
                block.file_line(expectation.statement_line),
                block.label,
                status.value,
                docstring,
            )
        )
    return found


def all_examples(checked: Iterable[tuple[Block, Verdict | None]]) -> list[ExampleVerdict]:
    """The examples of every block, in order."""
    return [example for block, verdict in checked for example in example_verdicts(block, verdict)]


@dataclass(frozen=True)
class Tally:
    """Blocks and ``>>>`` examples, counted as every progress line and summary counts them:
    a ``jaxcheck`` block is one block, every example (a page's, a docstring's, a block's
    ``# >>>`` statement) one example."""

    blocks: int = 0
    examples: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.blocks + other.blocks, self.examples + other.examples)

    @property
    def units(self) -> int:
        """Blocks and examples together, as a progress display counts them."""
        return self.blocks + self.examples

    @property
    def what(self) -> str:
        """What is counted: ``blocks``, ``examples``, or ``blocks and examples``."""
        if self.blocks and self.examples:
            return "blocks and examples"
        return "examples" if self.examples else "blocks"

    def of(self, whole: Tally) -> str:
        """``3 of 5 block(s) and 2 of 2 `>>>` example(s)``, naming only what ``whole`` has
        (blocks when it has neither)."""
        parts = []
        if whole.blocks or not whole.examples:
            parts.append(f"{self.blocks} of {whole.blocks} block(s)")
        if whole.examples:
            parts.append(f"{self.examples} of {whole.examples} `>>>` example(s)")
        return " and ".join(parts)

    def __str__(self) -> str:
        parts = [f"{self.blocks} block(s)"] if self.blocks or not self.examples else []
        if self.examples:
            parts.append(f"{self.examples} `>>>` example(s)")
        return " and ".join(parts)


def tally_of(blocks: Iterable[Block]) -> Tally:
    """How many blocks and examples these are."""
    found = Tally()
    for block in blocks:
        examples = sum(
            1
            for expectation in block.expectations
            if expectation.kind in (ExpectationKind.DOCTEST, ExpectationKind.REPL)
        )
        found += Tally(0 if block.doctest_style else 1, examples)
    return found


def describe_examples(examples: Iterable[ExampleVerdict]) -> str:
    """``62 example(s): 54 verified, 8 skipped``; empty when there are none."""
    counts = Counter(example.status for example in examples)
    total = sum(counts.values())
    if not total:
        return ""
    parts = ", ".join(f"{counts[status]} {status}" for status in STATUSES if counts[status])
    return f"{total} `>>>` example(s): {parts}"
