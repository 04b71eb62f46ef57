"""Quotes as a reader counts them: whitespace, comments, concatenation, f-string fields."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinx_jaxcheck.cite.citation import check_citation, installed_index
from sphinx_jaxcheck.cite.pin import Pin
from sphinx_jaxcheck.cite.quotes import _reader_stream, find_quote, quote_diff, reader_text


@pytest.fixture(autouse=True)
def fresh_reader() -> Iterator[None]:
    """Each test reads its source afresh: a stream cached by an earlier test would hide a
    changed reader."""
    _reader_stream.cache_clear()
    yield


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
    lines = (
        installed_index().source(citation.location.path).lines[citation.start - 1 : citation.end]
    )
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
    assert any("carry input and carry output must have the same" in line for line in added), (
        citation.diff
    )


LITERALS = """x = 1
msg = (
    r"raw \\n stays"
    "tab\\there \\x41 \\\\ q\\'s"
    f"{{braces}} {name!r:>{width}} end"
    B"bytes"
)
# comment here
s = \"\"\"doc
    string\"\"\"
t = f\"\"\"a {
  x} b\"\"\"
"""


def test_the_reader_stream_reads_literals_as_printed_with_their_lines() -> None:
    stream = _reader_stream(LITERALS)
    assert "".join(c.char or "*" for c in stream) == (
        "x=1msg=(raw\\nstaystabhere\\x41\\qs{braces}*endbytes)commentheres=docstringt=a*b"
    )
    lines: dict[int, str] = {}
    for c in stream:
        lines[c.line] = lines.get(c.line, "") + (c.char or "*")
    assert lines == {
        1: "x=1",
        2: "msg=(",
        3: "raw\\nstays",
        4: "tabhere\\x41\\qs",
        5: "{braces}*end",
        6: "bytes",
        7: ")",
        8: "commenthere",
        9: "s=doc",
        10: "string",
        11: "t=a*",
        12: "b",
    }


@pytest.mark.parametrize(
    ("quote", "lines"),
    [
        ("raw \\n stays", (3, 3)),
        ("tab\there \\x41", (4, 4)),
        ("{braces} ANY TEXT end", (5, 5)),
        ("bytes", (6, 6)),
        ("# comment here", (8, 8)),
        ("doc string", (9, 10)),
        ("a X b", (11, 12)),  # the field spans two lines
    ],
)
def test_each_kind_of_literal_is_found_at_its_lines(quote: str, lines: tuple[int, int]) -> None:
    result = find_quote(LITERALS, quote)
    assert result.found and (result.start, result.end) == lines and result.similarity == 1.0


def test_escapes_that_print_nothing_visible_are_not_text() -> None:
    assert not find_quote(LITERALS, "raw stays").found  # a raw string keeps its backslash
    assert not find_quote(LITERALS, "tab\\there").found  # \t is a tab, not a backslash and t
    assert find_quote('s = "a\\\nb"\n', "ab").found  # an escaped line break joins the lines


def test_text_that_is_not_python_is_compared_as_plain_characters() -> None:
    plain = "The carry must\nkeep its (structure\n"
    result = find_quote(plain, "keep its (structure")
    assert result.found and (result.start, result.end) == (2, 2)
    assert reader_text("# A 'quoted'\n  # \"text\"") == "Aquotedtext"


def test_the_closest_passage_starts_where_most_of_the_quote_does() -> None:
    source = "a = 1\nb = 'the quick brown'\nc = 'fox jumps over'\nd = 'the lazy dog'\ne = 2\n"
    result = find_quote(source, "the quick brown fox jumps over the lazy cat")
    assert not result.found
    # From its first line, enough lines to hold the quote, and one more.
    assert (result.start, result.end) == (2, 5)
    assert (
        result.passage.text
        == "b = 'the quick brown'\nc = 'fox jumps over'\nd = 'the lazy dog'\ne = 2"
    )
    assert round(result.similarity, 4) == round(32 / 35, 4)


def test_nothing_to_compare_gives_an_empty_passage() -> None:
    result = find_quote("\n\n", "anything")
    assert (result.found, result.start, result.end, result.similarity) == (False, 1, 1, 0.0)
    assert not find_quote(SOURCE, "").found
    assert not find_quote(SOURCE, "Both branches", start=20, end=30).found


def test_the_diff_shows_the_quote_against_the_dedented_passage() -> None:
    quote = "carry input and carry output must have equal shapes"
    result = find_quote(SOURCE, quote)
    assert (result.start, result.end, round(result.similarity, 4)) == (10, 11, round(35 / 43, 4))
    assert quote_diff(f"  {quote}  \n", result, "x.py").splitlines() == [
        "--- quoted",
        "+++ x.py#L10-L11 (closest passage)",
        "@@ -1 +1,2 @@",
        f"-{quote}",
        '+f"{name} function carry input and carry output must have the same "',
        '+"pytree structure, but they differ:\\n\\n"',
    ]
