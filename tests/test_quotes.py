"""Quotes as a reader counts them: whitespace, comments, concatenation, f-string fields."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sphinx_jaxcheck.citation import check_citation, installed_index
from sphinx_jaxcheck.pin import Pin
from sphinx_jaxcheck.quotes import find_quote, quote_diff

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"
SCAN_QUOTE = (
    "scan body function carry input and carry output must have the same pytree "
    "structure, but they differ"
)

SOURCE = '''\
def check(name, x):
    """Check the carry.

    Both branches will be
    traced in all cases.
    """
    # The carry must keep its
    # structure across iterations.
    raise TypeError(
        f"{name} function carry input and carry output must have the same "
        "pytree structure, but they differ:\\n\\n"
        'Revise the function.')
'''


def test_fstring_field_and_implicit_concatenation_match() -> None:
    result = find_quote(SOURCE, SCAN_QUOTE)
    assert result.found and (result.start, result.end) == (10, 11)


def test_docstring_indentation_and_line_breaks_do_not_matter() -> None:
    result = find_quote(SOURCE, "Both branches will be traced in all cases.")
    assert result.found and (result.start, result.end) == (4, 5)


def test_comment_markers_do_not_matter() -> None:
    result = find_quote(SOURCE, "The carry must keep its structure across iterations.")
    assert result.found and (result.start, result.end) == (7, 8)


def test_quotes_and_escapes_read_as_printed() -> None:
    assert find_quote(SOURCE, "but they differ:\n\nRevise the function.").found
    assert not find_quote(SOURCE, "but they differ: Revise the carry.").found
    assert find_quote(SOURCE, "'pytree structure, but they differ'").found


def test_text_that_is_not_there_fails_with_the_closest_passage() -> None:
    result = find_quote(SOURCE, "carry input and carry output must have equal shapes")
    assert not result.found
    assert result.start == 10
    diff = quote_diff("carry input and carry output must have equal shapes", result, "x.py")
    assert diff.startswith("--- quoted\n+++ x.py#L10")
    assert "-carry input and carry output must have equal shapes" in diff


def test_fields_alone_never_match_a_quote() -> None:
    assert not find_quote('x = f"{a}{b} and {c}"\n', "anything at all goes here").found


def test_search_is_limited_to_the_given_lines() -> None:
    assert not find_quote(SOURCE, "Both branches will be traced", start=7, end=12).found


@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=2, max_size=8))
def test_any_split_into_concatenated_literals_still_matches(words: list[str]) -> None:
    sentence = " ".join(words)
    pieces = [f'"{word} "' for word in words]
    source = "message = (\n    " + "\n    ".join(pieces) + "\n)\n"
    assert find_quote(source, sentence).found


def test_scan_quote_verifies_inside_check_carry_type_of_installed_jax() -> None:
    citation = check_citation(
        "loops.py::_check_carry_type", Pin("0.10.2", COMMIT), SCAN_QUOTE, installed_index()
    )
    assert citation.ok, citation.problem
    assert citation.location is not None and citation.start is not None and citation.end is not None
    assert citation.location.start <= citation.start <= citation.end <= (citation.location.end or 0)
    lines = installed_index().source(citation.location.path).lines[citation.start - 1 : citation.end]
    assert "function carry input and carry output must have the same" in lines[0]
    assert citation.url and citation.url.endswith(f"#L{citation.start}-L{citation.end}")


def test_quote_not_in_the_file_is_drift_with_a_diff() -> None:
    quote = "carry input and carry output must have the same shape, but they are different"
    citation = check_citation("loops.py", Pin("0.10.2", COMMIT), quote, installed_index())
    assert not citation.ok and citation.is_drift
    assert citation.diff.startswith("--- quoted")
    assert f"-{quote}" in citation.diff
    # The closest passage of the pinned file, as added lines under the header.
    assert citation.diff.splitlines()[1].startswith("+++ jax/_src/lax/control_flow/loops.py#L")
    added = [line[1:] for line in citation.diff.splitlines()[2:] if line.startswith("+")]
    assert any("carry input and carry output must have the same" in line for line in added), citation.diff
