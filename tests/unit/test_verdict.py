"""Outcome -> verdict: which actual text each expectation meets, and what counts as failure.

Fast unit tests on hand-built outcomes (what a worker reports); the builds in
other tests show real workers produce those outcomes.
"""

from __future__ import annotations

from dataclasses import replace

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.judge.matching import unified_diff
from sphinx_jaxcheck.judge.verdict import accepts, rules_of
from sphinx_jaxcheck.kinds import judge
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    CompareMode,
    FailureKind,
    Outcome,
    OutputMode,
    PageExamples,
    Problem,
    RaisedException,
    Status,
    Subtype,
    Verdict,
)

BODY_LINE = 10  # file line of the first body line


def block(*body: str, **options: object) -> Block:
    parsed = parse_body(body)
    given = BlockOptions(**options)  # type: ignore[arg-type]
    return Block(
        "doc",
        0,
        "/docs/doc.md",
        BODY_LINE,
        body,
        given,
        parsed.expectations,
        parsed.program("<b>", given),
        parsed.error,
        error_line=parsed.error_line,
    )


def test_matching_output_is_verified_and_keeps_the_seconds() -> None:
    verdict = judge(block("print(1)", "", "# 1"), Outcome(stdout="1\n", seconds=0.5))
    assert verdict == Verdict(Status.VERIFIED, seconds=0.5)


def test_a_bare_hash_expects_no_output_at_all() -> None:
    quiet = block("x = 1", "", "#")
    assert judge(quiet, Outcome(stdout="")).status is Status.VERIFIED
    loud = judge(block("print(1)", "", "#"), Outcome(stdout="1\n"))
    assert loud.status is Status.STALE
    (drift,) = loud.drifts
    assert (drift.actual, drift.line) == (("1",), BODY_LINE + 2)
    assert drift.diff == "--- expected\n+++ actual\n@@ -0,0 +1 @@\n+1"


def test_a_repl_statement_without_output_lines_expects_none() -> None:
    repl = block("x = 1", "", "# >>> x + 2")
    assert judge(repl, Outcome(examples=("",))).status is Status.VERIFIED
    verdict = judge(repl, Outcome(examples=("3\n",)))
    assert verdict.status is Status.STALE
    (drift,) = verdict.drifts
    assert (drift.expectation.expected, drift.actual, drift.line) == ((), ("3",), BODY_LINE + 2)
    assert verdict.actual_text == "3"


def test_each_repl_statement_meets_its_own_output() -> None:
    repl = block("x = 1", "", "# >>> x", "# 1", "# >>> x + 1", "# 2")
    assert judge(repl, Outcome(examples=("1\n", "2\n"))).status is Status.VERIFIED
    swapped = judge(repl, Outcome(examples=("2\n", "1\n")))
    assert [d.line for d in swapped.drifts] == [BODY_LINE + 2, BODY_LINE + 4]
    # A statement that did not run (an earlier one failed) met no output.
    assert judge(repl, Outcome(examples=("1\n",))).drifts[0].actual == ()


def test_output_no_expectation_covers_is_drift() -> None:
    inline_only = block("print(1)  # 1", "print(2)")
    verdict = judge(inline_only, Outcome(stdout="2\n", inline=((1, "1\n"),)))
    assert verdict.status is Status.STALE
    (drift,) = verdict.drifts
    assert drift.actual == ("2",) and drift.line == BODY_LINE + 1  # the last line of the block
    assert drift.note.startswith("the block printed output that no expectation covers")
    assert (
        drift.expectation.expected == () and drift.expectation.first == drift.expectation.stop == 2
    )
    # Blank output is no output.
    assert (
        judge(inline_only, Outcome(stdout="\n \n", inline=((1, "1\n"),))).status is Status.VERIFIED
    )


def test_repl_output_does_not_count_as_uncovered() -> None:
    repl = block("x = 1", "", "# >>> x", "# 1")
    assert judge(repl, Outcome(stdout="", examples=("1\n",))).status is Status.VERIFIED


