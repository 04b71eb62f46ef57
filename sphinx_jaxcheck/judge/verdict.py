"""Compare what a block really did with what its comments expect: Outcome -> Verdict.

Pure: the matching rules live in ``matching``; this module decides which actual
text each expectation is compared with, and what counts as failure.
"""

from __future__ import annotations

import difflib
import doctest
import warnings
from dataclasses import replace

from ..model import (
    Block,
    CompareMode,
    Drift,
    Expectation,
    ExpectationKind,
    FailureKind,
    Outcome,
    OutputMode,
    Problem,
    Status,
    Subtype,
    Verdict,
)
from .jaxpr_layout import in_written_layout
from .matching import (
    MatchRules,
    example_passes,
    normalize,
    split_lines,
    texts_match,
    unified_diff,
)

FAILURE_SUBTYPES = {
    FailureKind.EXCEPTION: Subtype.ERROR,
    FailureKind.TIMEOUT: Subtype.TIMEOUT,
    FailureKind.CRASH: Subtype.CRASH,
    FailureKind.OUTPUT_LIMIT: Subtype.OUTPUT,
    FailureKind.OUT_OF_MEMORY: Subtype.MEMORY,
    FailureKind.NOT_RUN: Subtype.ERROR,
    FailureKind.THREAD_OUTPUT: Subtype.OUTPUT,
}


def _whitespace_diff(want: str, printed: str) -> str:
    """The diff of two outputs whose lines differ only in the spaces ending them or in
    blank lines, which doctest compares exactly: each line shown as a Python string, so
    that what differs can be seen."""
    lines = difflib.unified_diff(
        [repr(line) for line in split_lines(want)],
        [repr(line) for line in split_lines(printed)],
        "expected",
        "actual",
        lineterm="",
    )
    return "(only spaces at line ends or blank lines differ; lines shown as Python strings)\n" + (
        "\n".join(lines)
    )


def rules_of(block: Block, expectation: Expectation | None = None) -> MatchRules:
    """The matching rules a block's options ask for (for one expectation of it).

    A page's own examples follow doctest: ``...`` is text unless ELLIPSIS is in force.
    """
    if block.doctest_style:
        flags = expectation.optionflags if expectation is not None else 0
        return MatchRules(
            ellipsis=bool(flags & doctest.ELLIPSIS), addresses=False, optionflags=flags
        )
    return MatchRules(block.options.compare, block.options.tolerance)


def judge_unrun(block: Block, outcome: Outcome | None) -> Verdict | None:
    """The verdict on a block with nothing of its own to judge: a problem found while reading
    it, not run (None, or skipped by its options), or failed to run; None when it ran (its
    kind judges it then: ``kinds.judge``)."""
    if block.error:
        where = block.file_line(block.error_line)
        return Verdict(Status.FAILED, problems=(Problem(block.error_subtype, block.error, where),))
    if block.options.output is OutputMode.SKIP or outcome is None:
        return Verdict(Status.SKIPPED)
    failure = _failure(block, outcome)
    if failure:
        return Verdict(Status.FAILED, problems=(failure,), seconds=outcome.seconds)
    return None


def judge_printed(block: Block, outcome: Outcome) -> Verdict:
    """The verdict on a block that ran as part of a script: what it printed against what its
    comments or ``>>>`` examples expect."""
    printed = bool(normalize(split_lines(outcome.stdout)))
    if block.options.output is OutputMode.IGNORE or not (block.expectations or printed):
        # Nothing to compare; output without any expectation is drift (see _drifts).
        return Verdict(Status.NOT_COMPARED, seconds=outcome.seconds)
    if block.expectations and all(e.skip for e in block.expectations):
        return Verdict(Status.SKIPPED, seconds=outcome.seconds)
    drifts = tuple(_drifts(block, outcome))
    # An example that does not compile fails (as in doctest); update could not fix it.
    failed = tuple(
        (drift.expectation, problem)
        for drift in drifts
        if (problem := _uncompilable(block, drift)) is not None
    )
    drifts = tuple(d for d in drifts if d.expectation not in {e for e, _ in failed})
    status = Status.FAILED if failed else Status.STALE if drifts else Status.VERIFIED
    actual = "\n".join("\n".join(d.actual) for d in drifts)
    return Verdict(
        status,
        drifts=drifts,
        problems=tuple(problem for _, problem in failed),
        actual_text=actual,
        seconds=outcome.seconds,
        failed_examples=tuple(expectation for expectation, _ in failed),
    )


