"""Problems to report, with their warning subtypes, and the queries that list them; pure.

Every problem jaxcheck finds becomes a :class:`Finding`; the Sphinx adapter
logs each as a warning with ``type="jaxcheck"`` and the subtype, so users can
silence a kind with ``suppress_warnings = ["jaxcheck.timeout"]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from ..model import Block, Drift, ExpectationKind, Status, Subtype, Verdict

# Why ``jaxcheck update`` must not rewrite a block's drift, or None where it may: the adapters
# pass the decision of ``rewrite.places``, which knows where update writes.
Refusal = Callable[[Block, Drift], str | None]


class Reported(Protocol):
    """What a finding asks of its block's kind (every kind's rules give it: the callers pass
    :func:`..kinds.rules_of`'s, which this stage, under it, does not import)."""

    def named(self, label: str) -> str:
        """How a finding's message names its block, given its label (a notebook cell by its
        place, any other block as ``block 'label'``)."""

    def drift_words(self) -> str | None:
        """What its drifted output is, in words, where its kind says (a text notebook's cell:
        the output block after it); None: as the drifted expectation's kind says."""


@dataclass(frozen=True)
class Finding:
    """One problem, located at a real file and line."""

    subtype: Subtype
    message: str
    path: str
    line: int
    docname: str = ""
    is_drift: bool = False  # drift counts separately from errors in summaries
    updatable: bool = False  # drift that ``jaxcheck update`` may rewrite (nothing refuses it)
    refusal: str | None = None  # for a drift it may not: why
    block: str | None = None  # the label of its block; None for a problem found while reading

    @property
    def location(self) -> str:
        """``file:line`` as reports print it."""
        return f"{self.path}:{self.line}"


def own_refusal(block: Block, drift: Drift) -> str | None:
    """What a block and its drift say against a rewrite themselves, wherever their file is."""
    return drift.note or block.update_refusal or None


def findings_of(
    block: Block, verdict: Verdict, kind: Reported, refusal: Refusal = own_refusal
) -> list[Finding]:
    """The problems a verdict reports, as located findings (``kind``: the block's kind's
    rules); a drift says why update will not rewrite it (``refusal``), or that it will.

    A notebook cell that failed after an earlier one failed has no finding of its own: the
    earlier one's lists it."""
    if verdict.after:
        return []
    found = [
        Finding(
            problem.subtype,
            f"{kind.named(block.label)}: {problem.message}",
            block.path,
            problem.line,
            block.docname,
            block=block.label,
        )
        for problem in verdict.problems
    ]
    if verdict.followers and found:
        listed = "\n".join(f"  {follower}" for follower in verdict.followers)
        found[-1] = replace(
            found[-1],
            message=f"{found[-1].message}\n{len(verdict.followers)} later cell(s) failed after "
            f"it (the shell went on, as a kernel does; fix this cell first):\n{listed}",
        )
    for drift in verdict.drifts:
        what = {
            ExpectationKind.TRAILING: "the expected output at the end of the block",
            ExpectationKind.INLINE: "the output of this print",
            ExpectationKind.REPL: "the output of this `# >>>` statement",
            ExpectationKind.DOCTEST: "the output of this `>>>` statement",
            ExpectationKind.CELL_OUTPUTS: "the outputs it stores",
        }[drift.expectation.kind]
        what = kind.drift_words() or what
        if any(example.mode == "exec" for example in block.program.examples):
            what = "the output of this testcode (its testoutput)"
        # The last line closes the diff, so a tag appended to the message (Sphinx's
        # "[jaxcheck.drift]") cannot be read as part of the output.
        why = refusal(block, drift)
        ending = why or "`jaxcheck update` accepts the actual output"
        verb = "are" if what == "the outputs it stores" else "is"
        message = f"{kind.named(block.label)}: {what} {verb} stale:\n{drift.diff}\n({ending})"
        found.append(
            Finding(
                Subtype.DRIFT,
                message,
                block.path,
                drift.line,
                block.docname,
                is_drift=True,
                updatable=not why,
                refusal=why,
                block=block.label,
            )
        )
    return found


def in_report_order(findings: Iterable[Finding]) -> list[Finding]:
    """Findings as reports list them: by document, then file, then line (a block's problem
    found while reading sits among the others, not before them)."""
    return sorted(findings, key=lambda f: (f.docname, f.path, f.line))


def tally(verdicts: Sequence[Verdict]) -> dict[Status, int]:
    """How many blocks have each status."""
    counts = dict.fromkeys(Status, 0)
    for verdict in verdicts:
        counts[verdict.status] += 1
    return counts
