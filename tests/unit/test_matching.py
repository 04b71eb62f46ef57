"""Matching rules (guide/matching) and the minimal refresh used by update."""

from __future__ import annotations

import re

from sphinx_jaxcheck.judge.matching import (
    MatchRules,
    canonical_jaxpr,
    ellipsis_match,
    texts_match,
)
from sphinx_jaxcheck.model import CompareMode
from sphinx_jaxcheck.rewrite.alignment import refreshed_lines

TEXT = MatchRules()


def refreshed(expected: list[str], actual: list[str], rules: MatchRules) -> list[str]:
    """The new expected lines update writes, without the indexes of the lines they keep."""
    return [text for text, _ in refreshed_lines(expected, actual, rules)]


def test_trailing_whitespace_and_surrounding_blank_lines_do_not_matter() -> None:
    assert texts_match(["", "a  ", "b"], ["a", "b   ", "", ""], TEXT)
    assert not texts_match(["a", "", "b"], ["a", "b"], TEXT)


def test_ellipsis_matches_within_and_across_lines() -> None:
    assert texts_match(["jax ... on cpu"], ["jax 0.10.2 on cpu"], TEXT)
    assert texts_match(["start", "...", "end"], ["start", "x", "y", "end"], TEXT)
    assert not texts_match(["start ... end"], ["start x"], TEXT)
    assert ellipsis_match("a...a", "aa") is True
    assert ellipsis_match("aa...aa", "aaa") is False


def test_memory_addresses_compare_equal() -> None:
    assert texts_match(["<object at 0x7f0000000000>"], ["<object at 0x7fa81c2b3d90>"], TEXT)


def test_tolerance_compares_numbers_relatively() -> None:
    rules = MatchRules(tolerance=1e-4)
    assert texts_match(["2.71828"], ["2.718281828459045"], rules)
    assert not texts_match(["2.7"], ["2.718281828459045"], rules)
    assert not texts_match(["2.71828"], ["2.718281828459045"], TEXT)
    assert texts_match(["[1.0 2.0]"], ["[1.00001 1.99999]"], rules)
    # Array column padding follows the digits; with a tolerance it does not count.
    assert texts_match(
        ["[ 1.        2.7182817 7.389056 ]"], ["[1.        2.718282  7.3890557]"], rules
    )
    assert not texts_match(["[1. 2.7182817]"], ["[1. 2.7182817 7.3]"], rules)


def test_jaxpr_comparison_is_up_to_consistent_renaming_and_whitespace() -> None:
    rules = MatchRules(CompareMode.JAXPR)
    actual = ["{ lambda ; a:f32[] b:f32[]. let c:f32[] = mul a b; d:f32[] = add c a in (d,) }"]
    assert texts_match(
        ["{ lambda ; x:f32[] y:f32[]. let t:f32[] = mul x y; u:f32[] = add t x in (u,) }"],
        actual,
        rules,
    )
    multi = [
        "{ lambda ; x:f32[] y:f32[]. let",
        "    t:f32[] = mul x y",
        "    u:f32[] = add t x",
        "  in (u,) }",
    ]
    assert texts_match(multi, actual, rules)
    # Not consistent: y used where a would be.
    assert not texts_match(
        ["{ lambda ; x:f32[] y:f32[]. let t:f32[] = mul y x; u:f32[] = add t x in (u,) }"],
        actual,
        rules,
    )
    assert canonical_jaxpr("{ lambda a:f32[]; b:f32[]. let  in (a,) }") != canonical_jaxpr(
        "{ lambda ; a:f32[] b:f32[]. let  in (a,) }"
    )


def test_doctest_tracebacks_compare_only_the_exception_lines() -> None:
    expected = ["Traceback (most recent call last):", "    ...", "ValueError: bad"]
    actual = ["Traceback (most recent call last):", '  File "x", line 1', "ValueError: bad"]
    assert texts_match(expected, actual, TEXT)
    assert not texts_match(expected, [*actual[:2], "ValueError: other"], TEXT)


def test_refresh_keeps_lines_that_still_match_including_ellipsis() -> None:
    expected = ["jax ... on cpu", "a = 1", "b = 2", "tail"]
    actual = ["jax 0.10.2 on cpu", "a = 1", "b = 3", "tail"]
    assert refreshed(expected, actual, TEXT) == ["jax ... on cpu", "a = 1", "b = 3", "tail"]


def test_refresh_keeps_a_multiline_ellipsis_and_inserts_new_lines() -> None:
    expected = ["head", "...", "end"]
    actual = ["head", "x", "y", "end", "new"]
    assert refreshed(expected, actual, TEXT) == ["head", "...", "end", "new"]


def test_ellipsis_pieces_match_in_order() -> None:
    assert texts_match(["start ... b ... c ... end"], ["start a b x c y end"], TEXT)
    assert not texts_match(["start ... b ... c ... end"], ["start c b end"], TEXT)
    assert not texts_match(["...", "second", "...", "first", "..."], ["first", "second"], TEXT)
    # A piece is found after the previous one ends, never overlapping it.
    assert not ellipsis_match("a...bb...bb...c", "abbbc")
    assert ellipsis_match("a...bb...bb...c", "abbbbc")
    # Head and tail may not overlap either.
    assert not ellipsis_match("ab...bc", "abc")
    assert ellipsis_match("ab...bc", "abbc")


# As jax.make_jaxpr prints ``lambda x, y: (jnp.sin(x) * y + 1.0, jnp.sin(x) * y)``.
JAXPR = """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = sin a
    d:f32[] = mul c b
    e:f32[] = add d 1.0:f32[]
  in (e, d) }"""


def _rename(text: str, names: dict[str, str]) -> str:
    return re.sub(r"\b[a-e]\b", lambda m: names[m.group()], text)


def test_jaxpr_variables_may_be_called_like_keywords_and_primitives() -> None:
    """After a few hundred equations JAX names variables ``in``, ``let``, ``mul``, ``sin``:
    only variables are renamed."""
    rules = MatchRules(compare=CompareMode.JAXPR)
    tricky = _rename(JAXPR, {"a": "in", "b": "let", "c": "mul", "d": "sin", "e": "lambda"})
    assert "in:f32[] let:f32[]" in tricky and "sin:f32[] = mul mul let" in tricky
    assert texts_match(JAXPR.splitlines(), tricky.splitlines(), rules)
    assert texts_match(tricky.splitlines(), JAXPR.splitlines(), rules)
    canonical = canonical_jaxpr(tricky)
    assert (
        canonical.count("=sin ") == 1
        and canonical.count("=mul ") == 1
        and "let" in canonical
        and "in(" in canonical
    )
    for changed in (
        tricky.replace("= sin in", "= cos in"),
        tricky.replace("= mul mul", "= add mul"),
        tricky.replace("in (lambda, sin)", "in (sin, lambda)"),
    ):
        assert changed != tricky
        assert not texts_match(tricky.splitlines(), changed.splitlines(), rules)