def _uncompilable(block: Block, drift: Drift) -> Problem | None:
    """The failure of a ``>>>`` example whose source does not compile, or None."""
    expectation = drift.expectation
    if expectation.kind not in (ExpectationKind.DOCTEST, ExpectationKind.REPL):
        return None
    mode = next(
        (e.mode for e in block.program.examples if e.source == expectation.source), "single"
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are the worker's to show
            compile(expectation.source, block.program.filename, mode, dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        first = expectation.source.splitlines()[0] if expectation.source else ""
        why = error.msg if isinstance(error, SyntaxError) else str(error)
        return Problem(
            Subtype.SYNTAX,
            f"the `>>>` example {first!r} is not valid Python ({why}): doctest fails it too, "
            "and update cannot give it an output; write it as Python, or mark it "
            "`# doctest: +SKIP` if it only illustrates (pseudo-code, an IPython command)",
            drift.line,
        )
    return None


def _failure(block: Block, outcome: Outcome) -> Problem | None:
    line = block.file_line(1)
    if outcome.failure is not None:
        what = outcome.message
        if outcome.failure is FailureKind.EXCEPTION:
            what = f"the block raised an exception it does not expect:\n{outcome.message}"
        return Problem(FAILURE_SUBTYPES[outcome.failure], what, line)
    raises = block.options.raises
    if raises is None:
        return None
    raised = outcome.exception
    if raised is None:
        return Problem(
            Subtype.RAISES,
            f":raises: {raises} expects an exception, but the block raised none",
            line,
        )
    if raised.raises_problem:
        return Problem(Subtype.RAISES, raised.raises_problem, line)
    if not raised.matches_raises:
        return Problem(
            Subtype.RAISES,
            f":raises: {raises} expects that exception (or a subclass), but the block "
            f"raised {raised.type_name}:\n{raised.traceback}",
            line,
        )
    return None


def _drifts(block: Block, outcome: Outcome) -> list[Drift]:
    rules = rules_of(block)
    drifts = []
    examples = iter(outcome.examples)
    errors = iter(outcome.example_errors)
    has_trailing = False
    for expectation in block.expectations:
        if expectation.skip:
            continue
        if expectation.kind is ExpectationKind.TRAILING:
            has_trailing = True
            actual = _trailing_actual(block, outcome)
        elif expectation.kind is ExpectationKind.INLINE:
            actual = split_lines(outcome.inline_output(expectation.statement_line))
        else:
            printed, raised = next(examples, ""), next(errors, None)
            actual = split_lines(printed)
            if expectation.kind is ExpectationKind.DOCTEST or expectation.want:
                if not _doctest_holds(block, expectation, printed, raised, rules):
                    drift = _drift(block, expectation, actual)
                    diff = drift.diff or _whitespace_diff(expectation.want, printed)
                    drifts.append(replace(drift, diff=diff, printed=printed, raised=raised))
                continue
        if not texts_match(expectation.expected, actual, rules):
            drifts.append(_drift(block, expectation, actual))
    if not has_trailing and normalize(split_lines(outcome.stdout)):
        # Output that no comment expects: strict, or drift would hide here.
        end = len(block.body)
        stray = Expectation(ExpectationKind.TRAILING, (), end, end, statement_line=end)
        drift = _drift(block, stray, split_lines(outcome.stdout))
        note = (
            "the block printed output that no expectation covers; add a trailing block "
            "of `# ` comments for it (jaxcheck update does not guess where it goes)"
        )
        drifts.append(Drift(drift.expectation, drift.actual, drift.diff, drift.line, note))
    return drifts


def accepts(block: Block, expectation: Expectation, drift: Drift) -> bool:
    """Whether ``expectation`` (an expected output as a reader found it, such as a rewritten
    one read again) accepts the output ``drift`` records, by the rule :func:`judge` applies."""
    rules = rules_of(block)
    if drift.printed is not None and (
        expectation.kind is ExpectationKind.DOCTEST or expectation.want
    ):
        return _doctest_holds(block, expectation, drift.printed, drift.raised, rules)
    return texts_match(expectation.expected, drift.actual, rules)


def _doctest_holds(
    block: Block, expectation: Expectation, printed: str, raised: str | None, rules: MatchRules
) -> bool:
    """A ``>>>`` example's verdict: doctest's (with pytest's flags).

    In a ``jaxcheck`` block the block's own matching rules may accept it too.
    """
    # With an exception raised, doctest compares the exception only (printed text is not read).
    if example_passes(
        expectation.want, expectation.exc_msg, printed, raised, expectation.optionflags
    ):
        return True
    if block.doctest_style:
        return False
    return texts_match(expectation.expected, split_lines(printed), rules)


def _trailing_actual(block: Block, outcome: Outcome) -> list[str]:
    lines = split_lines(outcome.stdout)
    if block.options.raises and outcome.exception is not None:
        lines = normalize(lines) + split_lines(outcome.exception.summary)
    return lines


def _drift(block: Block, expectation: Expectation, actual: list[str]) -> Drift:
    if expectation.kind is ExpectationKind.TRAILING and expectation.expected:
        line = block.file_line(expectation.first + 1)
    else:
        line = block.file_line(expectation.statement_line)
    note = ""
    got = normalize(actual)
    if expectation.kind is ExpectationKind.INLINE and len(got) != 1:
        note = (
            f"the print now writes {len(got)} lines, which an inline comment cannot hold; "
            "move its expected output into the trailing comment block by hand"
        )
    # A jaxpr compares up to whitespace: the diff shows only what changed in the written layout.
    shown = (
        in_written_layout(expectation.expected, got)
        if block.options.compare is CompareMode.JAXPR and not block.doctest_style
        else got
    )
    return Drift(expectation, tuple(got), unified_diff(expectation.expected, shown), line, note)
