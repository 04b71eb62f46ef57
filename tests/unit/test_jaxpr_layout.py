"""An actual jaxpr in the written layout: the author's line breaks where the words still
hold, only whitespace changed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sphinx_jaxcheck.judge.jaxpr_layout import in_written_layout
from sphinx_jaxcheck.judge.matching import MatchRules, texts_match, unified_diff
from sphinx_jaxcheck.model import CompareMode

WRITTEN = ["{ lambda ; a:f32[]. let", "    b:f32[] = mul a 2.0", "  in (b,) }"]
ONE_LINE = ["{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"]
JAXPR = MatchRules(CompareMode.JAXPR)


def test_a_one_line_jaxpr_takes_the_written_breaks_and_only_the_changed_word_differs() -> None:
    laid_out = in_written_layout(WRITTEN, ONE_LINE)
    assert laid_out == ["{ lambda ; a:f32[]. let", "    b:f32[] = mul a 2.0:f32[]", "  in (b,) }"]
    diff = unified_diff(WRITTEN, laid_out)
    assert [
        line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in "+++---"
    ] == [
        "-    b:f32[] = mul a 2.0",
        "+    b:f32[] = mul a 2.0:f32[]",
    ]


def test_new_equations_keep_the_actuals_own_lines_and_a_removed_line_start_moves_on() -> None:
    written = ["{ lambda ; a:f32[3]. let", "    b:f32[3] = sin a", "  in (b,) }"]
    actual = [
        "{ lambda ; a:f32[3]. let",
        "    b:f32[3] = cos a",
        "    c:f32[3] = sin b",
        "  in (c,) }",
    ]
    assert in_written_layout(written, actual) == actual
    shorter = in_written_layout(actual, ["{ lambda ; a:f32[3]. let b:f32[3] = cos a in (b,) }"])
    assert shorter == ["{ lambda ; a:f32[3]. let", "    b:f32[3] = cos a", "  in (b,) }"]


_WORD = st.sampled_from(["{", "lambda", ";", "a:f32[]", "b:f32[]", ".", "let", "=", "mul", "in"])
_LINES = st.lists(
    st.tuples(st.sampled_from(["", "  ", "    "]), st.lists(_WORD, min_size=1, max_size=5)),
    min_size=1,
    max_size=6,
).map(lambda lines: [indent + " ".join(words) for indent, words in lines])


@given(_LINES, _LINES)
def test_only_whitespace_changes_so_the_result_matches_the_actual_as_a_jaxpr(
    written: list[str], actual: list[str]
) -> None:
    laid_out = in_written_layout(written, actual)
    assert " ".join(laid_out).split() == " ".join(actual).split()
    assert texts_match(laid_out, actual, JAXPR)
    # The written layout itself is kept whole when nothing changed.
    assert in_written_layout(written, written) == written
