"""Matching at its edges: doctest's own checker for a page's examples, ``...`` bounds,
tracebacks, tolerances inside brackets, jaxprs with constants, printed CRLF."""

from __future__ import annotations

import doctest

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.judge.matching import MatchRules, ellipsis_match, split_lines, texts_match
from sphinx_jaxcheck.judge.verdict import rules_of
from sphinx_jaxcheck.kinds import judge
from sphinx_jaxcheck.model import Block, BlockOptions, CompareMode, Outcome, PageExamples, Status

TRACEBACK = "Traceback (most recent call last):"


def page_example(directive: str = "") -> Block:
    """A page's own ``>>>`` example (not a jaxcheck block), with an optional doctest directive."""
    body = (f">>> print('a   b'){directive}", "a b")
    parsed = parse_body(body, doctest_only=True)
    return Block(
        "p",
        0,
        "/p.md",
        1,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<p>"),
        kind=PageExamples(),
    )


def test_a_page_example_matches_by_its_own_doctest_flags() -> None:
    loose = page_example("  # doctest: +NORMALIZE_WHITESPACE")
    (expectation,) = loose.expectations
    assert texts_match(["a b"], ["a   b"], rules_of(loose, expectation))
    assert not texts_match(["a b"], ["a   b"], rules_of(page_example()))
    dots = page_example("  # doctest: +ELLIPSIS")
    assert texts_match(["a...z"], ["abcz"], rules_of(dots, dots.expectations[0]))
    assert not texts_match(
        ["a...z"], ["abcz"], rules_of(page_example(), page_example().expectations[0])
    )
    # Without a directive: doctest's defaults, under which True prints where 1 is expected.
    assert texts_match(["1"], ["True"], rules_of(page_example()))
    # Memory addresses are compared as written, as doctest does.
    assert not texts_match(
        ["<f at 0x7f0000aaaa00>"], ["<f at 0x7f0000bbbb00>"], rules_of(page_example())
    )
    assert texts_match(["<f at 0x7f0000aaaa00>"], ["<f at 0x7f0000bbbb00>"], MatchRules())


def test_doctest_flags_decide_when_given() -> None:
    rules = MatchRules(ellipsis=False, addresses=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert texts_match(["a b", "c"], ["a    b", "c"], rules)
    assert not texts_match(["a b", "c"], ["a    b", "d"], rules)
    assert not texts_match(
        ["a b"], ["a    b"], MatchRules(ellipsis=False, addresses=False, optionflags=0)
    )


def test_ellipsis_pieces_stay_between_head_and_tail() -> None:
    assert not ellipsis_match("a...c", "xbc")  # the head alone is wrong
    assert not ellipsis_match("a...c", "abx")
    assert not ellipsis_match("a...b...b", "ab")  # the middle piece would overlap the tail
    assert ellipsis_match("...x...", "xyz")  # a piece found at the very start
    assert ellipsis_match("...x...", "yzx")


def test_tracebacks_compare_their_exception_lines_only() -> None:
    stack = [TRACEBACK, '  File "<b>", line 1, in <module>', "ValueError: x"]
    assert texts_match(stack, ["ValueError: x"], MatchRules())
    assert texts_match(
        [TRACEBACK, "ValueError: x"], [TRACEBACK, "  ...", "ValueError: x"], MatchRules()
    )
    assert not texts_match([TRACEBACK, "ValueError: x"], [TRACEBACK, "ValueError: y"], MatchRules())
    assert texts_match(
        [TRACEBACK, "\tFile x", "ValueError: x"],
        [TRACEBACK, "\tFile y", "ValueError: x"],
        MatchRules(),
    )
    assert not texts_match(
        [TRACEBACK, "  File x"], [TRACEBACK, "  File y", "ValueError: x"], MatchRules()
    )


def test_a_tolerance_ignores_padding_inside_brackets() -> None:
    rules = MatchRules(tolerance=1e-3)
    assert texts_match(["[1.  2.5]"], ["[ 1.0001  2.5 ]"], rules)
    assert texts_match(["(1.5, 2)"], ["( 1.5001, 2 )"], rules)
    assert not texts_match(["[1.  2.5]"], ["[ 1.1  2.5 ]"], rules)
    assert not texts_match(["[1.]"], ["[1."], rules)  # brackets still count
    # optax's perturbations notebook: NumPy pads the number printed shorter, before its comma.
    stored = ["Array([ 0.27816886,  0.34292352, -0.5273831 ], dtype=float32)"]
    fresh = ["Array([ 0.27816886,  0.3429235 , -0.5273831 ], dtype=float32)"]
    assert texts_match(stored, fresh, MatchRules(tolerance=1e-6))
    assert not texts_match(stored, fresh, MatchRules())
    assert not texts_match(["(1, 2)"], ["(1; 2)"], rules)  # commas still count


def test_jaxprs_with_constants_match_up_to_renaming_only() -> None:
    rules = MatchRules(compare=CompareMode.JAXPR)
    want = "{ lambda a:f32[3]; b:f32[3]. let c:f32[3] = mul a b in (c,) }"
    assert texts_match(
        [want], ["{ lambda x:f32[3]; y:f32[3]. let z:f32[3] = mul x y in (z,) }"], rules
    )
    # Which variables are constants is part of the jaxpr.
    assert not texts_match(
        [want], ["{ lambda ; x:f32[3] y:f32[3]. let z:f32[3] = mul x y in (z,) }"], rules
    )
    assert not texts_match(
        [want], ["{ lambda x:f32[3]; y:f32[3]. let z:f32[3] = mul y x in (z,) }"], rules
    )
    # A dropped result (_) is not a variable: it matches no name.
    dropped = "{ lambda ; a:f32[]. let _:f32[] = sin a; b:f32[] = cos a in (b,) }"
    assert texts_match(
        [dropped], ["{ lambda ; x:f32[]. let _:f32[] = sin x; y:f32[] = cos x in (y,) }"], rules
    )
    assert not texts_match(
        [dropped], ["{ lambda ; x:f32[]. let y:f32[] = sin x; z:f32[] = cos x in (z,) }"], rules
    )


def test_printed_crlf_lines_are_lines() -> None:
    assert split_lines("a\r\nb\nc") == ["a", "b", "c"]
    body = ("print('1\\r\\n2')", "", "# 1", "# 2")
    parsed = parse_body(body)
    block = Block(
        "d", 0, "/d.md", 1, body, BlockOptions(), parsed.expectations, parsed.program("<b>")
    )
    assert judge(block, Outcome(stdout="1\r\n2\r\n")).status is Status.VERIFIED
