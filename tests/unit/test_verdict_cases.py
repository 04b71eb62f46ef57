"""Verdicts in full: the drift for output no expectation covers, skipped blocks, the stale text."""

from __future__ import annotations

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import judge
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    Drift,
    Expectation,
    ExpectationKind,
    Outcome,
    Status,
    Verdict,
)


def block(*body: str) -> Block:
    parsed = parse_body(body)
    assert parsed.error is None
    return Block(
        "d", 0, "/d.md", 10, body, BlockOptions(), parsed.expectations, parsed.program("<b>")
    )


def test_output_no_expectation_covers_is_a_drift_at_the_end_of_the_block() -> None:
    verdict = judge(block("print(1)", "x = 2"), Outcome(stdout="1\n", seconds=0.5))
    end = Expectation(ExpectationKind.TRAILING, (), 2, 2, statement_line=2)
    assert verdict == Verdict(
        Status.STALE,
        drifts=(
            Drift(
                end,
                ("1",),
                "--- expected\n+++ actual\n@@ -0,0 +1 @@\n+1",
                11,
                "the block printed output that no expectation covers; add a trailing block of `# ` "
                "comments for it (jaxcheck update does not guess where it goes)",
            ),
        ),
        actual_text="1",
        seconds=0.5,
    )


def test_a_block_whose_examples_are_all_skipped_is_skipped_with_its_time() -> None:
    skipped = block(">>> x  # doctest: +SKIP", "2")
    assert judge(skipped, Outcome(seconds=0.25)) == Verdict(Status.SKIPPED, seconds=0.25)


def test_the_stale_text_holds_each_drift_on_its_own_lines() -> None:
    stale = block("print(1)  # 2", "print(3)  # 4")
    verdict = judge(stale, Outcome(inline=((1, "1\n"), (2, "3\n"))))
    assert verdict.status is Status.STALE and verdict.actual_text == "1\n3"