def test_inline_prints_meet_their_own_output_by_first_line() -> None:
    body = ("print(", "    1)  # 1", "print(2)  # 2", "", "# 3")
    inline = block(*body, "")
    outcome = Outcome(stdout="3\n", inline=((1, "1\n"), (3, "2\n")))
    assert judge(inline, outcome).status is Status.VERIFIED
    stale = judge(inline, Outcome(stdout="3\n", inline=((1, "1\n"), (3, "5\n"))))
    (drift,) = stale.drifts
    assert (drift.line, drift.actual, drift.note) == (BODY_LINE + 2, ("5",), "")


def test_an_inline_print_that_now_writes_two_lines_says_so() -> None:
    verdict = judge(block("print('a')  # a"), Outcome(inline=((1, "a\nb\n"),)))
    (drift,) = verdict.drifts
    assert drift.note == (
        "the print now writes 2 lines, which an inline comment cannot hold; "
        "move its expected output into the trailing comment block by hand"
    )
    assert (
        judge(block("print('a')  # a"), Outcome(inline=((1, "\n"),)))
        .drifts[0]
        .note.startswith("the print now writes 0 lines")
    )


def test_trailing_drift_points_at_the_first_expected_line() -> None:
    verdict = judge(block("print(1)", "print(2)", "", "# 1", "# 3"), Outcome(stdout="1\n2\n"))
    (drift,) = verdict.drifts
    assert drift.line == BODY_LINE + 3
    assert drift.diff == unified_diff(("1", "3"), ("1", "2"))
    assert verdict.actual_text == "1\n2"


def test_no_expectation_and_no_output_or_ignored_output_is_unchecked() -> None:
    assert judge(block("x = 1"), Outcome(stdout="\n", seconds=2.0)) == Verdict(
        Status.NOT_COMPARED, seconds=2.0
    )
    # Output with no expectation at all is drift: nothing may print unchecked.
    assert judge(block("print(1)"), Outcome(stdout="1\n")).status is Status.STALE
    ignored = block("print(1)", "", "# 2", output=OutputMode.IGNORE)
    assert judge(ignored, Outcome(stdout="1\n")).status is Status.NOT_COMPARED


def test_skipped_and_not_run_blocks_are_skipped() -> None:
    assert judge(
        block("print(1)", "", "# 2", output=OutputMode.SKIP), Outcome(stdout="1\n")
    ) == Verdict(Status.SKIPPED)
    assert judge(block("print(1)", "", "# 2"), None) == Verdict(Status.SKIPPED)


def test_a_block_that_does_not_parse_is_an_error_at_its_line() -> None:
    broken = block("x = 1", "y = (", "", "# 1")
    verdict = judge(broken, Outcome(stdout="1\n"))
    assert verdict.status is Status.FAILED
    (problem,) = verdict.problems
    assert problem.subtype is Subtype.SYNTAX and problem.line == BODY_LINE + broken.error_line - 1
    assert problem.message == broken.error


def test_each_failure_kind_has_its_subtype() -> None:
    expected = {
        FailureKind.EXCEPTION: Subtype.ERROR,
        FailureKind.TIMEOUT: Subtype.TIMEOUT,
        FailureKind.CRASH: Subtype.CRASH,
        FailureKind.OUTPUT_LIMIT: Subtype.OUTPUT,
        FailureKind.OUT_OF_MEMORY: Subtype.MEMORY,
        FailureKind.NOT_RUN: Subtype.ERROR,
    }
    for kind, subtype in expected.items():
        verdict = judge(
            block("print(1)", "", "# 1"),
            Outcome(stdout="1\n", failure=kind, message="what", seconds=1.0),
        )
        what = (
            "the block raised an exception it does not expect:\nwhat"
            if kind is FailureKind.EXCEPTION
            else "what"
        )
        assert verdict == Verdict(
            Status.FAILED, problems=(Problem(subtype, what, BODY_LINE),), seconds=1.0
        )


def raised(matches: bool | None = True, problem: str | None = None) -> RaisedException:
    return RaisedException(
        "ValueError", "ValueError: no", "Traceback ...\nValueError: no", matches, problem
    )


def test_raises_compares_the_output_then_the_exception_line() -> None:
    expects = block(
        "print(1)", "raise ValueError('no')", "", "# 1", "# ValueError: no", raises="ValueError"
    )
    assert judge(expects, Outcome(stdout="1\n", exception=raised())).status is Status.VERIFIED
    other = judge(
        expects,
        Outcome(stdout="1\n", exception=RaisedException("ValueError", "ValueError: yes", "", True)),
    )
    assert other.drifts[0].actual == ("1", "ValueError: yes")


