"""The alignment behind ``jaxcheck update``: as good as trying every run, work at most
quadratic, bounded.

Work is counted in steps (never timed): doubling both texts at most quadruples
it, and past the limit the alignment stops with ``AlignmentTooLargeError``.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sphinx_jaxcheck.judge.matching import MatchRules, normalize, texts_match
from sphinx_jaxcheck.rewrite.alignment import AlignmentTooLargeError, Steps, align, refreshed_lines

PLAIN = MatchRules()
PIECES = st.sampled_from(["a", "b", "ab", "...", " ", "0x1234567", "x"])
LINE = st.lists(PIECES, max_size=4).map("".join)


def kept(aligned: list[tuple[str, int | None]]) -> int:
    return sum(origin is not None for _, origin in aligned)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=6), st.lists(LINE.map(str.rstrip), max_size=7))
@example(["a...b"], ["a", "b"])
@example(["...", "b"], ["a", "b"])
@example(["ab...ba"], ["aba"])
@example(["a...a...a"], ["aa", "a"])
def test_the_fast_search_keeps_as_many_lines_as_trying_every_run(
    want: list[str], got: list[str]
) -> None:
    got = normalize(got)
    fast = align(want, got, PLAIN, Steps())
    slow = align(want, got, PLAIN, Steps(), fast=False)
    assert kept(fast) == kept(slow)
    assert texts_match([text for text, _ in refreshed_lines(want, got, PLAIN)], got, PLAIN)


def steps_for(lines: int) -> int:
    """Expected output of `lines` lines with `...` runs against an output of as many lines,
    all different."""
    want = [f"head {n} ... tail" if n % 3 else "..." for n in range(lines)]
    got = [f"head {n} middle {n} tail!" for n in range(lines)]
    steps = Steps(limit=10**9)
    refreshed_lines(want, got, PLAIN, steps)
    return steps.used


def test_work_grows_at_most_quadratically_in_lines() -> None:
    small, large = steps_for(100), steps_for(200)
    assert large <= 4.5 * small, (small, large)
    assert steps_for(400) <= 4.5 * large


def test_three_thousand_lines_against_a_few_ellipsis_lines_take_few_steps() -> None:
    want = ["start", "...", "line 1500 of 3000", "...", "end?"]
    got = ["start", *(f"line {n} of 3000" for n in range(3000)), "end!"]
    steps = Steps()
    aligned = refreshed_lines(want, got, PLAIN, steps)
    assert kept(aligned) == 4 and texts_match([text for text, _ in aligned], got, PLAIN)
    assert steps.used < 20 * 5 * 3002


def test_past_the_limit_the_alignment_stops_with_an_error_not_a_hang() -> None:
    want = [f"... {n} ..." for n in range(3000)]
    got = [f"{n} changed" for n in range(3000)]
    steps = Steps(limit=100_000)
    with pytest.raises(AlignmentTooLargeError, match="more than 100,000 steps"):
        refreshed_lines(want, got, PLAIN, steps)
    assert steps.used <= 100_000 + 3001 * 3001  # stopped at the first count past the limit


def test_with_a_tolerance_every_run_is_tried_and_counted() -> None:
    rules = MatchRules(tolerance=1e-3)
    want = ["x = 1.0", "...", "y = 2.0"]
    got = ["x = 1.00001", *(f"z{chr(97 + n % 26)}" for n in range(200)), "y = 2.5"]
    steps = Steps(limit=1_000)
    with pytest.raises(AlignmentTooLargeError):
        refreshed_lines(want, got, rules, steps)
    assert texts_match([t for t, _ in refreshed_lines(want, got, rules)], got, rules)