def test_raises_fails_when_nothing_or_something_else_was_raised() -> None:
    expects = block("print(1)", "", "# 1", raises="ValueError")
    none = judge(expects, Outcome(stdout="1\n"))
    assert none.problems == (
        Problem(
            Subtype.RAISES,
            ":raises: ValueError expects an exception, but the block raised none",
            BODY_LINE,
        ),
    )
    wrong = judge(expects, Outcome(stdout="1\n", exception=raised(matches=False)))
    assert wrong.problems == (
        Problem(
            Subtype.RAISES,
            ":raises: ValueError expects that exception (or a subclass), but the block raised "
            "ValueError:\nTraceback ...\nValueError: no",
            BODY_LINE,
        ),
    )
    unresolved = judge(
        expects, Outcome(stdout="1\n", exception=raised(matches=None, problem="no such class"))
    )
    assert unresolved.problems == (Problem(Subtype.RAISES, "no such class", BODY_LINE),)
    assert unresolved.status is Status.FAILED


def test_rules_follow_the_block_options() -> None:
    jaxpr = block("print(1)", compare=CompareMode.JAXPR, tolerance=1e-3)
    assert (rules_of(jaxpr).compare, rules_of(jaxpr).tolerance) == (CompareMode.JAXPR, 1e-3)
    # A tolerance changes the verdict: 1.0004 is within 1e-3 of 1.0.
    close = block("print(1.0004)", "", "# 1.0", tolerance=1e-3)
    assert judge(close, Outcome(stdout="1.0004\n")).status is Status.VERIFIED
    assert (
        judge(block("print(1.0004)", "", "# 1.0"), Outcome(stdout="1.0004\n")).status
        is Status.STALE
    )


def test_unified_diff_ignores_trailing_space_and_blank_edges() -> None:
    assert (
        unified_diff(["", "a  ", "b"], ["a", "c", ""])
        == "--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n a\n-b\n+c"
    )
    assert unified_diff(["a"], ["a "]) == ""


def test_a_drifted_example_keeps_what_doctest_compares_and_accepts_by_the_checks_rule() -> None:
    """What an example printed, exactly, and what it raised: an expected output read again is
    accepted as the check would accept it (doctest for a page's own examples)."""
    example = replace(block(">>> print('a')", "a"), kind=PageExamples())
    verdict = judge(example, Outcome(examples=("a\n\n",), example_errors=(None,)))
    (drift,) = verdict.drifts
    assert (drift.actual, drift.printed, drift.raised) == (("a",), "a\n\n", None)
    (expectation,) = example.expectations
    assert not accepts(example, expectation, drift)  # doctest compares the blank line
    written = parse_body((">>> print('a')", "a", "<BLANKLINE>"), doctest_only=True)
    assert accepts(example, written.expectations[0], drift)
    # A block's own rule ignores blank lines at the end.
    in_block = block(">>> print('a')", "a")
    assert accepts(in_block, in_block.expectations[0], drift)
    trailing = block("print(2)", "", "# 1")
    (stale,) = judge(trailing, Outcome(stdout="2\n")).drifts
    assert stale.printed is None
    assert not accepts(trailing, trailing.expectations[0], stale)
    assert accepts(trailing, replace(trailing.expectations[0], expected=("2",)), stale)


def test_an_example_differing_only_in_spaces_at_line_ends_shows_them() -> None:
    """Doctest compares the spaces ending a line and blank lines exactly; the usual diff
    drops both, so where only they differ it shows each line as a Python string."""
    example = replace(block(">>> print('b  ')", "b"), kind=PageExamples())
    (drift,) = judge(example, Outcome(examples=("b  \n",), example_errors=(None,))).drifts
    assert drift.diff == (
        "(only spaces at line ends or blank lines differ; lines shown as Python strings)\n"
        "--- expected\n+++ actual\n@@ -1,2 +1,2 @@\n-'b'\n+'b  '\n ''"
    )
    # Where other text differs too, the usual diff.
    (other,) = judge(example, Outcome(examples=("c  \n",), example_errors=(None,))).drifts
    assert other.diff == "--- expected\n+++ actual\n@@ -1 +1 @@\n-b\n+c"
